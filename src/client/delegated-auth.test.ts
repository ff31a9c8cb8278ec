import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createManualClock } from './manual-clock.js';
import { createDelegatedAuthorizer } from './delegated-auth.js';
import type { KubeClient } from './types.js';

/** A client answering TokenReview and SubjectAccessReview from tables, counting requests. */
function reviewClient(tokens: Record<string, string>, allowed: Set<string>, fail = { value: false }): KubeClient & { calls: string[] } {
  const calls: string[] = [];
  const c = {
    calls,
    server: 'https://fake',
    resource: () => {
      throw new Error('unused');
    },
    async request(method: string, path: string, body?: unknown) {
      calls.push(path);
      if (fail.value) throw new Error('connection refused');
      const b = body as { spec: { token?: string; user?: string; nonResourceAttributes?: { path: string; verb: string } } };
      if (path.endsWith('/tokenreviews')) {
        const user = tokens[b.spec.token ?? ''];
        return { status: user ? { authenticated: true, user: { username: user, groups: ['g'] } } : { authenticated: false } };
      }
      const a = b.spec.nonResourceAttributes!;
      return { status: { allowed: allowed.has(`${b.spec.user}:${a.verb}:${a.path}`) } };
    },
    probe: () => Promise.reject(new Error('unused')),
    close() {},
  };
  return c as unknown as KubeClient & { calls: string[] };
}

test('should answer 401 without a token or for an unknown one, 403 for a user without the right, 200 with it', async () => {
  const client = reviewClient({ good: 'prometheus', other: 'alice' }, new Set(['prometheus:get:/metrics']));
  const auth = createDelegatedAuthorizer({ client, clock: createManualClock() });
  assert.equal((await auth.check(undefined, '/metrics', 'get')).code, 401);
  assert.equal((await auth.check('Basic abc', '/metrics', 'get')).code, 401);
  assert.equal((await auth.check('Bearer nope', '/metrics', 'get')).code, 401);
  const denied = await auth.check('Bearer other', '/metrics', 'get');
  assert.equal(denied.code, 403);
  assert.match(denied.message, /alice.*\/metrics/);
  assert.deepEqual(await auth.check('Bearer good', '/metrics', 'get'), { code: 200, message: 'ok', user: 'prometheus' });
});

test('should reuse an answer for the cache TTL, then ask again; failed reviews are not cached', async () => {
  const clock = createManualClock();
  const fail = { value: false };
  const client = reviewClient({ good: 'prometheus' }, new Set(['prometheus:get:/metrics']), fail);
  const auth = createDelegatedAuthorizer({ client, clock, cacheTtlMs: 10_000 });
  await auth.check('Bearer good', '/metrics', 'get');
  await auth.check('Bearer good', '/metrics', 'get');
  assert.equal(client.calls.length, 2);
  clock.advance(10_000);
  fail.value = true;
  assert.equal((await auth.check('Bearer good', '/metrics', 'get')).code, 401);
  fail.value = false;
  assert.equal((await auth.check('Bearer good', '/metrics', 'get')).code, 200);
  assert.equal(client.calls.length, 5);
});
