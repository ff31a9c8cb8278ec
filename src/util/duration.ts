// Go `time.ParseDuration` syntax (`1m`, `30s`, `500ms`, `1h30m`, `1.5s`, `-2s`, `0`) → milliseconds.

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  // micro sign and Greek mu, written as escapes: one non-ASCII character stores the whole module's
  // source in two bytes per character in every process that loads it
  '\u00b5s': 1e-3,
  '\u03bcs': 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

export class DurationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DurationError';
  }
}

/** Parses a Go duration string; throws DurationError with Go's wording on bad input. */
export function parseGoDuration(text: string): number {
  const orig = text;
  let s = text;
  let sign = 1;
  if (s.startsWith('-') || s.startsWith('+')) {
    if (s[0] === '-') sign = -1;
    s = s.slice(1);
  }
  if (s === '0') return 0;
  if (s === '') throw new DurationError(`time: invalid duration ${JSON.stringify(orig)}`);
  let total = 0;
  const re = /^(\d+(?:\.\d*)?|\.\d+)(ns|us|\u00b5s|\u03bcs|ms|s|m|h)/;
  while (s.length > 0) {
    const m = re.exec(s);
    if (!m) {
      const num = /^(\d+(?:\.\d*)?|\.\d+)([^\d.]*)/.exec(s);
      if (num && num[2] === '') throw new DurationError(`time: missing unit in duration ${JSON.stringify(orig)}`);
      if (num) throw new DurationError(`time: unknown unit ${JSON.stringify(num[2])} in duration ${JSON.stringify(orig)}`);
      throw new DurationError(`time: invalid duration ${JSON.stringify(orig)}`);
    }
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
    s = s.slice(m[0].length);
  }
  return sign * total;
}

/** Formats milliseconds as Go's Duration.String() would (`1m0s`, `30s`, `500ms`). */
export function formatGoDuration(ms: number): string {
  if (ms === 0) return '0s';
  const neg = ms < 0;
  let rest = Math.abs(ms);
  let out: string;
  if (rest < 1000) {
    out = `${trimNum(rest)}ms`;
  } else {
    const h = Math.floor(rest / 3_600_000);
    rest -= h * 3_600_000;
    const m = Math.floor(rest / 60_000);
    rest -= m * 60_000;
    const sec = trimNum(rest / 1000);
    out = h > 0 ? `${h}h${m}m${sec}s` : m > 0 ? `${m}m${sec}s` : `${sec}s`;
  }
  return neg ? `-${out}` : out;
}

function trimNum(n: number): string {
  return String(Number(n.toFixed(9)));
}
