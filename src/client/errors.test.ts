import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Status } from '../api/meta.js';
import { ApiStatusError, isAlreadyExists, isConflict, isForbidden, isGone, isNotFound, isUnauthorized, NetworkError, retryDecision, statusFromCode, TerminalError, type RetryDecision } from './errors.js';

function apiErr(code: number, reason?: string, retryAfterSeconds?: number): ApiStatusError {
  const s: Status = { ...statusFromCode(code, `m${code}`), ...(reason ? { reason } : {}) };
  return new ApiStatusError(s, retryAfterSeconds !== undefined ? { retryAfterSeconds } : {});
}

test('should decide retries from the error (table)', () => {
  const cases: Array<{ name: string; input: unknown; expected: RetryDecision }> = [
    { name: '409 conflict → conflict', input: apiErr(409, 'Conflict'), expected: { kind: 'conflict' } },
    { name: '409 already exists → conflict', input: apiErr(409, 'AlreadyExists'), expected: { kind: 'conflict' } },
    { name: '429 with Retry-After → after', input: apiErr(429, undefined, 3), expected: { kind: 'after', delayMs: 3000 } },
    { name: '429 without Retry-After → backoff', input: apiErr(429), expected: { kind: 'backoff' } },
    { name: '500 → backoff', input: apiErr(500), expected: { kind: 'backoff' } },
    { name: '503 → backoff', input: apiErr(503), expected: { kind: 'backoff' } },
    { name: '504 → backoff', input: apiErr(504, undefined, 1), expected: { kind: 'backoff' } },
    { name: 'network → backoff', input: new NetworkError('ECONNREFUSED'), expected: { kind: 'backoff' } },
    { name: 'plain Error → backoff', input: new Error('x'), expected: { kind: 'backoff' } },
    { name: '400 → terminal', input: apiErr(400), expected: { kind: 'terminal' } },
    { name: '403 → terminal', input: apiErr(403), expected: { kind: 'terminal' } },
    { name: '404 → terminal', input: apiErr(404), expected: { kind: 'terminal' } },
    { name: '422 → terminal', input: apiErr(422), expected: { kind: 'terminal' } },
    { name: 'TerminalError → terminal', input: new TerminalError('no'), expected: { kind: 'terminal' } },
  ];
  for (const c of cases) assert.deepEqual(retryDecision(c.input), c.expected, c.name);
});

test('should expose code, reason, status and message of the Status', () => {
  const status: Status = { apiVersion: 'v1', kind: 'Status', metadata: {}, status: 'Failure', message: 'configmaps "foo" not found', reason: 'NotFound', details: { name: 'foo', kind: 'configmaps' }, code: 404 };
  const e = new ApiStatusError(status);
  assert.equal(e.message, 'configmaps "foo" not found');
  assert.equal(e.code, 404);
  assert.equal(e.reason, 'NotFound');
  assert.deepEqual(e.status, status);
  assert.ok(e instanceof Error);
  const timeout = new ApiStatusError({ ...statusFromCode(504, 'Timeout'), details: { retryAfterSeconds: 1 } });
  assert.equal(timeout.retryAfterSeconds, 1);
});

test('should classify errors with the is* helpers', () => {
  assert.ok(isNotFound(apiErr(404)));
  assert.ok(isAlreadyExists(apiErr(409, 'AlreadyExists')));
  assert.ok(!isConflict(apiErr(409, 'AlreadyExists')));
  assert.ok(isConflict(apiErr(409, 'Conflict')));
  assert.ok(isForbidden(apiErr(403)));
  assert.ok(isUnauthorized(apiErr(401)));
  assert.ok(isGone(apiErr(410, 'Expired')));
  assert.ok(!isNotFound(new Error('404')));
  assert.ok(!isGone(undefined));
});
