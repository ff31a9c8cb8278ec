// Informer: list, then watch from the list's resourceVersion (bookmarks on). A 410 (HTTP or ERROR
// event) relists, which also emits deletes for objects that vanished; a clean stream end re-watches
// at once from the last resourceVersion; only failures back off (1 s doubling to 30 s, jitter,
// reset after a healthy stretch), forever. Handlers are synchronous and should only enqueue keys.

import type { KubeList, KubeObject, Status, WatchEvent } from '../api/meta.js';
import { realClock, setTimeoutUntilAborted, type Clock } from '../util/clock.js';
import { nullLogger } from '../util/logger.js';
import { createBackoff, type BackoffOptions } from './backoff.js';
import { toError } from '../util/errors.js';
import { ApiStatusError, isGone } from './errors.js';
import { remove, replaceAll, upsert, type CacheDelta } from './informer-cache.js';
import { IndexedCache, parseLabelSelectorCached } from './informer-index.js';
import type { Informer, InformerHandlers, InformerOptions, InformerState, Lister, ResourceClient } from './types.js';

/** Health of an informer, for its owner to log or count. */
export type InformerEvent =
  | { type: 'state'; state: InformerState }
  | { type: 'listed'; items: number; resourceVersion: string }
  | { type: 'expired'; message: string }
  | { type: 'failure'; err: Error; retryInMs: number };

export interface InformerRuntimeOptions extends InformerOptions {
  backoff?: Omit<BackoffOptions, 'now' | 'random'>;
  random?: () => number;
  /** Server-side watch timeout, picked at random in [min, max) seconds (default 300–600, like client-go). */
  watchTimeoutSeconds?: { min: number; max: number };
  /** A watch still open this long after its timeoutSeconds is presumed dead and restarted (default 30 000 ms). */
  watchGraceMs?: number;
  /** List page size (default 500; 0 = one unpaginated list). */
  pageSize?: number;
  onEvent?(e: InformerEvent): void;
}

