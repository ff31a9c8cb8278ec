// Controller: workers pull keys from a rate-limited work queue and call reconcile(key, signal).
// One switch decides what follows a run (controller-runtime's reconcileHandler):
//   TerminalError → log, forget, no retry
//   other error → retryDecision: 409 rate-limited (see below), 429 after Retry-After, 5xx/network rate-limited
//     backoff; other 4xx are also retried with backoff (OCM's controllers re-queue every error a
//     sync returns, rate-limited) unless
//     `terminalOnClientErrors` makes them terminal as retryDecision says
//   { requeueAfterMs } → forget the failure count, add after the delay
//   success → forget
// A 409 means the cached object is older than the server's. Retrying at once would read the same
// stale cache and lose again (several hub controllers patching one ManagedCluster used to trade
// 409s this way); the watch event of the newer object re-queues the key as soon as the cache has
// it, and the rate-limited retry (5 ms, doubling) is only the fallback for keys no event re-queues.

import { randomUUID } from 'node:crypto';
import { realClock, setTimeoutUntilAborted } from '../util/clock.js';
import { toError } from '../util/errors.js';
import { retryDecision, TerminalError } from './errors.js';
import { defaultControllerRateLimiter, type RateLimiter } from './rate-limiter.js';
import type { Controller, ControllerOptions, ReconcileResult } from './types.js';
import { waitForCacheSync, type Syncable } from './wait-synced.js';
import { createWorkQueue, type WorkQueue } from './work-queue.js';

export { TerminalError };

/** Failure count from which a retried error is logged at warn instead of debug. */
const WARN_AFTER_REQUEUES = 5;

export interface ControllerRuntimeOptions extends ControllerOptions {
  /** Replaces the default max(per-key exponential, token bucket) limiter. */
  rateLimiter?: RateLimiter;
  /** Source of reconcile ids (default random UUIDs). */
  newReconcileId?: () => string;
  /** Treat 4xx API errors (other than 409/429) as terminal instead of retrying them with backoff. Default false. */
  terminalOnClientErrors?: boolean;
  /** Informers whose caches must sync before workers start (keys enqueued meanwhile wait). */
  waitForSync?: readonly Syncable[];
  /** run() rejects when the caches have not synced within this time; default 0, wait until stopped. */
  syncTimeoutMs?: number;
}

export function createController(options: ControllerRuntimeOptions): Controller {
  if (!options.name) throw new Error('createController: name is required');
  const workers = options.workers ?? 1;
  if (!Number.isInteger(workers) || workers < 1) throw new Error(`createController ${options.name}: workers must be a positive integer`);
  const clock = options.clock ?? realClock;
  const log = options.log.child({ controller: options.name });
  const rateLimiter =
    options.rateLimiter ??
    defaultControllerRateLimiter({
      now: () => clock.now(),
      ...(options.backoffBaseMs !== undefined ? { baseMs: options.backoffBaseMs } : {}),
      ...(options.backoffMaxMs !== undefined ? { maxMs: options.backoffMaxMs } : {}),
    });
  const newId = options.newReconcileId ?? randomUUID;
  const queue: WorkQueue = createWorkQueue({ clock, rateLimiter });
  let running = false;

  const handleOutcome = (key: string, result: ReconcileResult | void, err: Error | undefined): { level: 'debug' | 'warn' | 'error'; retryInMs?: number } => {
    if (err === undefined) {
      queue.forget(key);
      const after = result?.requeueAfterMs;
      if (after !== undefined && after > 0) {
        queue.addAfter(key, after);
        return { level: 'debug', retryInMs: after };
      }
      return { level: 'debug' };
    }
    let decision = err instanceof TerminalError ? { kind: 'terminal' as const } : retryDecision(err);
    if (decision.kind === 'terminal' && !(err instanceof TerminalError) && !options.terminalOnClientErrors) decision = { kind: 'backoff' };
    switch (decision.kind) {
      case 'terminal':
        queue.forget(key);
        return { level: 'error' };
      case 'after': {
        rateLimiter.when(key);
        queue.addAfter(key, decision.delayMs);
        return { level: rateLimiter.numRequeues(key) >= WARN_AFTER_REQUEUES ? 'warn' : 'debug', retryInMs: decision.delayMs };
      }
      case 'conflict':
      case 'backoff': {
        const delay = rateLimiter.when(key);
        queue.addAfter(key, delay);
        return { level: rateLimiter.numRequeues(key) >= WARN_AFTER_REQUEUES ? 'warn' : 'debug', retryInMs: delay };
      }
    }
  };

  const processKey = async (key: string, signal: AbortSignal): Promise<void> => {
    const reconcileId = newId();
    const start = clock.now();
    let result: ReconcileResult | void = undefined;
    let err: Error | undefined;
    try {
      result = await options.reconcile(key, signal);
    } catch (e) {
      err = toError(e);
    }
    if (signal.aborted && err !== undefined) {
      // Shutting down: the failure is most likely the abort itself; nothing to retry.
      log.debug('reconcile', { key, reconcileId, durationMs: clock.now() - start, err, aborted: true });
      return;
    }
    const outcome = handleOutcome(key, result, err);
    const fields = { key, reconcileId, durationMs: clock.now() - start, ...(err ? { err } : {}), ...(outcome.retryInMs !== undefined ? { requeueAfterMs: outcome.retryInMs } : {}) };
    log[outcome.level](outcome.level === 'error' ? 'reconcile failed; not retrying' : 'reconcile', fields);
  };

  const worker = async (signal: AbortSignal): Promise<void> => {
    for (;;) {
      const key = await queue.get();
      if (key === undefined) return;
      try {
        if (!signal.aborted) await processKey(key, signal);
      } finally {
        queue.done(key);
      }
    }
  };

  const scheduleResync = (signal: AbortSignal): void => {
    const every = options.resyncMs ?? 0;
    if (every <= 0 || !options.resyncKeys || signal.aborted) return;
    setTimeoutUntilAborted(clock, every, signal, () => {
      enqueueResyncKeys();
      scheduleResync(signal);
    });
  };
  const enqueueResyncKeys = (): void => {
    try {
      for (const k of options.resyncKeys?.() ?? []) queue.add(k);
    } catch (err) {
      log.warn('resyncKeys threw', { err });
    }
  };

  return {
    name: options.name,
    enqueue: (key) => queue.add(key),
    enqueueAfter: (key, delayMs) => queue.addAfter(key, delayMs),
    async run(signal) {
      if (running) throw new Error(`controller ${options.name} is already running`);
      running = true;
      if (signal.aborted) {
        queue.shutDown();
        return;
      }
      signal.addEventListener('abort', () => queue.shutDown(), { once: true });
      let synced: boolean;
      try {
        synced = await waitForCacheSync(options.waitForSync ?? [], { signal, clock, timeoutMs: options.syncTimeoutMs ?? 0, what: `controller ${options.name}` });
      } catch (err) {
        queue.shutDown();
        throw err;
      }
      if (!synced) return;
      // Like library-go's ResyncEvery: the resync keys run once at start, then every resyncMs.
      if (options.resyncKeys) enqueueResyncKeys();
      scheduleResync(signal);
      log.debug('controller started', { workers });
      await Promise.all(Array.from({ length: workers }, () => worker(signal)));
      log.debug('controller stopped');
    },
  };
}
