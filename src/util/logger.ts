// Structured JSON-lines logger. Libraries take a Logger; only the CLI decides where lines go.
// Never pass secret material (keys, tokens, certificates' private parts) as a field.
//
// Level 'trace' writes everything 'debug' does, one readable line per step instead of JSON:
// a wall-clock time to the microsecond (so lines of several processes on one machine merge into one
// timeline by sorting), the milliseconds since the previous line of this process, and the fields.
// It is meant for seeing where a join or a request spends its time, not for log collection.

import { isoUtc } from './utc-time.js';

export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error';

/** Every level `--log-level` accepts, least severe first. */
const LOG_LEVELS: readonly LogLevel[] = ['trace', 'debug', 'info', 'warn', 'error'];
export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

const order: Record<LogLevel, number> = { trace: 0, debug: 10, info: 20, warn: 30, error: 40 };

export function isLogLevel(v: unknown): v is LogLevel {
  return typeof v === 'string' && (LOG_LEVELS as readonly string[]).includes(v);
}

export interface LoggerOptions {
  level?: LogLevel;
  /** Where a formatted line goes; defaults to stderr. */
  write?: (line: string) => void;
  fields?: LogFields;
  now?: () => Date;
  /** Trace lines: epoch milliseconds with a fraction (default performance.timeOrigin + performance.now()). */
  hrNow?: () => number;
}

function errorFields(v: unknown): unknown {
  if (v instanceof Error) {
    const e = v as Error & { code?: unknown; reason?: unknown };
    return { message: e.message, ...(e.code !== undefined ? { code: e.code } : {}), ...(e.reason !== undefined ? { reason: e.reason } : {}) };
  }
  return v;
}

/** `2026-12-03T16:50:49.123456Z` from epoch milliseconds with a fraction. */
export function microTime(epochMs: number): string {
  const whole = Math.floor(epochMs);
  const micros = Math.floor((epochMs - whole) * 1000);
  return isoUtc(whole).replace('Z', `${String(micros).padStart(3, '0')}Z`);
}

function traceValue(v: unknown): string {
  if (typeof v === 'string') return /^[^\s"=]+$/.test(v) ? v : JSON.stringify(v);
  if (typeof v === 'number' && !Number.isInteger(v)) return String(Math.round(v * 100) / 100);
  return JSON.stringify(v) ?? String(v);
}

/** `<time> +<ms since previous line> <level> <msg> k=v ...`. */
export function formatTraceLine(at: number, sincePrevMs: number, level: Exclude<LogLevel, 'trace'>, msg: string, fields: LogFields): string {
  let line = `${microTime(at)} +${sincePrevMs.toFixed(3).padStart(8)}ms ${level.padEnd(5)} ${msg}`;
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) line += ` ${k}=${traceValue(k === 'err' ? errorFields(v) : v)}`;
  return line;
}

export function createLogger(opts: LoggerOptions = {}): Logger {
  if (opts.level === 'trace') return createTraceLogger(opts, { last: undefined });
  const min = order[opts.level ?? 'info'];
  const write = opts.write ?? ((line: string) => process.stderr.write(line + '\n'));
  const now = opts.now ?? (() => new Date());
  const base = opts.fields ?? {};
  const emit = (level: LogLevel, msg: string, fields?: LogFields): void => {
    if (order[level] < min) return;
    const rec: LogFields = { time: isoUtc(now().getTime()), level, msg, ...base };
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

/** The 'trace' level's logger; `shared.last` is the time of the process's previous line, kept across children. */
function createTraceLogger(opts: LoggerOptions, shared: { last: number | undefined }): Logger {
  const write = opts.write ?? ((line: string) => process.stderr.write(line + '\n'));
  const hrNow = opts.hrNow ?? (() => performance.timeOrigin + performance.now());
  const base = opts.fields ?? {};
  const emit = (level: Exclude<LogLevel, 'trace'>, msg: string, fields?: LogFields): void => {
    const at = hrNow();
    const since = shared.last === undefined ? 0 : at - shared.last;
    shared.last = at;
    write(formatTraceLine(at, since, level, msg, { ...base, ...fields }));
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (fields) => createTraceLogger({ ...opts, fields: { ...base, ...fields } }, shared),
  };
}
