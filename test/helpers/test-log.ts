// Loggers for tests. Silent by default; OCM_TS_TEST_LOG=debug|info|warn|error sends the lines to
// stderr. captureLog() also keeps every line, so a test can count a controller's runs (the
// controller runtime logs one "reconcile" line per run): a test that asserts "nothing happened"
// first waits until the controller has looked N times, rather than sleeping and hoping it did.

import { createLogger, nullLogger, type LogFields, type Logger, type LogLevel } from '../../src/util/logger.js';

/** The level OCM_TS_TEST_LOG asks for, if any. */
export function testLogLevel(): LogLevel | undefined {
  const env = process.env['OCM_TS_TEST_LOG'];
  return env === 'debug' || env === 'info' || env === 'warn' || env === 'error' ? env : undefined;
}

/** A logger that is silent unless OCM_TS_TEST_LOG is set. */
export function testLogger(): Logger {
  const level = testLogLevel();
  return level ? createLogger({ level }) : nullLogger();
}

const LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];

export interface CapturedLog {
  log: Logger;
  /** Every line so far, parsed. */
  readonly lines: readonly LogFields[];
  /** Runs of the named controller so far (for one key when given), failed runs included. */
  reconciles(controller: string, key?: string): number;
}

/** A debug-level logger that keeps its lines (and echoes them to stderr when OCM_TS_TEST_LOG is set). */
export function captureLog(): CapturedLog {
  const lines: LogFields[] = [];
  const echo = testLogLevel();
  const log = createLogger({
    level: 'debug',
    write: (line) => {
      const rec = JSON.parse(line) as LogFields;
      lines.push(rec);
      if (echo && LEVELS.indexOf(rec['level'] as LogLevel) >= LEVELS.indexOf(echo)) process.stderr.write(line + '\n');
    },
  });
  return {
    log,
    lines,
    reconciles: (controller, key) =>
      lines.filter((l) => l['controller'] === controller && typeof l['msg'] === 'string' && l['msg'].startsWith('reconcile') && 'reconcileId' in l && (key === undefined || l['key'] === key)).length,
  };
}
