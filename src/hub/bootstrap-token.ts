// Bootstrap token for joining agents: Secret kube-system/bootstrap-token-<id>,
// group system:bootstrappers:managedcluster, bound to OCM's bootstrap ClusterRole only. Pure helpers.

import { randomInt } from 'node:crypto';
import type { Secret } from '../api/core.js';
import { rfc3339 } from '../api/conditions.js';

export const BOOTSTRAP_GROUP = 'system:bootstrappers:managedcluster';
const BOOTSTRAP_TOKEN_TYPE = 'bootstrap.kubernetes.io/token';
export const HUB_TOKEN_LABEL = 'ocm-ts.io/hub-bootstrap-token';
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

export function randomTokenPart(n: number, rnd: (max: number) => number = randomInt): string {
  let s = '';
  for (let i = 0; i < n; i++) s += ALPHABET[rnd(ALPHABET.length)];
  return s;
}

export function bootstrapTokenSecret(id: string, secret: string, expiresAtMs: number): Secret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `bootstrap-token-${id}`, namespace: 'kube-system', labels: { [HUB_TOKEN_LABEL]: 'true' } },
    type: BOOTSTRAP_TOKEN_TYPE,
    stringData: {
      'token-id': id,
      'token-secret': secret,
      'usage-bootstrap-authentication': 'true',
      'auth-extra-groups': BOOTSTRAP_GROUP,
      expiration: rfc3339(new Date(expiresAtMs)),
      description: 'ocm-ts hub: bootstrap token for joining managed clusters',
    },
  };
}

const dec = (v: string | undefined): string => (v === undefined ? '' : Buffer.from(v, 'base64').toString('utf8'));

/**
 * The token (`<id>.<secret>`) of a hub bootstrap secret that can still be handed out: not deleting,
 * authentication usage on, and at least a tenth of the TTL (or `minRemainingMs`) left before it expires.
 */
export function reusableToken(s: Secret, nowMs: number, minRemainingMs: number): { token: string; expiresAtMs: number } | undefined {
  if (s.type !== BOOTSTRAP_TOKEN_TYPE || s.metadata.deletionTimestamp) return undefined;
  const d = s.data ?? {};
  const id = dec(d['token-id']);
  const secret = dec(d['token-secret']);
  if (!/^[a-z0-9]{6}$/.test(id) || !/^[a-z0-9]{16}$/.test(secret) || dec(d['usage-bootstrap-authentication']) !== 'true') return undefined;
  if (s.metadata.name !== `bootstrap-token-${id}`) return undefined;
  const exp = Date.parse(dec(d['expiration']));
  if (!Number.isFinite(exp) || exp - nowMs < minRemainingMs) return undefined;
  return { token: `${id}.${secret}`, expiresAtMs: exp };
}
