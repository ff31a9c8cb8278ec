// Per-key retry delays with client-go's default semantics: the larger of a per-key exponential
// delay (base doubling to max) and an overall token bucket (qps, burst).

export interface RateLimiter {
  /** Delay before `key` may be retried; counts one more failure for it. */
  when(key: string): number;
  /** Clears the failure count of `key`. */
  forget(key: string): void;
  numRequeues(key: string): number;
}

export function itemExponentialRateLimiter(opts: { baseMs: number; maxMs: number }): RateLimiter {
  const failures = new Map<string, number>();
  return {
    when(key) {
      const n = failures.get(key) ?? 0;
      failures.set(key, n + 1);
      const d = opts.baseMs * 2 ** n;
      return !Number.isFinite(d) || d > opts.maxMs ? opts.maxMs : d;
    },
    forget(key) {
      failures.delete(key);
    },
    numRequeues(key) {
      return failures.get(key) ?? 0;
    },
  };
}

/** Token bucket: `burst` tokens, refilled at `qps`; each when() reserves one token. */
export function bucketRateLimiter(opts: { qps: number; burst: number; now: () => number }): RateLimiter {
  let tokens = opts.burst;
  let last = opts.now();
  return {
    when() {
      const now = opts.now();
      tokens = Math.min(opts.burst, tokens + ((now - last) * opts.qps) / 1000);
      last = now;
      tokens -= 1;
      return tokens >= 0 ? 0 : Math.ceil((-tokens * 1000) / opts.qps);
    },
    forget() {},
    numRequeues() {
      return 0;
    },
  };
}

/** The larger delay of all limiters; numRequeues is the largest count. */
function maxOfRateLimiter(...limiters: RateLimiter[]): RateLimiter {
  return {
    when(key) {
      let d = 0;
      for (const l of limiters) d = Math.max(d, l.when(key));
      return d;
    },
    forget(key) {
      for (const l of limiters) l.forget(key);
    },
    numRequeues(key) {
      let n = 0;
      for (const l of limiters) n = Math.max(n, l.numRequeues(key));
      return n;
    },
  };
}

/** client-go's DefaultControllerRateLimiter: max(5 ms → 1000 s per key, 10 qps / burst 100). */
export function defaultControllerRateLimiter(opts: { now: () => number; baseMs?: number; maxMs?: number; qps?: number; burst?: number }): RateLimiter {
  return maxOfRateLimiter(
    itemExponentialRateLimiter({ baseMs: opts.baseMs ?? 5, maxMs: opts.maxMs ?? 1_000_000 }),
    bucketRateLimiter({ qps: opts.qps ?? 10, burst: opts.burst ?? 100, now: opts.now }),
  );
}
