// Structured JSON-lines logger. Libraries take a Logger; only the CLI decides where lines go.
// Never pass secret material (keys, tokens, certificates' private parts) as a field.

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

const order: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface LoggerOptions {
  level?: LogLevel;
  /** Where a formatted line goes; defaults to stderr. */
  write?: (line: string) => void;
  fields?: LogFields;
  now?: () => Date;
}

function errorFields(v: unknown): unknown {
  if (v instanceof Error) {
    const e = v as Error & { code?: unknown; reason?: unknown };
    return { message: e.message, ...(e.code !== undefined ? { code: e.code } : {}), ...(e.reason !== undefined ? { reason: e.reason } : {}) };
  }
  return v;
}

export function createLogger(opts: LoggerOptions = {}): Logger {
  const min = order[opts.level ?? 'info'];
  const write = opts.write ?? ((line: string) => process.stderr.write(line + '\n'));
  const now = opts.now ?? (() => new Date());
  const base = opts.fields ?? {};
  const emit = (level: LogLevel, msg: string, fields?: LogFields): void => {
    if (order[level] < min) return;
    const rec: LogFields = { time: now().toISOString(), level, msg, ...base };
    if (fields) for (const [k, v] of Object.entries(fields)) rec[k] = k === 'err' ? errorFields(v) : v;
    write(JSON.stringify(rec));
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (fields) => createLogger({ ...opts, fields: { ...base, ...fields } }),
  };
}

/** A logger that drops everything (tests, benchmarks). */
export function nullLogger(): Logger {
  const l: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => l };
  return l;
}
