// Go-style durations on the command line (`90s`, `5m`, `1h30m`, `500ms`, `8760h`); a bare number is seconds.
import { CliUsageError } from './usage-error.js';

const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Returns milliseconds, or undefined when the text is not a duration. */
export function parseDuration(text: string): number | undefined {
  const t = text.trim();
  if (/^\d+(\.\d+)?$/.test(t)) return Number(t) * 1000;
  if (t === '0') return 0;
  const re = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/gy;
  let total = 0;
  let consumed = 0;
  for (let m = re.exec(t); m; m = re.exec(t)) {
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
    consumed = re.lastIndex;
  }
  return consumed === t.length && consumed > 0 ? total : undefined;
}

export function parseDurationFlag(flag: string, text: string): number {
  const ms = parseDuration(text);
  if (ms === undefined || ms < 0) throw new CliUsageError(`invalid value "${text}" for ${flag}: expected a duration such as 30s, 5m or 1h`);
  return ms;
}
