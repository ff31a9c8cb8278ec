// Token driver for one addon `kubeClient` registration, as OCM's addon token driver: instead of a
// CSR, the agent asks the hub for a ServiceAccount token (TokenRequest on ServiceAccount
// `<addon>-agent` in namespace `<cluster>`) and stores it as `token` in the addon secret, next to a
// kubeconfig whose user is `tokenFile: token` (the kubeconfig and `cluster-name` are the register
// secret controller's additional data).
//
// Per sync (called by the register secret controller, ../register/secret-controller.ts):
//   1. addon not in the cache → nothing;
//   2. ensureSubject: the first kubeClient registration's subject becomes
//      {user: system:serviceaccount:<cluster>:<addon>-agent} (groups dropped); if that needed a
//      status patch, stop here (the addon informer update re-triggers);
//   3. wait for the addon condition TokenInfrastructureReady=True (set by the addon manager once the
//      ServiceAccount and its RBAC exist) and read the ServiceAccount UID from its message;
//   4. decide whether the stored token must be refreshed (tokenRefreshDecision, pure);
//   5. refresh: TokenRequest with `expirationSeconds`, store `token`, condition TokenRefreshed.
//
// Tokens are secrets: they are never logged and never put into error or condition messages.

import type { ManagedClusterAddOn } from '../../api/addon.js';
import { findCondition, rfc3339 } from '../../api/conditions.js';
import { conditionTypes } from '../../api/constants.js';
import type { Secret } from '../../api/core.js';
import type { Condition } from '../../api/meta.js';
import { resourceTypes } from '../../client/resource-types.js';
import type { KubeClient } from '../../client/types.js';
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { patchStatus } from '../../client/patch-writer.js';
import type { ProcessOutcome, RegisterDriver } from '../register/driver.js';
import { tokenUser } from './registration-config.js';
import { errorMessage, toError } from '../../util/errors.js';

/** Secret key holding the ServiceAccount token (the kubeconfig's `tokenFile: token`). */
const ADDON_TOKEN_KEY = 'token';

/**
 * Refresh once the remaining lifetime is at most this fraction of the total lifetime, i.e. at 80 %
 * of the lifetime (remaining fraction ≤ 0.2, as OCM's token driver).
 */
const TOKEN_REFRESH_REMAINING_FRACTION = 0.2;

const reasonsToken = {
  refreshed: 'AddonTokenRefreshed',
  creationFailed: 'TokenCreationFailed',
} as const;

/** `<addon>-agent`: the ServiceAccount the addon manager creates in the cluster namespace on the hub. */
function addonServiceAccountName(addonName: string): string {
  return `${addonName}-agent`;
}

// ---------------------------------------------------------------------------------------------
// Pure helpers

export interface TokenClaims {
  /** Expiry, seconds since the epoch. */
  exp: number;
  /** Issued at, seconds since the epoch. */
  iat: number;
  /** `kubernetes.io.serviceaccount.uid`; '' when absent. */
  uid: string;
}

/**
 * Parses the claims of a ServiceAccount JWT without verifying it (the hub verifies; the agent only
 * needs the lifetime and the ServiceAccount UID). Errors never contain the token.
 */
export function parseTokenClaims(token: string): TokenClaims {
  const parts = token.split('.');
  if (parts.length !== 3) throw new Error(`invalid token format: expected 3 parts, got ${parts.length}`);
  const payloadPart = parts[1]!;
  if (!/^[A-Za-z0-9_-]*={0,2}$/.test(payloadPart)) throw new Error('invalid token payload: not base64url');
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(payloadPart, 'base64url').toString('utf8'));
  } catch {
    throw new Error('invalid token payload: not JSON');
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) throw new Error('invalid token payload: not an object');
  const p = payload as Record<string, unknown>;
  if (typeof p['exp'] !== 'number' || !Number.isFinite(p['exp'])) throw new Error('token has no exp claim');
  if (typeof p['iat'] !== 'number' || !Number.isFinite(p['iat'])) throw new Error('token has no iat claim');
  const k8s = p['kubernetes.io'];
  let uid = '';
  if (typeof k8s === 'object' && k8s !== null) {
    const sa = (k8s as Record<string, unknown>)['serviceaccount'];
    if (typeof sa === 'object' && sa !== null) {
      const u = (sa as Record<string, unknown>)['uid'];
      if (typeof u === 'string') uid = u;
    }
  }
  return { exp: p['exp'], iat: p['iat'], uid };
}

export type TokenRefreshDecision =
  | { refresh: true; reason: string }
  /** The token is good; `refreshAtMs` is when it stops being so (epoch ms). */
  | { refresh: false; refreshAtMs: number };

