// Durations on the command line: Go syntax (`90s`, `5m`, `1h30m`, `500ms`, `8760h`), or a bare
// number of seconds.
import { DurationError, parseGoDuration } from '../util/duration.js';
import { CliUsageError } from './usage-error.js';

/** Returns milliseconds, or undefined when the text is not a duration. */
export function parseDuration(text: string): number | undefined {
  const t = text.trim();
  if (/^\d+(\.\d+)?$/.test(t)) return Number(t) * 1000;
  try {
    return parseGoDuration(t);
  } catch (err) {
    if (err instanceof DurationError) return undefined;
    throw err;
  }
}

export function parseDurationFlag(flag: string, text: string): number {
  const ms = parseDuration(text);
  if (ms === undefined || ms < 0) throw new CliUsageError(`invalid value "${text}" for ${flag}: expected a duration such as 30s, 5m or 1h`);
  return ms;
}
