// Injected time source: controllers never call Date.now() or setTimeout directly.

export interface Clock {
  now(): number;
  /** Resolves after ms, or rejects with the signal's reason when aborted. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  setTimeout(fn: () => void, ms: number): { cancel(): void };
}

/**
 * Milliseconds on a monotonic clock, for durations. Same clock as performance.now(), without the
 * `performance` global, whose first use loads eight of Node's modules (~0.3 MiB of an agent's RSS).
 */
export function monotonicMs(): number {
  const [s, ns] = process.hrtime();
  return s * 1e3 + ns / 1e6;
}

export const realClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const t = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        clearTimeout(t);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms);
    t.unref?.();
    return { cancel: () => clearTimeout(t) };
  },
};

/**
 * Runs `fn` after `ms` unless `signal` aborts first. The abort listener goes away when the timer
 * fires, so a resync loop that re-arms itself on one long-lived signal does not pile up listeners.
 */
export function setTimeoutUntilAborted(clock: Clock, ms: number, signal: AbortSignal, fn: () => void): void {
  if (signal.aborted) return;
  const onAbort = (): void => t.cancel();
  const t = clock.setTimeout(() => {
    signal.removeEventListener('abort', onAbort);
    if (!signal.aborted) fn();
  }, ms);
  signal.addEventListener('abort', onAbort, { once: true });
}