/**
 * Whether the stored token must be replaced: missing/empty, unparsable, issued for
 * another ServiceAccount UID, expired, non-positive lifetime, or remaining/lifetime ≤ 0.2 (refresh
 * at 80 % of the lifetime). Pure; `reason` never contains the token.
 */
export function tokenRefreshDecision(token: string | undefined, expectedUid: string, nowMs: number, remainingFraction = TOKEN_REFRESH_REMAINING_FRACTION): TokenRefreshDecision {
  if (token === undefined || token === '') return { refresh: true, reason: 'no token found' };
  let claims: TokenClaims;
  try {
    claims = parseTokenClaims(token);
  } catch (err) {
    return { refresh: true, reason: errorMessage(err) };
  }
  if (claims.uid !== expectedUid) return { refresh: true, reason: `token was issued for ServiceAccount UID ${JSON.stringify(claims.uid)}, expected ${JSON.stringify(expectedUid)}` };
  const now = nowMs / 1000;
  if (claims.exp <= now) return { refresh: true, reason: 'token has expired' };
  const lifetime = claims.exp - claims.iat;
  if (lifetime <= 0) return { refresh: true, reason: 'token has a non-positive lifetime' };
  const remaining = claims.exp - now;
  if (remaining / lifetime <= remainingFraction) return { refresh: true, reason: `token expires in ${Math.round(remaining)}s` };
  return { refresh: false, refreshAtMs: Math.ceil((claims.exp - lifetime * remainingFraction) * 1000) };
}

/**
 * The ServiceAccount UID from a TokenInfrastructureReady message of the form
 * `ServiceAccount <ns>/<name> (UID: <uid>) is ready`.
 */
export function parseServiceAccountUid(message: string): string {
  const marker = 'UID: ';
  const start = message.indexOf(marker);
  if (start < 0) throw new Error(`ServiceAccount UID not found in message: ${message}`);
  const rest = message.slice(start + marker.length);
  const end = rest.indexOf(')');
  if (end < 0) throw new Error(`malformed ServiceAccount UID in message: ${message}`);
  const uid = rest.slice(0, end).trim();
  if (uid === '') throw new Error(`empty ServiceAccount UID in message: ${message}`);
  return uid;
}

export type TokenInfrastructure = { ready: false } | { ready: true; uid: string };

/** TokenInfrastructureReady must be True; throws on an unparsable message. */
export function tokenInfrastructure(addon: ManagedClusterAddOn): TokenInfrastructure {
  const c = findCondition(addon.status?.conditions, conditionTypes.tokenInfrastructureReady);
  if (!c || c.status !== 'True') return { ready: false };
  return { ready: true, uid: parseServiceAccountUid(c.message ?? '') };
}

/**
 * The addon with the first kubeClient registration's subject set to the token user (groups
 * dropped), or undefined when already so. Throws when that registration has no kubeClient.
 */
export function withTokenSubject(addon: ManagedClusterAddOn, clusterName: string, addonName: string): ManagedClusterAddOn | undefined {
  const regs = addon.status?.registrations ?? [];
  const i = regs.findIndex((r) => r.type === 'kubeClient');
  if (i < 0) return undefined;
  const reg = regs[i]!;
  if (!reg.kubeClient) throw new Error('kubeClient field should be set');
  const user = tokenUser(clusterName, addonName);
  const s = reg.kubeClient.subject;
  if (s && s.user === user && (s.groups ?? []).length === 0 && Object.keys(s).every((k) => k === 'user' || k === 'groups')) return undefined;
  const next = structuredClone(addon);
  next.status!.registrations![i]!.kubeClient!.subject = { user };
  return next;
}

// ---------------------------------------------------------------------------------------------
// Driver

export interface AddonTokenDriverOptions {
  clusterName: string;
  addonName: string;
  /** Hub client (agent credentials): TokenRequest, addon status patches. */
  hubClient: Pick<KubeClient, 'request' | 'resource'>;
  /** The addon from the hub cache (undefined = not found). */
  getAddon(): ManagedClusterAddOn | undefined;
  /** `--addon-token-expiration-seconds`. */
  expirationSeconds: number;
  /** Told when the current token will need refreshing (epoch ms), so the caller can re-sync then. */
  onRefreshDue?(atMs: number): void;
  log: Logger;
  clock: Clock;
}

interface TokenRequestResponse {
  status?: { token?: string; expirationTimestamp?: string };
}

function tokenCondition(status: 'True' | 'False', reason: string, message: string): Condition {
  return { type: conditionTypes.tokenRefreshed, status, reason, message };
}

