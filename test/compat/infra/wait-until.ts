// Polls until a condition holds, for processes the suite starts: a predicate that throws counts as
// "not yet" unless the error is fatal (a child that exited), and the last error is in the timeout.
export class FatalWaitError extends Error {}

export async function waitUntil<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined | false | null>, intervalMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined && v !== false && v !== null) return v;
    } catch (err) {
      if (err instanceof FatalWaitError) throw err;
      last = err;
    }
    if (Date.now() > deadline) {
      const why = last instanceof Error ? `: ${last.message}` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${why}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
