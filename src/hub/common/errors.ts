// The "requeue" sentinel of hub controllers: a step that wants its key run again after a delay,
// without that counting as a failure.

/** Returned (thrown) by a step that wants its key requeued after a delay without counting as a failure. */
export class RequeueError extends Error {
  readonly afterMs: number;
  constructor(message: string, afterMs: number) {
    super(message);
    this.name = 'RequeueError';
    this.afterMs = afterMs;
  }
}

/** The smallest requeue delay among the errors when any is a requeue sentinel. */
export function requeueOf(errors: readonly Error[]): number | undefined {
  let best: number | undefined;
  for (const e of errors) {
    if (e instanceof RequeueError && (best === undefined || e.afterMs < best)) best = e.afterMs;
  }
  return best;
}
