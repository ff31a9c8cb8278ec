// A ResourceClient for one kind the agent keeps in sync over CloudEvents (ManagedCluster, CSR,
// Lease, ManagedClusterAddOn): reads come from the local store (./object-store.ts) once the hub
// has registered the subscription, writes are published to the hub as the requests OCM's agent
// sends. As with OCM's clients, a write's result reaches the store when the hub sends the object
// back, and the object the hub refuses (a stale resourceVersion) fails with the hub's API error.

import type { KubeList, KubeObject, WatchEvent } from '../../../api/meta.js';
import { parseFieldSelector, matchesFields } from '../../../api/field-selectors.js';
import { matchesLabels, parseLabelSelector } from '../../../api/label-selectors.js';
import { ApiStatusError, isNotFound, statusFromCode } from '../../../client/errors.js';
import type { CallOptions, ListCallOptions, PatchCallOptions, PatchType, ResourceClient, ResourceType, WatchCallOptions, WriteCallOptions } from '../../../client/types.js';
import type { Clock } from '../../../util/clock.js';
import { isPlainObject, type JsonObject } from '../../../util/merge-patch.js';
import { goneError, parseRevisionToken, revisionToken, type ObjectStore, type StoreChange } from './object-store.js';

/** The writes a kind supports, each one CloudEvent to the hub. */
export interface KindWrites<T extends KubeObject> {
  /** Spec create request; undefined = not supported. */
  create?(obj: T, signal?: AbortSignal): Promise<void>;
  /** Spec update request. */
  update?(obj: T, signal?: AbortSignal): Promise<void>;
  /** Status update request with the whole object. */
  updateStatus?(obj: T, signal?: AbortSignal): Promise<void>;
}

export interface StoredResourceOptions<T extends KubeObject> {
  type: ResourceType;
  namespace: string | undefined;
  store: ObjectStore<T>;
  /** Resolves once the kind's subscription is registered (reads wait for it). */
  ready(signal?: AbortSignal): Promise<void>;
  writes: KindWrites<T>;
  /** Names a created object that only has a generateName. */
  generateName?(prefix: string): string;
  clock: Clock;
}

export function apiError(code: number, message: string, reason?: string): ApiStatusError {
  return new ApiStatusError({ ...statusFromCode(code, message), ...(reason ? { reason } : {}) });
}

function qualified(type: ResourceType): string {
  return type.group === '' ? type.resource : `${type.resource}.${type.group}`;
}

export function methodNotSupported(type: ResourceType, verb: string): ApiStatusError {
  return apiError(405, `the server does not allow this method on the requested resource (${verb} ${qualified(type)})`);
}

/** RFC 7386 merge patch applied to a copy. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return structuredClone(patch);
  const out: JsonObject = isPlainObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

type Matcher = (obj: KubeObject) => boolean;

function matcherFor(opts: { labelSelector?: string; fieldSelector?: string } | undefined, namespace: string | undefined): Matcher {
  const labels = opts?.labelSelector ? parseLabelSelector(opts.labelSelector) : undefined;
  const fields = opts?.fieldSelector ? parseFieldSelector(opts.fieldSelector, ['metadata.name', 'metadata.namespace']) : undefined;
  return (obj) =>
    (namespace === undefined || obj.metadata.namespace === namespace) &&
    (labels === undefined || matchesLabels(labels, obj.metadata.labels)) &&
    (fields === undefined || matchesFields(fields, { 'metadata.name': obj.metadata.name ?? '', 'metadata.namespace': obj.metadata.namespace ?? '' }));
}

/** A store change as the watch event a selector sees: objects entering or leaving the selection are ADDED or DELETED. */
export function watchEventFor<T extends KubeObject>(c: StoreChange<T>, matches: Matcher): WatchEvent<T> | undefined {
  const now = c.type !== 'DELETED' && matches(c.object);
  const before = c.previous !== undefined && matches(c.previous);
  if (c.type === 'DELETED') return before ? { type: 'DELETED', object: c.object } : undefined;
  if (now && before) return { type: 'MODIFIED', object: c.object };
  if (now) return { type: 'ADDED', object: c.object };
  if (before) return { type: 'DELETED', object: c.object };
  return undefined;
}

function abortedError(signal: AbortSignal | undefined): Error {
  return signal?.reason instanceof Error ? signal.reason : Object.assign(new Error('aborted'), { name: 'AbortError' });
}

