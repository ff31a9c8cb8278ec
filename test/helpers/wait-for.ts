// Polls a predicate until it holds (returns a truthy value) or the deadline passes.

export interface WaitForOptions {
  /** Poll interval (default 10 ms). */
  intervalMs?: number;
  /** Text added to the timeout error. */
  message?: string;
}

export async function waitFor<T>(
  predicate: () => T | Promise<T>,
  timeoutMs = 5000,
  opts: WaitForOptions = {},
): Promise<NonNullable<T>> {
  const interval = opts.intervalMs ?? 10;
  const deadline = Date.now() + timeoutMs;
  let lastErr: unknown;
  for (;;) {
    try {
      const v = await predicate();
      if (v) return v as NonNullable<T>;
    } catch (err) {
      lastErr = err;
    }
    if (Date.now() >= deadline) {
      const why = lastErr instanceof Error ? ` (last error: ${lastErr.message})` : '';
      throw new Error(`waitFor: timed out after ${timeoutMs} ms${opts.message ? `: ${opts.message}` : ''}${why}`);
    }
    await new Promise((r) => setTimeout(r, interval));
  }
}
