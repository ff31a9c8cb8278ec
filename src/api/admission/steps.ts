// Admission rules that wait for answers (an authorization check, a namespace lookup) are written
// once, as generators, and run two ways: synchronously inside the embedded API server, whose write
// path does not await and whose answers are plain values, and asynchronously in the webhook server,
// whose answers come over the network as promises. A rule waits with `yield* wait(answer)`.

/** A rule in progress: it yields what it waits for and receives the settled value back. */
export type Steps<T> = Generator<unknown, T, unknown>;

/** Waits for `answer` (a plain value or a promise) inside a rule; a rejection is thrown at this point. */
export function* wait<T>(answer: T | PromiseLike<T>): Steps<T> {
  return (yield answer) as T;
}

const isThenable = (v: unknown): v is PromiseLike<unknown> =>
  (typeof v === 'object' || typeof v === 'function') && v !== null && typeof (v as { then?: unknown }).then === 'function';

/** Runs a rule whose answers are all plain values; a promise among them is a wiring mistake and throws. */
export function runSync<T>(steps: Steps<T>): T {
  let r = steps.next();
  while (!r.done) {
    if (isThenable(r.value)) {
      steps.return(undefined as T);
      throw new TypeError('an admission rule was given an asynchronous answer where only synchronous ones can be awaited');
    }
    r = steps.next(r.value);
  }
  return r.value;
}

/** Runs a rule, awaiting each answer in turn; a rejected answer is thrown into the rule where it waited. */
export async function runAsync<T>(steps: Steps<T>): Promise<T> {
  let r = steps.next();
  while (!r.done) {
    let settled: { ok: true; value: unknown } | { ok: false; error: unknown };
    try {
      settled = { ok: true, value: await r.value };
    } catch (error) {
      settled = { ok: false, error };
    }
    r = settled.ok ? steps.next(settled.value) : steps.throw(settled.error);
  }
  return r.value;
}
