// GET and LIST: pagination with consistent continue tokens, resourceVersion semantics.

import { apiVersionOf, type KubeList, type KubeObject } from '../../api/meta.js';
import { ApiError, errors, fieldErrors } from '../http/errors.js';
import { StoreCompactedError } from '../storage/types.js';
import type { RegistryContext, RequestScope } from './rest-context.js';
import { loadCurrent } from './rest-writes.js';
import { prefixOf, toWire } from './versions.js';

export interface ListParams {
  filter?: (obj: KubeObject) => boolean;
  limit?: number;
  continueToken?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
  /** How long a not-older-than read waits for a future revision. */
  futureWaitMs: number;
  sleep(ms: number): Promise<void>;
}

interface ContinueToken {
  rv: number;
  start: string;
}

export function encodeContinue(t: ContinueToken): string {
  return Buffer.from(JSON.stringify({ v: 1, rv: t.rv, start: t.start })).toString('base64url');
}

const INVALID_START_RV = 'continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)';

/**
 * Decodes a continue token and checks it against the list it continues: the revision must be one
 * this server can have issued (a positive integer no newer than `currentRevision`) and the start
 * key must lie under the listed `prefix`. Anything else is a forged or foreign token: 400, with
 * kube-apiserver's `continue key is not valid` wording.
 */
export function decodeContinue(s: string, check?: { prefix: string; currentRevision: number }): ContinueToken {
  let parsed: { v?: unknown; rv?: unknown; start?: unknown } | undefined;
  try {
    const value = JSON.parse(Buffer.from(s, 'base64url').toString('utf8')) as unknown;
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) parsed = value as typeof parsed;
  } catch {
    // reported below
  }
  if (!parsed || parsed.v !== 1) throw errors.badRequest(INVALID_START_RV);
  const { rv, start } = parsed;
  if (typeof rv !== 'number' || !Number.isSafeInteger(rv) || rv <= 0) throw errors.badRequest(INVALID_START_RV);
  if (typeof start !== 'string' || start === '') throw errors.badRequest('continue key is not valid: encoded start key empty (version meta.k8s.io/v1)');
  if (check) {
    if (!start.startsWith(check.prefix)) throw errors.badRequest('continue key is not valid: the start key does not belong to this list');
    // Tokens carry the revision of the list they continue, never one the store has not reached.
    if (rv > check.currentRevision) {
      throw errors.badRequest(`continue key is not valid: resourceVersion ${rv} is newer than the current resourceVersion ${check.currentRevision}`);
    }
  }
  return { rv, start };
}

function listOptionsInvalid(field: string, message: string): ApiError {
  return new ApiError(422, 'Invalid', `ListOptions.meta.k8s.io "" is invalid: ${field}: ${message}`, {
    group: 'meta.k8s.io', kind: 'ListOptions', causes: [{ reason: 'FieldValueForbidden', message, field }],
  });
}

/** Parses a resourceVersion query value; '' and '0' → undefined. */
export function parseRv(rv: string | undefined): number | undefined {
  if (rv === undefined || rv === '' || rv === '0') return undefined;
  if (!/^[0-9]+$/.test(rv)) throw errors.badRequest(`invalid resource version "${rv}"`);
  return Number(rv);
}

/** Waits (bounded) until the store reaches `rv`; 504 Too large resource version otherwise. */
export async function waitForRevision(ctx: RegistryContext, rv: number, waitMs: number, sleep: (ms: number) => Promise<void>): Promise<void> {
  const deadline = ctx.now() + waitMs;
  while (ctx.store.currentRevision() < rv) {
    if (ctx.now() >= deadline) throw errors.tooLargeResourceVersion(rv, ctx.store.currentRevision());
    await sleep(Math.min(50, waitMs));
  }
}

export async function getObject(ctx: RegistryContext, scope: RequestScope, name: string, rvParam: string | undefined, params: Pick<ListParams, 'futureWaitMs' | 'sleep'>): Promise<KubeObject> {
  const rv = parseRv(rvParam);
  if (rv !== undefined) await waitForRevision(ctx, rv, params.futureWaitMs, params.sleep);
  return toWire(scope.served, scope.version, loadCurrent(ctx, scope, name).object);
}

export async function listObjects(ctx: RegistryContext, scope: RequestScope, p: ListParams): Promise<KubeList> {
  const { served } = scope;
  let atRevision: number | undefined;
  let startAfterKey: string | undefined;
  const match = p.resourceVersionMatch;
  if (match !== undefined && match !== '') {
    if (!['Exact', 'NotOlderThan'].includes(match)) {
      const fe = fieldErrors.notSupported('resourceVersionMatch', match, ['Exact', 'NotOlderThan']);
      throw new ApiError(422, 'Invalid', `ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: ${fe.message}`, { group: 'meta.k8s.io', kind: 'ListOptions', causes: [fe] });
    }
    if (p.continueToken) throw listOptionsInvalid('resourceVersionMatch', 'Forbidden: resourceVersionMatch is forbidden when continue is provided');
    if (!p.resourceVersion) throw listOptionsInvalid('resourceVersionMatch', 'Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided');
    if (match === 'Exact' && p.resourceVersion === '0') throw listOptionsInvalid('resourceVersionMatch', 'Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"');
  }
  const rv = parseRv(p.resourceVersion);
  if (p.continueToken) {
    if (rv !== undefined) throw errors.badRequest('specifying resource version is not allowed when using continue');
    const tok = decodeContinue(p.continueToken, { prefix: prefixOf(served, scope.namespace), currentRevision: ctx.store.currentRevision() });
    atRevision = tok.rv;
    startAfterKey = tok.start;
  } else if (rv !== undefined) {
    const exact = match === 'Exact' || (!match && p.limit !== undefined && p.limit > 0);
    if (exact) {
      if (rv > ctx.store.currentRevision()) throw errors.tooLargeResourceVersion(rv, ctx.store.currentRevision());
      atRevision = rv;
    } else {
      await waitForRevision(ctx, rv, p.futureWaitMs, p.sleep);
    }
  }
  let res;
  try {
    res = ctx.store.list(prefixOf(served, scope.namespace), {
      ...(startAfterKey !== undefined ? { startAfterKey } : {}),
      // Any int64 is a valid limit; beyond 2^53 it cannot cut a list short anyway.
      ...(p.limit !== undefined && p.limit > 0 ? { limit: Math.min(p.limit, Number.MAX_SAFE_INTEGER) } : {}),
      ...(atRevision !== undefined ? { atRevision } : {}),
      ...(p.filter ? { filter: p.filter } : {}),
    });
  } catch (err) {
    if (err instanceof StoreCompactedError) {
      if (p.continueToken) {
        throw errors.expired('The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.');
      }
      throw errors.expired('The resourceVersion for the provided list is too old.');
    }
    throw err;
  }
  const listRv = atRevision ?? res.revision;
  return {
    apiVersion: apiVersionOf({ group: served.def.group, version: scope.version }),
    kind: served.def.listKind,
    metadata: {
      resourceVersion: String(listRv),
      ...(res.continueAfterKey ? { continue: encodeContinue({ rv: listRv, start: res.continueAfterKey }) } : {}),
      ...(res.continueAfterKey && res.remaining !== undefined && !p.filter ? { remainingItemCount: res.remaining } : {}),
    },
    items: res.items.map((it) => toWire(served, scope.version, it.object)),
  };
}
