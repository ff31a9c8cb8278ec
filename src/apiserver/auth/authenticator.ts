// The authentication chain, in kube-apiserver's order: x509 client certificate → bearer token
// (static token file, bootstrap token, service-account token) → anonymous. First success wins; a
// presented credential that nothing accepts answers 401, never anonymous. Every authenticated user
// also gets `system:authenticated`.
//
// Log lines name the failing credential kind and reason only; tokens and keys never appear.

import { storageKey, type AuthenticationRequest, type AuthenticationResult, type Authenticator, type UserInfo } from '../pipeline.js';
import type { Store } from '../storage/types.js';
import type { Clock } from '../../util/clock.js';
import { realClock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { nullLogger } from '../../util/logger.js';
import { BOOTSTRAP_TOKEN_NAMESPACE, bootstrapTokenSecretName, checkBootstrapToken, parseBootstrapToken } from './bootstrap-token.js';
import { loadTokenFile, StaticTokenTable, type StaticToken } from './token-file.js';
import { createX509Authenticator } from './x509-authenticator.js';
import type { ServiceAccountTokenVerifier } from './service-account-token.js';

export const AUTHENTICATED_GROUP = 'system:authenticated';
export const UNAUTHENTICATED_GROUP = 'system:unauthenticated';
export const ANONYMOUS_USER = 'system:anonymous';

export interface AuthenticatorOptions {
  store: Store;
  /** Only `clientCaPem` is used: the client-CA bundle for x509 authentication. */
  pki: { clientCaPem: string };
  /** Path of a `--token-auth-file` CSV (read once, synchronously, here). */
  tokenFile?: string;
  /** Static tokens given directly (added to those of tokenFile). */
  staticTokens?: StaticToken[];
  /** Service-account token verification; omitted = SA tokens are not accepted. */
  serviceAccountTokens?: ServiceAccountTokenVerifier;
  /** Default true (upstream `--anonymous-auth=true`). */
  anonymous?: boolean;
  /** Default true (bootstrap tokens enabled). */
  bootstrapTokens?: boolean;
  clock?: Clock;
  log?: Logger;
}

/** Extracts the bearer token; undefined when the header is absent, not `Bearer`, or empty. */
function bearerToken(headers: AuthenticationRequest['headers']): string | undefined {
  const h = headers.authorization;
  const value = Array.isArray(h) ? h[0] : h;
  if (!value) return undefined;
  const m = /^\s*bearer\s+(.*)$/i.exec(value);
  if (!m) return undefined;
  const token = m[1]!.trim();
  return token === '' ? undefined : token;
}

function withAuthenticated(user: UserInfo): UserInfo {
  return user.groups.includes(AUTHENTICATED_GROUP) ? user : { ...user, groups: [...user.groups, AUTHENTICATED_GROUP] };
}

export function createAuthenticator(opts: AuthenticatorOptions): Authenticator {
  const clock = opts.clock ?? realClock;
  const log = opts.log ?? nullLogger();
  const anonymous = opts.anonymous ?? true;
  const bootstrapEnabled = opts.bootstrapTokens ?? true;
  const tokens = new StaticTokenTable([...(opts.tokenFile ? loadTokenFile(opts.tokenFile) : []), ...(opts.staticTokens ?? [])]);
  const x509 = createX509Authenticator({ clientCaPem: opts.pki.clientCaPem, now: () => clock.now() });
  const store = opts.store;

  const fromToken = (token: string): { user?: UserInfo; why: string } => {
    const s = tokens.lookup(token);
    if (s) return { user: s, why: '' };
    const bt = bootstrapEnabled ? parseBootstrapToken(token) : undefined;
    if (bt) {
      const secret = store.get(storageKey('', 'secrets', BOOTSTRAP_TOKEN_NAMESPACE, bootstrapTokenSecretName(bt.id)))?.object;
      const r = checkBootstrapToken(bt, secret, clock.now());
      return r.ok ? { user: r.user, why: '' } : { why: `bootstrap token ${bt.id}: ${r.why}` };
    }
    if (opts.serviceAccountTokens && token.split('.').length === 3) {
      const r = opts.serviceAccountTokens.verify(token);
      return r.ok ? { user: r.user, why: '' } : { why: `service account token: ${r.why}` };
    }
    return { why: 'unknown bearer token' };
  };

  return {
    authenticate(req: AuthenticationRequest): AuthenticationResult {
      const reasons: string[] = [];
      if (req.clientCertificateDer && req.clientCertificateDer.length > 0) {
        const r = x509.authenticate(req.clientCertificateDer);
        if (r.ok) return { kind: 'user', user: withAuthenticated(r.user) };
        reasons.push(`x509: ${r.why}`);
      }
      const token = bearerToken(req.headers);
      if (token !== undefined) {
        const r = fromToken(token);
        if (r.user) return { kind: 'user', user: withAuthenticated(r.user) };
        reasons.push(r.why);
      }
      if (reasons.length > 0) {
        const why = reasons.join('; ');
        log.info('authentication failed', { reason: why });
        return { kind: 'unauthorized', why };
      }
      if (!anonymous) return { kind: 'unauthorized', why: 'no credentials and anonymous access is disabled' };
      return { kind: 'anonymous', user: { username: ANONYMOUS_USER, groups: [UNAUTHENTICATED_GROUP] } };
    },
  };
}
