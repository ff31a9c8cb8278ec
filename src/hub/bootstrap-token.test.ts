import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Secret } from '../api/core.js';
import { bootstrapTokenSecret, randomTokenPart, reusableToken } from './bootstrap-token.js';

function stored(s: Secret): Secret {
  const data: Record<string, string> = {};
  for (const [k, v] of Object.entries(s.stringData ?? {})) data[k] = Buffer.from(v).toString('base64');
  const { stringData: _drop, ...rest } = s;
  void _drop;
  return { ...rest, data };
}

const now = Date.parse('2026-01-01T00:00:00Z');
test('token parts match the bootstrap token format', () => {
  assert.match(`${randomTokenPart(6)}.${randomTokenPart(16)}`, /^[a-z0-9]{6}\.[a-z0-9]{16}$/);
});
test('reusableToken: valid, expiring soon, expired, deleting, malformed', () => {
  const s = stored(bootstrapTokenSecret('abcdef', '0123456789abcdef', now + 24 * 3600_000));
  assert.deepEqual(reusableToken(s, now, 3600_000), { token: 'abcdef.0123456789abcdef', expiresAtMs: now + 24 * 3600_000 });
  assert.equal(reusableToken(s, now + 23.5 * 3600_000, 3600_000), undefined);
  assert.equal(reusableToken(s, now + 25 * 3600_000, 0), undefined);
  assert.equal(reusableToken({ ...s, metadata: { ...s.metadata, deletionTimestamp: 'x' } }, now, 0), undefined);
  assert.equal(reusableToken({ ...s, data: { ...s.data, 'token-id': Buffer.from('BAD').toString('base64') } }, now, 0), undefined);
  assert.equal(s.stringData, undefined);
  assert.equal(stored(bootstrapTokenSecret('abcdef', 'x', now)).type, 'bootstrap.kubernetes.io/token');
});
