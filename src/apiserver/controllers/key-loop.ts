// A small level-based loop for the in-process controllers: store watch → key set → reconcile one
// key at a time; a reconcile may ask to run again later; failures retry after a delay.

import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import type { Store, StoreEvent } from '../storage/types.js';

export interface KeyLoopOptions {
  name: string;
  store: Store;
  /** Store prefix watched; each event enqueues keyOf(storeKey). */
  prefix: string;
  keyOf(storeKey: string): string | undefined;
  /** When given, replaces keyOf: every key one event concerns (it may update the caller's indexes first). */
  keysOfEvent?(ev: StoreEvent): Iterable<string>;
  /** Returns a delay to run the key again, or undefined when done. Throws → retry after retryMs. */
  reconcile(key: string): number | undefined;
  /** Keys to reconcile at start (synchronously, before start() returns). */
  initialKeys(): string[];
  retryMs: number;
  /** Yield to the event loop once a turn has spent this long reconciling (default: never). */
  turnBudgetMs?: number;
  clock: Clock;
  log: Logger;
  signal: AbortSignal;
}

export interface KeyLoop {
  enqueue(key: string): void;
}

export function startKeyLoop(o: KeyLoopOptions): KeyLoop {
  let pending = new Set<string>();
  const timers = new Map<string, { cancel(): void }>();
  let scheduled = false;
  const log = o.log.child({ controller: o.name });

  const runOne = (key: string): void => {
    let again: number | undefined;
    try {
      again = o.reconcile(key);
    } catch (err) {
      log.warn('reconcile failed; retrying', { key, err });
      again = o.retryMs;
    }
    if (again !== undefined && !o.signal.aborted) {
      timers.get(key)?.cancel();
      timers.set(key, o.clock.setTimeout(() => {
        timers.delete(key);
        enqueue(key);
      }, again));
    }
  };

  const drain = (): void => {
    scheduled = false;
    if (o.signal.aborted) return;
    const keys = [...pending];
    pending.clear();
    const started = performance.now();
    for (let i = 0; i < keys.length; i++) {
      runOne(keys[i] as string);
      if (o.turnBudgetMs !== undefined && i + 1 < keys.length && performance.now() - started >= o.turnBudgetMs) {
        // The rest go first next turn, so that a burst (an owner with many dependents) never blocks
        // requests for long.
        pending = new Set([...keys.slice(i + 1), ...pending]);
        scheduled = true;
        setImmediate(drain);
        return;
      }
    }
  };

  const enqueue = (key: string): void => {
    if (o.signal.aborted) return;
    pending.add(key);
    if (!scheduled) {
      scheduled = true;
      setImmediate(drain);
    }
  };

  for (const k of o.initialKeys()) runOne(k);
  const sub = o.store.watch(o.prefix, {
    fromRevision: o.store.currentRevision(),
    onEvent: (ev) => {
      if (o.keysOfEvent) {
        for (const k of o.keysOfEvent(ev)) enqueue(k);
        return;
      }
      const k = o.keyOf(ev.key);
      if (k !== undefined) enqueue(k);
    },
    onClose: (reason) => {
      if (!o.signal.aborted) log.error('controller watch closed', { reason });
    },
  });
  o.signal.addEventListener('abort', () => {
    sub.close();
    for (const t of timers.values()) t.cancel();
    timers.clear();
  }, { once: true });
  return { enqueue };
}

/** Last path segment of a store key (the object name). */
export function nameOfKey(key: string): string {
  return key.slice(key.lastIndexOf('/') + 1);
}
