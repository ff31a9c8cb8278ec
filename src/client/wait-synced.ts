// The one start-up gate of every controller: wait until the informers it reads have loaded their
// first list. A stop (the caller's signal) is a normal outcome, not an error; the optional deadline
// runs on the injected clock, so tests move it with a manual clock instead of waiting it out.

import { setMaxListeners } from 'node:events';
import { realClock, type Clock } from '../util/clock.js';
import { toError } from '../util/errors.js';

/** Anything that can say when its cache is loaded: an informer or an informer factory. */
export interface Syncable {
  waitForSync(signal?: AbortSignal): Promise<void>;
}

export interface CacheSyncOptions {
  signal: AbortSignal;
  clock?: Clock;
  /** Give up after this long; 0 or absent waits until synced or stopped. */
  timeoutMs?: number;
  /** Names the caches in the timeout error: "<what> caches not synced within N ms". */
  what: string;
}

const WAIT_OVER = new Error('the wait for the caches is over');

/** Resolves true once every cache has synced, false when the signal aborted first; throws on timeout. */
export async function waitForCacheSync(caches: readonly Syncable[], o: CacheSyncOptions): Promise<boolean> {
  if (o.signal.aborted) return false;
  if (caches.length === 0) return true;
  const ac = new AbortController();
  // Every informer (a factory holds many) waits on this one short-lived signal, aborted below in
  // every case: many listeners here are expected, not a leak.
  setMaxListeners(0, ac.signal);
  const timeoutMs = o.timeoutMs ?? 0;
  let timedOut = false;
  const stopped = new Promise<never>((_resolve, reject) => ac.signal.addEventListener('abort', () => reject(toError(ac.signal.reason)), { once: true }));
  stopped.catch(() => {}); // settled through the race below, or not at all
  const onAbort = (): void => ac.abort(o.signal.reason);
  o.signal.addEventListener('abort', onAbort, { once: true });
  const timer =
    timeoutMs > 0
      ? (o.clock ?? realClock).setTimeout(() => {
          timedOut = true;
          ac.abort(new Error(`${o.what} caches not synced within ${timeoutMs} ms`));
        }, timeoutMs)
      : undefined;
  try {
    await Promise.race([Promise.all(caches.map((c) => c.waitForSync(ac.signal))), stopped]);
    return true;
  } catch (err) {
    if (timedOut) throw toError(ac.signal.reason);
    if (o.signal.aborted) return false;
    throw err;
  } finally {
    timer?.cancel();
    o.signal.removeEventListener('abort', onAbort);
    // Releases the informers' waiters; a reason given saves the DOMException (and its stack) that a
    // bare abort() builds on every wait.
    if (!ac.signal.aborted) ac.abort(WAIT_OVER);
  }
}
