// Service-account tokens: ES256 JWTs issued through the TokenRequest
// subresource (`POST .../serviceaccounts/<name>/token`) and accepted as bearer tokens while the
// ServiceAccount still exists with the same uid.

import { createPrivateKey, createPublicKey, randomUUID, sign as cryptoSign, verify as cryptoVerify, type KeyObject } from 'node:crypto';
import { rfc3339 } from '../../api/conditions.js';
import type { KubeObject } from '../../api/meta.js';
import { errors, fieldErrors } from '../http/errors.js';
import { storageKey, type UserInfo } from '../pipeline.js';
import type { Store } from '../storage/types.js';
import type { Clock } from '../../util/clock.js';
import { serviceAccountUsername } from './rbac-rules.js';

const SERVICE_ACCOUNTS_GROUP = 'system:serviceaccounts';
const MIN_EXPIRATION_SECONDS = 600;
const DEFAULT_EXPIRATION_SECONDS = 3600;

interface Claims {
  iss: string;
  sub: string;
  aud: string[];
  exp: number;
  iat: number;
  nbf: number;
  jti: string;
  'kubernetes.io': { namespace: string; serviceaccount: { name: string; uid: string } };
}

const b64url = (b: Buffer | string): string => Buffer.from(b).toString('base64url');

export interface ServiceAccountTokenOptions {
  /** PEM EC P-256 private key (the PKI's service-account key). Secret: never log. */
  keyPem: string;
  /** `iss` claim, e.g. the server URL. */
  issuer: string;
  /** Audiences the API accepts; default [issuer]. */
  apiAudiences?: string[];
  store: Store;
  clock: Clock;
}

type SaVerifyResult = { ok: true; user: UserInfo } | { ok: false; why: string };

export interface ServiceAccountTokenVerifier {
  verify(token: string): SaVerifyResult;
}

export interface ServiceAccountTokens extends ServiceAccountTokenVerifier {
  /** Answers a TokenRequest for ServiceAccount `namespace/name`; throws ApiError (404, 422). */
  handleTokenRequest(body: KubeObject, namespace: string, name: string): KubeObject;
}

function signJwt(claims: Claims, key: KeyObject, kid: string): string {
  const header = b64url(JSON.stringify({ alg: 'ES256', kid }));
  const payload = b64url(JSON.stringify(claims));
  const sig = cryptoSign('sha256', Buffer.from(`${header}.${payload}`), { key, dsaEncoding: 'ieee-p1363' });
  return `${header}.${payload}.${b64url(sig)}`;
}

export function createServiceAccountTokens(opts: ServiceAccountTokenOptions): ServiceAccountTokens {
  const priv = createPrivateKey(opts.keyPem);
  if (priv.asymmetricKeyType !== 'ec') throw new Error('service-account signing key must be an EC P-256 key');
  const pub = createPublicKey(priv);
  const kid = b64url(pub.export({ type: 'spki', format: 'der' }).subarray(-16));
  const audiences = opts.apiAudiences ?? [opts.issuer];

  const getSa = (ns: string, name: string): KubeObject | undefined => opts.store.get(storageKey('', 'serviceaccounts', ns, name))?.object;

  return {
    verify(token: string): SaVerifyResult {
      const parts = token.split('.');
      if (parts.length !== 3) return { ok: false, why: 'not a JWT' };
      let header: { alg?: string };
      let claims: Partial<Claims>;
      try {
        header = JSON.parse(Buffer.from(parts[0]!, 'base64url').toString('utf8')) as { alg?: string };
        claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as Partial<Claims>;
      } catch {
        return { ok: false, why: 'malformed JWT' };
      }
      if (header.alg !== 'ES256') return { ok: false, why: 'unsupported JWT algorithm' };
      const sigOk = cryptoVerify('sha256', Buffer.from(`${parts[0]}.${parts[1]}`), { key: pub, dsaEncoding: 'ieee-p1363' }, Buffer.from(parts[2]!, 'base64url'));
      if (!sigOk) return { ok: false, why: 'invalid signature' };
      if (claims.iss !== opts.issuer) return { ok: false, why: 'wrong issuer' };
      const now = Math.floor(opts.clock.now() / 1000);
      if (typeof claims.exp !== 'number' || now >= claims.exp) return { ok: false, why: 'token has expired' };
      if (typeof claims.nbf === 'number' && now < claims.nbf - 60) return { ok: false, why: 'token is not yet valid' };
      const aud = Array.isArray(claims.aud) ? claims.aud : typeof claims.aud === 'string' ? [claims.aud] : [];
      if (!aud.some((a) => audiences.includes(a))) return { ok: false, why: 'token audience is not accepted' };
      const k8s = claims['kubernetes.io'];
      const ns = k8s?.namespace;
      const saName = k8s?.serviceaccount?.name;
      const uid = k8s?.serviceaccount?.uid;
      if (!ns || !saName || claims.sub !== serviceAccountUsername(ns, saName)) return { ok: false, why: 'malformed service account claims' };
      const sa = getSa(ns, saName);
      if (!sa || sa.metadata.deletionTimestamp) return { ok: false, why: 'service account no longer exists' };
      if (uid && sa.metadata.uid !== uid) return { ok: false, why: 'service account uid changed' };
      return {
        ok: true,
        user: { username: claims.sub, ...(uid ? { uid } : {}), groups: [SERVICE_ACCOUNTS_GROUP, `${SERVICE_ACCOUNTS_GROUP}:${ns}`] },
      };
    },

    handleTokenRequest(body: KubeObject, namespace: string, name: string): KubeObject {
      const sa = getSa(namespace, name);
      if (!sa) throw errors.notFound({ group: '', resource: 'serviceaccounts' }, name);
      const spec = (typeof body.spec === 'object' && body.spec !== null ? body.spec : {}) as { audiences?: string[]; expirationSeconds?: number; boundObjectRef?: unknown };
      const exp = spec.expirationSeconds ?? DEFAULT_EXPIRATION_SECONDS;
      if (typeof exp !== 'number' || !Number.isInteger(exp) || exp < MIN_EXPIRATION_SECONDS) {
        throw errors.invalid('TokenRequest', 'authentication.k8s.io', name, [
          fieldErrors.invalid('spec.expirationSeconds', exp, 'may not specify a duration less than 10 minutes'),
        ]);
      }
      const aud = Array.isArray(spec.audiences) && spec.audiences.length > 0 ? spec.audiences : audiences;
      const nowMs = opts.clock.now();
      const iat = Math.floor(nowMs / 1000);
      const claims: Claims = {
        iss: opts.issuer,
        sub: serviceAccountUsername(namespace, name),
        aud,
        exp: iat + exp,
        iat,
        nbf: iat,
        jti: randomUUID(),
        'kubernetes.io': { namespace, serviceaccount: { name, uid: sa.metadata.uid ?? '' } },
      };
      return {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenRequest',
        metadata: { name, namespace, creationTimestamp: null } as unknown as KubeObject['metadata'],
        spec: { audiences: aud, expirationSeconds: exp, boundObjectRef: spec.boundObjectRef ?? null },
        status: { token: signJwt(claims, priv, kid), expirationTimestamp: rfc3339(new Date((iat + exp) * 1000)) },
      };
    },
  };
}
