// What everything thrown becomes before it is logged, wrapped or reported, and how several errors are
// reported as one. JavaScript lets anything be thrown; past this module only Errors travel.

/** Anything thrown as an Error: Errors as they are, other values wrapped (kept as the cause). */
export function toError(v: unknown): Error {
  if (v instanceof Error) return v;
  return new Error(typeof v === 'string' ? v : `non-Error thrown: ${safeString(v)}`, { cause: v });
}

/** The message of anything thrown. */
export function errorMessage(err: unknown): string {
  return toError(err).message;
}

function safeString(v: unknown): string {
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

/**
 * How an aggregate reads, after the two OCM uses:
 * - `inline`: apimachinery's utilerrors.NewAggregate (the agent): distinct messages in order,
 *   `[a, b]` when there are several;
 * - `lines`: library-go's NewMultiLineAggregate (the hub's conditions): messages sorted, one a line.
 */
export type AggregateFormat = 'inline' | 'lines';

export function aggregateMessage(errors: readonly Error[], format: AggregateFormat = 'inline'): string {
  const messages = errors.map((e) => e.message);
  if (format === 'lines') return messages.sort().join('\n');
  const distinct = [...new Set(messages)];
  return distinct.length === 1 ? distinct[0]! : `[${distinct.join(', ')}]`;
}

/** None → undefined, one → itself, several → an AggregateError holding them all. */
export function aggregate(errors: readonly Error[], format: AggregateFormat = 'inline'): Error | undefined {
  if (errors.length === 0) return undefined;
  if (errors.length === 1) return errors[0];
  return new AggregateError(errors, aggregateMessage(errors, format));
}
