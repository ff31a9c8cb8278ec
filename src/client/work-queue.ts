// Work queue with client-go semantics: a FIFO of keys, a dirty set (needs work) and a processing
// set (being worked on). Adding a queued key is a no-op; a key added while it is processed is
// handed out again only after done(); get() hands each key to one worker at a time. After
// shutDown() adds are ignored and get() drains what is queued, then resolves undefined.

import type { Clock } from '../util/clock.js';
import type { RateLimiter } from './rate-limiter.js';

export interface WorkQueue {
  add(key: string): void;
  addAfter(key: string, delayMs: number): void;
  /** addAfter(key, rateLimiter.when(key)). */
  addRateLimited(key: string): void;
  forget(key: string): void;
  numRequeues(key: string): number;
  /** Next key to process, or undefined once shut down and empty. */
  get(): Promise<string | undefined>;
  done(key: string): void;
  len(): number;
  shutDown(): void;
  /** Shuts down and resolves once no key is being processed. */
  shutDownWithDrain(): Promise<void>;
  isShuttingDown(): boolean;
}

export function createWorkQueue(opts: { clock: Clock; rateLimiter: RateLimiter }): WorkQueue {
  const queue: string[] = [];
  const dirty = new Set<string>();
  const processing = new Set<string>();
  const waiters: Array<(k: string | undefined) => void> = [];
  const drainWaiters: Array<() => void> = [];
  const timers = new Map<string, { at: number; cancel(): void }>();
  let shuttingDown = false;

  const dispatch = (): void => {
    while (waiters.length > 0 && queue.length > 0) {
      const key = queue.shift() as string;
      processing.add(key);
      dirty.delete(key);
      (waiters.shift() as (k: string | undefined) => void)(key);
    }
    if (shuttingDown && queue.length === 0) while (waiters.length > 0) (waiters.shift() as (k: string | undefined) => void)(undefined);
  };

  const add = (key: string): void => {
    if (shuttingDown || dirty.has(key)) return;
    dirty.add(key);
    if (processing.has(key)) return;
    queue.push(key);
    dispatch();
  };

  const self: WorkQueue = {
    add,
    addAfter(key, delayMs) {
      if (shuttingDown) return;
      if (delayMs <= 0) return add(key);
      const at = opts.clock.now() + delayMs;
      const existing = timers.get(key);
      // Keep the earliest pending time for a key (client-go's waitingForQueue does the same).
      if (existing && existing.at <= at) return;
      existing?.cancel();
      const t = opts.clock.setTimeout(() => {
        timers.delete(key);
        add(key);
      }, delayMs);
      timers.set(key, { at, cancel: t.cancel });
    },
    addRateLimited(key) {
      self.addAfter(key, opts.rateLimiter.when(key));
    },
    forget(key) {
      opts.rateLimiter.forget(key);
    },
    numRequeues(key) {
      return opts.rateLimiter.numRequeues(key);
    },
    get() {
      if (queue.length > 0) {
        const key = queue.shift() as string;
        processing.add(key);
        dirty.delete(key);
        return Promise.resolve(key);
      }
      if (shuttingDown) return Promise.resolve(undefined);
      return new Promise((resolve) => waiters.push(resolve));
    },
    done(key) {
      processing.delete(key);
      if (dirty.has(key)) {
        queue.push(key);
        dispatch();
      }
      if (processing.size === 0) while (drainWaiters.length > 0) (drainWaiters.shift() as () => void)();
    },
    len() {
      return queue.length;
    },
    shutDown() {
      shuttingDown = true;
      for (const t of timers.values()) t.cancel();
      timers.clear();
      dispatch();
    },
    shutDownWithDrain() {
      self.shutDown();
      if (processing.size === 0) return Promise.resolve();
      return new Promise((resolve) => drainWaiters.push(resolve));
    },
    isShuttingDown() {
      return shuttingDown;
    },
  };
  return self;
}
