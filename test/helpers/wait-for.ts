// The one poll-until helper of the test suite: calls a predicate until it returns a truthy value,
// or throws once the deadline has passed. A predicate that throws counts as "not yet" (a server
// still starting, an object not created yet); its last error goes into the timeout message.
//
// For its first 20 ms it polls on every turn of the event loop, so a unit test waiting for in-memory
// work (a queue, a fake client, a manual clock's timers) sees it as soon as it happened; after that
// the gaps double up to `intervalMs`, so a long wait on a real server does not spin.

export interface WaitForOptions {
  /** Longest gap between two polls (default 10 ms). */
  intervalMs?: number;
  /** What is awaited, for the timeout error. */
  message?: string;
}

/** How long polls follow each other on every event-loop turn before the gaps start growing. */
const EAGER_MS = 20;

function describe(v: unknown): string {
  if (v instanceof Error) return `last error: ${v.message}`;
  try {
    return `last value: ${JSON.stringify(v) ?? String(v)}`;
  } catch {
    return `last value: ${String(v)}`;
  }
}

export async function waitFor<T>(predicate: () => T | Promise<T>, timeoutMs = 5000, opts: WaitForOptions = {}): Promise<NonNullable<T>> {
  const maxGap = Math.max(0, opts.intervalMs ?? 10);
  const start = Date.now();
  const deadline = start + timeoutMs;
  let last: unknown;
  let backoff = 0;
  for (;;) {
    try {
      const v = await predicate();
      if (v) return v as NonNullable<T>;
      last = v;
    } catch (err) {
      last = err;
    }
    if (Date.now() >= deadline) {
      throw new Error(`waitFor: timed out after ${timeoutMs} ms${opts.message ? ` waiting for ${opts.message}` : ''} (${describe(last)})`);
    }
    const gap = Date.now() - start < EAGER_MS ? 0 : Math.min(maxGap, 2 ** backoff++);
    await new Promise<void>((resolve) => (gap === 0 ? setImmediate(resolve) : setTimeout(resolve, gap)));
  }
}
