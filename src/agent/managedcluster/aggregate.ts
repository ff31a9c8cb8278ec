// Error aggregation like apimachinery's utilerrors.NewAggregate: none → undefined, one → itself,
// several → an AggregateError whose message is "[m1, m2]".

export function aggregate(errors: readonly Error[]): Error | undefined {
  if (errors.length === 0) return undefined;
  if (errors.length === 1) return errors[0];
  return new AggregateError(errors, `[${errors.map((e) => e.message).join(', ')}]`);
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
