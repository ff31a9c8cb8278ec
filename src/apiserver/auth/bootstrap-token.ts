// Bootstrap tokens, as kube-apiserver's --enable-bootstrap-token-auth: `<id>.<secret>` backed by
// the Secret `kube-system/bootstrap-token-<id>`. The decision is a pure function of the token, the
// secret and the time; the authenticator does the store read.

import { timingSafeEqual } from 'node:crypto';
import type { KubeObject } from '../../api/meta.js';
import type { UserInfo } from '../pipeline.js';
import { BOOTSTRAP_USER_PREFIX } from '../../api/cluster-csr.js';

const BOOTSTRAP_TOKEN_SECRET_TYPE = 'bootstrap.kubernetes.io/token';
export const BOOTSTRAP_TOKEN_NAMESPACE = 'kube-system';
const BOOTSTRAP_TOKEN_SECRET_PREFIX = 'bootstrap-token-';

const BOOTSTRAPPERS_GROUP = 'system:bootstrappers';

const TOKEN_RE = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
const EXTRA_GROUP_RE = /^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$/;

/** Splits a bearer string into id and secret; undefined when it is not a bootstrap token. */
export function parseBootstrapToken(token: string): { id: string; secret: string } | undefined {
  const m = TOKEN_RE.exec(token);
  return m ? { id: m[1]!, secret: m[2]! } : undefined;
}

export function bootstrapTokenSecretName(id: string): string {
  return `${BOOTSTRAP_TOKEN_SECRET_PREFIX}${id}`;
}

export type BootstrapTokenResult = { ok: true; user: UserInfo } | { ok: false; why: string };

function dataValue(secret: KubeObject, key: string): string | undefined {
  const data = secret.data as Record<string, unknown> | undefined;
  const v = data?.[key];
  if (typeof v !== 'string') return undefined;
  return Buffer.from(v, 'base64').toString('utf8');
}

function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}

/**
 * Validates a parsed bootstrap token against its secret at time `nowMs`. The `why` strings are
 * safe to log (they never contain the token secret).
 */
export function checkBootstrapToken(token: { id: string; secret: string }, secret: KubeObject | undefined, nowMs: number): BootstrapTokenResult {
  if (!secret) return { ok: false, why: 'no bootstrap token secret' };
  if (secret.metadata.deletionTimestamp) return { ok: false, why: 'bootstrap token secret is being deleted' };
  if (secret.type !== BOOTSTRAP_TOKEN_SECRET_TYPE) return { ok: false, why: 'secret has the wrong type' };
  const id = dataValue(secret, 'token-id');
  const sec = dataValue(secret, 'token-secret');
  if (id === undefined || sec === undefined) return { ok: false, why: 'secret lacks token-id or token-secret' };
  if (!safeEqual(id, token.id) || !safeEqual(sec, token.secret)) return { ok: false, why: 'token does not match the secret' };
  if (dataValue(secret, 'usage-bootstrap-authentication') !== 'true') return { ok: false, why: 'token is not usable for authentication' };
  const exp = dataValue(secret, 'expiration');
  if (exp !== undefined) {
    const t = Date.parse(exp);
    if (Number.isNaN(t)) return { ok: false, why: 'unparseable expiration' };
    if (nowMs >= t) return { ok: false, why: 'token has expired' };
  }
  const groups = [BOOTSTRAPPERS_GROUP];
  const extra = dataValue(secret, 'auth-extra-groups');
  if (extra !== undefined && extra.trim() !== '') {
    for (const g of extra.split(',').map((s) => s.trim())) {
      if (!EXTRA_GROUP_RE.test(g)) return { ok: false, why: 'invalid auth-extra-groups entry' };
      if (!groups.includes(g)) groups.push(g);
    }
  }
  return { ok: true, user: { username: `${BOOTSTRAP_USER_PREFIX}${token.id}`, groups } };
}
