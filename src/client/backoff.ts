// Reconnect backoff for informers: starts at initialMs, doubles up to maxMs, with jitter, and
// starts over once the previous backoff is older than resetAfterMs (a healthy stretch). Pure apart
// from the injected clock and random source.

export interface BackoffOptions {
  /** First delay (default 1000 ms). */
  initialMs?: number;
  /** Cap (default 30 000 ms). */
  maxMs?: number;
  /** Reset to initialMs when the last backoff is older than this (default 120 000 ms, like client-go). */
  resetAfterMs?: number;
  /** Up to this fraction is added at random (default 0.5: delay × [1, 1.5)). */
  jitter?: number;
  now: () => number;
  random?: () => number;
}

export interface Backoff {
  /** The delay to wait before the next attempt. */
  next(): number;
  reset(): void;
}

export function createBackoff(opts: BackoffOptions): Backoff {
  const initial = opts.initialMs ?? 1000;
  const max = opts.maxMs ?? 30_000;
  const resetAfter = opts.resetAfterMs ?? 120_000;
  const jitter = opts.jitter ?? 0.5;
  const random = opts.random ?? Math.random;
  let base = 0;
  let lastAt = -Infinity;
  return {
    next(): number {
      const now = opts.now();
      if (base === 0 || now - lastAt > resetAfter) base = initial;
      else base = Math.min(base * 2, max);
      lastAt = now;
      return Math.min(max, Math.round(base * (1 + jitter * random())));
    },
    reset(): void {
      base = 0;
    },
  };
}
