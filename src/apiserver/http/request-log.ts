// The server's only request-log module: one line per finished request, 4xx at info, 5xx at error.

import type { Logger } from '../../util/logger.js';

export interface RequestLogEntry {
  requestId: string;
  method: string;
  path: string;
  user?: string;
  /** The authenticated requester when the request ran as an impersonated `user`. */
  impersonator?: string;
  verb?: string;
  code: number;
  reason?: string;
  durationMs: number;
  err?: unknown;
}

export function logRequest(log: Logger, e: RequestLogEntry): void {
  const fields: Record<string, unknown> = {
    requestId: e.requestId, method: e.method, path: e.path, code: e.code, durationMs: Math.round(e.durationMs * 10) / 10,
    ...(e.user ? { user: e.user } : {}), ...(e.impersonator ? { impersonator: e.impersonator } : {}), ...(e.verb ? { verb: e.verb } : {}), ...(e.reason ? { reason: e.reason } : {}),
  };
  if (e.code >= 500) log.error('request failed', { ...fields, ...(e.err !== undefined ? { err: e.err } : {}) });
  else if (e.code >= 400) log.info('request refused', fields);
  else log.debug('request', fields);
}

export function logWatchEnd(log: Logger, e: { requestId: string; path: string; user?: string; events: number; reason: string; durationMs: number }): void {
  log.debug('watch ended', { ...e, durationMs: Math.round(e.durationMs) });
}