export function createStoredResourceClient<T extends KubeObject>(o: StoredResourceOptions<T>): ResourceClient<T> {
  const { type, namespace, store } = o;
  const notFound = (name: string): ApiStatusError => {
    const err = apiError(404, `${qualified(type)} "${name}" not found`);
    Object.assign(err.status, { details: { name, group: type.group, kind: type.resource } });
    return err;
  };
  const cached = async (name: string, opts?: CallOptions): Promise<T> => {
    await o.ready(opts?.signal);
    const obj = store.get(namespace, name);
    if (obj === undefined) throw notFound(name);
    return structuredClone(obj);
  };
  const write = async (verb: 'create' | 'update' | 'updateStatus', obj: T, opts?: WriteCallOptions): Promise<T> => {
    const fn = o.writes[verb];
    if (fn === undefined) throw methodNotSupported(type, verb === 'updateStatus' ? 'update status' : verb);
    const out = structuredClone(obj);
    if (namespace !== undefined) out.metadata.namespace = namespace;
    try {
      await fn(out, opts?.signal);
    } catch (err) {
      // The hub no longer has the object: forget it, as OCM's clients do.
      if (verb !== 'create' && isNotFound(err)) store.remove(namespace, out.metadata.name ?? '');
      throw err;
    }
    return out;
  };

  return {
    type,
    namespace,
    get: cached,
    async list(opts?: ListCallOptions): Promise<KubeList<T>> {
      await o.ready(opts?.signal);
      const matches = matcherFor(opts, namespace);
      const { items, revision } = store.list();
      return {
        apiVersion: type.group === '' ? type.version : `${type.group}/${type.version}`,
        kind: `${type.kind}List`,
        metadata: { resourceVersion: revisionToken(revision) },
        items: items.filter(matches).map((i) => structuredClone(i)),
      };
    },
    async create(obj, opts) {
      await o.ready(opts?.signal);
      const named = structuredClone(obj);
      if (!named.metadata.name && named.metadata.generateName && o.generateName) {
        named.metadata.name = o.generateName(named.metadata.generateName);
        delete named.metadata.generateName;
      }
      if (named.metadata.name && store.get(namespace, named.metadata.name) !== undefined) {
        throw apiError(409, `${qualified(type)} "${named.metadata.name}" already exists`, 'AlreadyExists');
      }
      return write('create', named, opts);
    },
    update: (obj, opts) => write('update', obj, opts),
    updateStatus: (obj, opts) => write('updateStatus', obj, opts),
    async updateSubresource(obj, subresource, opts) {
      if (subresource === 'status') return write('updateStatus', obj, opts);
      throw methodNotSupported(type, `update ${subresource}`);
    },
    async patch(name: string, patchType: PatchType, patch: unknown, opts?: PatchCallOptions): Promise<T> {
      if (opts?.subresource !== 'status') throw methodNotSupported(type, 'patch');
      if (patchType !== 'merge') throw apiError(415, `patch type ${patchType} is not supported over CloudEvents`);
      const last = await cached(name, opts);
      const patched = mergePatch(last, patch) as T;
      return write('updateStatus', patched, opts);
    },
    async delete() {
      throw methodNotSupported(type, 'delete');
    },
    watch(opts?: WatchCallOptions): AsyncIterable<WatchEvent<T>> {
      return watchStore(o, opts);
    },
  };
}

async function* watchStore<T extends KubeObject>(o: StoredResourceOptions<T>, opts: WatchCallOptions | undefined): AsyncGenerator<WatchEvent<T>> {
  const matches = matcherFor(opts, o.namespace);
  await o.ready(opts?.signal);
  let from: number;
  if (opts?.resourceVersion === undefined || opts.resourceVersion === '' || opts.resourceVersion === '0') from = o.store.list().revision;
  else {
    const parsed = parseRevisionToken(opts.resourceVersion);
    if (parsed === undefined) throw goneError(`too old resource version: ${opts.resourceVersion}`);
    from = parsed;
  }
  // The stream ends when the caller aborts or its timeout passes, as a server-side watch does.
  const ac = new AbortController();
  const onAbort = (): void => ac.abort();
  opts?.signal?.addEventListener('abort', onAbort, { once: true });
  const timer = opts?.timeoutSeconds ? o.clock.setTimeout(() => ac.abort(), opts.timeoutSeconds * 1000) : undefined;
  try {
    if (opts?.signal?.aborted) throw abortedError(opts.signal);
    for await (const c of o.store.changesSince(from, ac.signal)) {
      const ev = watchEventFor(c, matches);
      if (ev) yield { type: ev.type, object: structuredClone(ev.object) };
      // The informer resumes from the last resourceVersion it saw: a bookmark keeps it on the store's numbering.
      if (opts?.allowWatchBookmarks) yield { type: 'BOOKMARK', object: { metadata: { resourceVersion: revisionToken(c.revision) } } as T };
    }
    if (opts?.signal?.aborted) throw abortedError(opts.signal);
  } finally {
    timer?.cancel();
    opts?.signal?.removeEventListener('abort', onAbort);
  }
}