export function createAddonTokenDriver(o: AddonTokenDriverOptions): RegisterDriver {
  const saName = addonServiceAccountName(o.addonName);
  const saRef = `${o.clusterName}/${saName}`;
  const event = (reason: string, message: string): void => o.log.info(message, { reason, addon: o.addonName });

  const requestToken = async (signal: AbortSignal): Promise<{ token: string; expiresAt: Date }> => {
    const path = `/api/v1/namespaces/${encodeURIComponent(o.clusterName)}/serviceaccounts/${encodeURIComponent(saName)}/token`;
    const body = { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', metadata: { name: saName, namespace: o.clusterName }, spec: { expirationSeconds: o.expirationSeconds } };
    const res = await o.hubClient.request<TokenRequestResponse>('POST', path, body, { signal });
    const token = res?.status?.token;
    if (typeof token !== 'string' || token === '') throw new Error('the TokenRequest response carries no token');
    let expiresAt = res.status?.expirationTimestamp ? new Date(res.status.expirationTimestamp) : undefined;
    if (!expiresAt || Number.isNaN(expiresAt.getTime())) {
      // fall back to the token's own claim
      expiresAt = new Date(parseTokenClaims(token).exp * 1000);
    }
    return { token, expiresAt };
  };

  const refresh = async (secret: Secret, expectedUid: string, signal: AbortSignal): Promise<ProcessOutcome> => {
    let issued: { token: string; expiresAt: Date };
    try {
      issued = await requestToken(signal);
      // A token that the next sync would replace at once (issued for another ServiceAccount UID
      // than TokenInfrastructureReady names, or already past its refresh point through clock skew)
      // is not stored: saving it would re-trigger the controller into a TokenRequest loop. The
      // error requeues with backoff; an addon update (a new TokenInfrastructureReady) retries.
      const check = tokenRefreshDecision(issued.token, expectedUid, o.clock.now());
      if (check.refresh) throw new Error(`the issued token is not usable: ${check.reason}`);
    } catch (e) {
      const msg = errorMessage(e);
      return {
        condition: tokenCondition('False', reasonsToken.creationFailed, `Failed to create token: ${msg}`),
        error: new Error(`failed to create token for ServiceAccount ${saRef}: ${msg}`, { cause: e }),
      };
    }
    const data = { ...(secret.data ?? {}), [ADDON_TOKEN_KEY]: Buffer.from(issued.token, 'utf8').toString('base64') };
    event('AddonTokenRefreshed', `Token refreshed for addon ${o.addonName}`);
    const due = refreshDueMs(issued.token);
    if (due !== undefined) o.onRefreshDue?.(due);
    return {
      secret: { ...secret, data },
      condition: tokenCondition('True', reasonsToken.refreshed, `Addon token refreshed, expires at ${rfc3339(issued.expiresAt)}`),
    };
  };

  return {
    async process(_controllerName, secret, additionalData, signal) {
      const addon = o.getAddon();
      if (!addon) return {};
      try {
        const next = withTokenSubject(addon, o.clusterName, o.addonName);
        if (next && (await patchStatus(o.hubClient.resource<ManagedClusterAddOn>(resourceTypes.managedClusterAddOns, o.clusterName), addon, next.status, signal))) {
          return {}; // the addon informer update re-triggers
        }
      } catch (err) {
        return { error: toError(err) };
      }

      let infra: TokenInfrastructure;
      try {
        infra = tokenInfrastructure(addon);
      } catch (err) {
        return { error: toError(err) };
      }
      if (!infra.ready) return {}; // the addon informer update re-triggers once the hub is ready

      const stored = secret.data?.[ADDON_TOKEN_KEY];
      const decision = tokenRefreshDecision(stored === undefined ? undefined : Buffer.from(stored, 'base64').toString('utf8'), infra.uid, o.clock.now());
      if (decision.refresh) {
        o.log.info(`Refreshing the token for addon ${o.addonName}: ${decision.reason}`, { addon: o.addonName });
        return refresh(secret, infra.uid, signal);
      }
      o.onRefreshDue?.(decision.refreshAtMs);
      // The token is good. The additional data (kubeconfig, cluster-name) is only written with a
      // saved secret: hand the secret back unchanged when any of it is missing or stale, so that
      // the controller rewrites it (a token does not depend on it, so no new token is needed).
      for (const [k, v] of Object.entries(additionalData)) {
        const have = secret.data?.[k];
        if (have === undefined || !Buffer.from(have, 'base64').equals(v)) return { secret };
      }
      return {};
    },
  };
}

/** When a token reaches its refresh point (epoch ms); undefined when unparsable or lifetime ≤ 0. */
export function refreshDueMs(token: string, remainingFraction = TOKEN_REFRESH_REMAINING_FRACTION): number | undefined {
  let c: TokenClaims;
  try {
    c = parseTokenClaims(token);
  } catch {
    return undefined;
  }
  const lifetime = c.exp - c.iat;
  return lifetime > 0 ? Math.ceil((c.exp - lifetime * remainingFraction) * 1000) : undefined;
}