export function createInformer<T extends KubeObject>(client: ResourceClient<T>, options: InformerRuntimeOptions = {}): Informer<T> {
  const clock: Clock = options.clock ?? realClock;
  const log = (options.log ?? nullLogger()).child({ informer: client.type.resource, ...(client.namespace ? { namespace: client.namespace } : {}) });
  const random = options.random ?? Math.random;
  const watchTimeout = options.watchTimeoutSeconds ?? { min: 300, max: 600 };
  const pageSize = options.pageSize ?? 500;
  const watchGraceMs = options.watchGraceMs ?? 30_000;
  const resyncMs = options.resyncMs ?? 0;
  const apiVersion = client.type.group === '' ? client.type.version : `${client.type.group}/${client.type.version}`;

  // Indexed by namespace and by label inside its own writes, so listers need not scan it all.
  const cache = new IndexedCache<T>();
  const handlers: InformerHandlers<T>[] = [];
  let current: InformerState = 'stopped';
  let synced = false;
  let started = false;
  const syncWaiters: Array<() => void> = [];

  const emit = (e: InformerEvent): void => {
    try {
      options.onEvent?.(e);
    } catch (err) {
      log.warn('informer event callback threw', { err });
    }
  };
  const setState = (s: InformerState): void => {
    if (s === current) return;
    current = s;
    log.debug('informer state', { state: s });
    emit({ type: 'state', state: s });
  };
  const withTypeMeta = (obj: T): T => (obj.apiVersion && obj.kind ? obj : { ...obj, apiVersion: obj.apiVersion ?? apiVersion, kind: obj.kind ?? client.type.kind });
  /** The object as the cache keeps it. A copy without managedFields, not a delete: V8 slows an object a property was deleted from. */
  const cacheable = (obj: T): T => {
    const typed = withTypeMeta(obj);
    if (!options.dropManagedFields || typed.metadata?.managedFields === undefined) return typed;
    const { managedFields: _dropped, ...metadata } = typed.metadata;
    return { ...typed, metadata };
  };
  const deliver = (d: CacheDelta<T>): void => {
    for (const h of handlers) {
      try {
        if (d.type === 'add') h.onAdd?.(d.obj);
        else if (d.type === 'update') h.onUpdate?.(d.oldObj, d.obj);
        else h.onDelete?.(d.obj);
      } catch (err) {
        log.warn('informer handler threw', { err });
      }
    }
  };

  const listAll = async (signal: AbortSignal): Promise<KubeList<T>> => {
    const base = {
      signal,
      ...(options.labelSelector ? { labelSelector: options.labelSelector } : {}),
      ...(options.fieldSelector ? { fieldSelector: options.fieldSelector } : {}),
    };
    if (pageSize <= 0) return client.list(base);
    // A continue token that expired mid-way (410) restarts the paging on a fresh snapshot, once:
    // an unpaged list instead could exceed the server's response cap (kube-apiserver has none, the
    // embedded server answers 413 beyond it). A second expiry goes to the caller's backoff.
    for (let attempt = 1; ; attempt++) {
      try {
        return await listPages(base);
      } catch (err) {
        if (!isGone(err) || attempt >= 2) throw err;
        log.debug('informer list continue token expired; listing again from the start', { err });
      }
    }
  };

  const listPages = async (base: { signal: AbortSignal; labelSelector?: string; fieldSelector?: string }): Promise<KubeList<T>> => {
    let first = await client.list({ ...base, limit: pageSize });
    const items = [...first.items];
    let cont = first.metadata.continue;
    while (cont) {
      const page = await client.list({ ...base, limit: pageSize, continue: cont });
      items.push(...page.items);
      first = { ...first, metadata: { ...first.metadata, resourceVersion: page.metadata.resourceVersion ?? first.metadata.resourceVersion } };
      cont = page.metadata.continue;
    }
    return { ...first, items };
  };

  const run = async (signal: AbortSignal): Promise<void> => {
    const backoff = createBackoff({ ...options.backoff, now: () => clock.now(), random });
    let rv: string | undefined;
    let quickEmptyEnds = 0;
    let cleanupWatch: (() => void) | undefined;
    while (!signal.aborted) {
      try {
        if (rv === undefined) {
          setState('listing');
          const list = await listAll(signal);
          const deltas = replaceAll(cache, list.items.map(cacheable));
          rv = list.metadata.resourceVersion ?? '';
          emit({ type: 'listed', items: list.items.length, resourceVersion: rv });
          log.debug('informer listed', { items: list.items.length, resourceVersion: rv });
          deltas.forEach(deliver);
          if (!synced) {
            synced = true;
            syncWaiters.splice(0).forEach((w) => w());
          }
        }
        setState('watching');
        const openedAt = clock.now();
        let events = 0;
        const timeoutSeconds = Math.floor(watchTimeout.min + random() * Math.max(0, watchTimeout.max - watchTimeout.min));
        // A stream outliving its server-side timeout by a grace period sits on a dead connection.
        const watchAc = new AbortController();
        const onAbort = (): void => watchAc.abort(signal.reason);
        signal.addEventListener('abort', onAbort, { once: true });
        const deadline = clock.setTimeout(() => watchAc.abort(new Error(`watch did not end within ${timeoutSeconds} s + grace`)), timeoutSeconds * 1000 + watchGraceMs);
        cleanupWatch = () => {
          deadline.cancel();
          signal.removeEventListener('abort', onAbort);
        };
        const stream: AsyncIterable<WatchEvent<T>> = client.watch({
          signal: watchAc.signal,
          allowWatchBookmarks: true,
          timeoutSeconds,
          ...(rv ? { resourceVersion: rv } : {}),
          ...(options.labelSelector ? { labelSelector: options.labelSelector } : {}),
          ...(options.fieldSelector ? { fieldSelector: options.fieldSelector } : {}),
        });
        for await (const ev of stream) {
          events++;
          if (ev.type === 'ERROR') {
            const status = ev.object as unknown as Status;
            throw new ApiStatusError({ ...status, code: typeof status.code === 'number' ? status.code : 500 });
          }
          const nextRv = ev.object.metadata.resourceVersion;
          if (ev.type === 'BOOKMARK') {
            if (nextRv) rv = nextRv;
            continue;
          }
          const obj = cacheable(ev.object);
          const d = ev.type === 'DELETED' ? remove(cache, obj) : upsert(cache, obj);
          if (nextRv) rv = nextRv;
          if (d) deliver(d);
        }
        // Clean end (server timeout): resume at once from rv. A server that keeps closing empty
        // streams immediately is treated as failing, so that we do not spin.
        if (events === 0 && clock.now() - openedAt < 1000) {
          quickEmptyEnds++;
          if (quickEmptyEnds >= 3) throw new Error('watch keeps ending immediately');
        } else quickEmptyEnds = 0;
        cleanupWatch?.();
      } catch (e) {
        cleanupWatch?.();
        if (signal.aborted) break;
        const err = toError(e);
        if (isGone(err) && rv !== undefined) {
          // Too old a resourceVersion: relist at once (the relist emits deletes for vanished objects).
          log.debug('informer resourceVersion expired; relisting', { resourceVersion: rv, err });
          emit({ type: 'expired', message: err.message });
          rv = undefined;
          continue;
        }
        quickEmptyEnds = 0;
        const delay = backoff.next();
        setState('backingOff');
        log.debug('informer failure; backing off', { err, retryInMs: delay, resourceVersion: rv });
        emit({ type: 'failure', err, retryInMs: delay });
        try {
          await clock.sleep(delay, signal);
        } catch {
          break;
        }
      }
    }
    setState('stopped');
  };

  const scheduleResync = (signal: AbortSignal): void => {
    if (resyncMs <= 0 || signal.aborted) return;
    setTimeoutUntilAborted(clock, resyncMs, signal, () => {
      if (synced) for (const obj of [...cache.values()]) deliver({ type: 'update', oldObj: obj, obj });
      scheduleResync(signal);
    });
  };

  const lister: Lister<T> = {
    get(name, namespace) {
      return cache.get(namespace ? `${namespace}/${name}` : name);
    },
    size: () => cache.size,
    count: (opts = {}) => cache.count(opts.namespace, opts.selector),
    list(opts = {}) {
      // Same objects, in the same (cache insertion) order, as checking every cached object.
      return cache.select(opts.namespace, opts.labelSelector ? parseLabelSelectorCached(opts.labelSelector) : undefined);
    },
  };

  return {
    lister,
    addHandlers(h) {
      handlers.push(h);
      // A late handler sees the current content as adds, like client-go's shared informers.
      if (h.onAdd) for (const obj of [...cache.values()]) deliverTo(h, obj);
    },
    start(signal) {
      if (started) return;
      started = true;
      scheduleResync(signal);
      void run(signal).catch((err: unknown) => log.error('informer loop crashed', { err }));
    },
    hasSynced: () => synced,
    waitForSync(signal) {
      if (synced) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        const onAbort = (): void => reject(signal?.reason);
        syncWaiters.push(() => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        });
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    },
    state: () => current,
  };

  function deliverTo(h: InformerHandlers<T>, obj: T): void {
    try {
      h.onAdd?.(obj);
    } catch (err) {
      log.warn('informer handler threw', { err });
    }
  }
}
