// Error aggregation and the "requeue" sentinel shared by hub controllers (hub-controller.md §2.8).

/** Returned (thrown) by a step that wants its key requeued after a delay without counting as a failure. */
export class RequeueError extends Error {
  readonly afterMs: number;
  constructor(message: string, afterMs: number) {
    super(message);
    this.name = 'RequeueError';
    this.afterMs = afterMs;
  }
}

/** Messages sorted lexicographically and joined with a newline, like the reference aggregate. */
export function aggregateMessage(errors: readonly Error[]): string {
  return errors
    .map((e) => e.message)
    .sort()
    .join('\n');
}

/** One error for many (undefined for none); an AggregateError whose message is sorted and joined. */
export function aggregate(errors: readonly Error[]): Error | undefined {
  if (errors.length === 0) return undefined;
  if (errors.length === 1) return errors[0];
  return new AggregateError(errors, aggregateMessage(errors));
}

/** The smallest requeue delay among the errors when any is a requeue sentinel. */
export function requeueOf(errors: readonly Error[]): number | undefined {
  let best: number | undefined;
  for (const e of errors) {
    if (e instanceof RequeueError && (best === undefined || e.afterMs < best)) best = e.afterMs;
  }
  return best;
}

export function errorOf(v: unknown): Error {
  return v instanceof Error ? v : new Error(String(v));
}
