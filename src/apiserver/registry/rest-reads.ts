// GET and LIST: pagination with consistent continue tokens, resourceVersion semantics.

import { apiVersionOf, type KubeList, type KubeObject } from '../../api/meta.js';
import { errors, fieldErrors, type ApiError } from '../http/errors.js';
import { StoreCompactedError, type SelectorHints } from '../storage/types.js';
import { readList } from './list-reader.js';
import type { RegistryContext, RequestScope } from './rest-context.js';
import { loadCurrent } from './rest-writes.js';
import { prefixOf, selectionPrefix, toWire } from './versions.js';

export interface ListParams {
  filter?: (obj: KubeObject) => boolean;
  /** What the filter pins down: narrows the keys read (name, namespace) and lets the store use its indexes (label). */
  pinned?: { name?: string; namespace?: string };
  hints?: SelectorHints;
  limit?: number;
  continueToken?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
  /** How long a not-older-than read waits for a future revision. */
  futureWaitMs: number;
  sleep(ms: number): Promise<void>;
  /** Largest response in stored bytes: a whole list above it gets 413, a page is cut at it. Default: none. */
  maxBytes?: number;
}

/** A list response in the making: its metadata, then its items read batch by batch as they are sent. */
export interface ListSource {
  apiVersion: string;
  kind: string;
  metadata: KubeList['metadata'];
  batches: AsyncIterable<KubeObject[]>;
}

interface ContinueToken {
  rv: number;
  start: string;
}

function encodeContinue(t: ContinueToken): string {
  return Buffer.from(JSON.stringify({ v: 1, rv: t.rv, start: t.start })).toString('base64url');
}

const INVALID_START_RV = 'continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)';

/**
 * Decodes a continue token and checks it against the list it continues: the revision must be one
 * this server can have issued (a positive integer no newer than `currentRevision`) and the start
 * key must lie under the listed `prefix`. Anything else is a forged or foreign token: 400, with
 * kube-apiserver's `continue key is not valid` wording.
 */
function decodeContinue(s: string, check?: { prefix: string; currentRevision: number }): ContinueToken {
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
  return errors.invalidListOption({ reason: 'FieldValueForbidden', message, field });
}

/** Parses a resourceVersion query value; '' and '0' → undefined. */
export function parseRv(rv: string | undefined): number | undefined {
  if (rv === undefined || rv === '' || rv === '0') return undefined;
  if (!/^[0-9]+$/.test(rv)) throw errors.badRequest(`invalid resource version "${rv}"`);
  return Number(rv);
}

/** Waits (bounded) until the store reaches `rv`; 504 Too large resource version otherwise. */
async function waitForRevision(ctx: RegistryContext, rv: number, waitMs: number, sleep: (ms: number) => Promise<void>): Promise<void> {
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

/** The whole list in memory (for callers that need every item at once, like deletecollection). */
export async function listObjects(ctx: RegistryContext, scope: RequestScope, p: ListParams): Promise<KubeList> {
  const src = await openList(ctx, scope, p);
  const items: KubeObject[] = [];
  for await (const batch of src.batches) items.push(...batch);
  return { apiVersion: src.apiVersion, kind: src.kind, metadata: src.metadata, items };
}

function storeReadError(err: unknown, continued: boolean): unknown {
  if (!(err instanceof StoreCompactedError)) return err;
  if (continued) {
    return errors.expired('The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.');
  }
  return errors.expired('The resourceVersion for the provided list is too old.');
}

async function* translated<T>(batches: AsyncIterable<T>, continued: boolean): AsyncGenerator<T> {
  try {
    yield* batches;
  } catch (err) {
    throw storeReadError(err, continued);
  }
}

export async function openList(ctx: RegistryContext, scope: RequestScope, p: ListParams): Promise<ListSource> {
  const { served } = scope;
  let atRevision: number | undefined;
  let startAfterKey: string | undefined;
  const match = p.resourceVersionMatch;
  if (match !== undefined && match !== '') {
    if (!['Exact', 'NotOlderThan'].includes(match)) {
      const fe = fieldErrors.notSupported('resourceVersionMatch', match, ['Exact', 'NotOlderThan']);
      throw errors.invalidListOption(fe);
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
  const continued = Boolean(p.continueToken);
  let read;
  try {
    read = await readList(ctx.store, {
      prefix: p.filter && p.pinned ? selectionPrefix(served, scope.namespace, p.pinned) : prefixOf(served, scope.namespace),
      toWire: (obj) => toWire(served, scope.version, obj),
      ...(p.filter ? { filter: p.filter, ...(p.hints ? { hints: p.hints } : {}) } : {}),
      ...(p.limit !== undefined && p.limit > 0 ? { limit: p.limit } : {}),
      ...(startAfterKey !== undefined ? { startAfterKey } : {}),
      ...(atRevision !== undefined ? { atRevision } : {}),
      maxBytes: p.maxBytes ?? Number.POSITIVE_INFINITY,
    });
  } catch (err) {
    throw storeReadError(err, continued);
  }
  const listRv = read.revision;
  return {
    apiVersion: apiVersionOf({ group: served.def.group, version: scope.version }),
    kind: served.def.listKind,
    metadata: {
      resourceVersion: String(listRv),
      ...(read.continueAfterKey ? { continue: encodeContinue({ rv: listRv, start: read.continueAfterKey }) } : {}),
      ...(read.continueAfterKey && read.remaining !== undefined ? { remainingItemCount: read.remaining } : {}),
    },
    batches: translated(read.batches, continued),
  };
}
