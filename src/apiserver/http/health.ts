// Health endpoints: /healthz, /livez, /readyz with ?verbose and per-check paths.

import type { ServerResponse } from 'node:http';
import { sendText } from './respond.js';

export interface HealthCheck {
  name: string;
  /** Returns undefined when healthy, or a reason (withheld from the response). */
  check(): string | undefined;
}

const HEALTH_ENDPOINTS = ['healthz', 'livez', 'readyz'] as const;

/** Handles `/<endpoint>[/<check>]`; returns false when the path is not a health path. */
export function serveHealth(pathname: string, query: URLSearchParams, res: ServerResponse, checks: Record<string, HealthCheck[]>): boolean {
  const segs = pathname.split('/').filter(Boolean);
  const endpoint = segs[0];
  if (!endpoint || !(HEALTH_ENDPOINTS as readonly string[]).includes(endpoint) || segs.length > 2) return false;
  const all = checks[endpoint] ?? [];
  if (segs.length === 2) {
    const one = all.find((c) => c.name === segs[1]);
    if (!one) return false;
    const failed = one.check();
    sendText(res, failed ? 500 : 200, failed ? `internal server error: ${one.name} check failed\n` : 'ok');
    return true;
  }
  const results = all.map((c) => ({ name: c.name, failed: c.check() }));
  const ok = results.every((r) => !r.failed);
  if (!query.has('verbose') && ok) {
    sendText(res, 200, 'ok');
    return true;
  }
  const lines = results.map((r) => (r.failed ? `[-]${r.name} failed: reason withheld` : `[+]${r.name} ok`));
  lines.push(ok ? `${endpoint} check passed` : `${endpoint} check failed`);
  sendText(res, ok ? 200 : 500, lines.join('\n') + '\n');
  return true;
}
