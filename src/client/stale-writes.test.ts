import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiStatusError } from './errors.js';
import { conflictStatus, createStaleWriteGuard, type ObjectRef } from './stale-writes.js';

const ref = (name: string): ObjectRef => ({ path: `/apis/cluster.open-cluster-management.io/v1/managedclusters/${name}`, name, group: 'cluster.open-cluster-management.io', resource: 'managedclusters' });

/** A fake server object: a write guarded by a version other than the current one gets a 409. */
function fakeObject(name: string) {
  let rv = 1;
  const sent: string[] = [];
  return {
    sent,
    write: (precondition: string | undefined, label: string, changes = true) => async (): Promise<{ metadata: { resourceVersion: string } }> => {
      sent.push(label);
      await new Promise((r) => setImmediate(r));
      if (precondition !== undefined && precondition !== String(rv)) throw new ApiStatusError(conflictStatus(ref(name)));
      if (changes) rv++;
      return { metadata: { resourceVersion: String(rv) } };
    },
  };
}

test('writes to one object guarded by a replaced version fail without being sent, with the server\'s 409', async () => {
  const guard = createStaleWriteGuard();
  const obj = fakeObject('a');
  // Three controllers react to version 1 at once; an unguarded write comes along.
  const results = await Promise.allSettled([
    guard.run(ref('a'), '1', obj.write('1', 'finalizer')),
    guard.run(ref('a'), '1', obj.write('1', 'gc')),
    guard.run(ref('a'), undefined, obj.write(undefined, 'accept')),
    guard.run(ref('a'), '1', obj.write('1', 'taint')),
  ]);
  assert.deepEqual(obj.sent, ['finalizer', 'accept']);
  assert.equal(results[0].status, 'fulfilled');
  assert.equal(results[2].status, 'fulfilled');
  for (const i of [1, 3]) {
    const r = results[i]!;
    assert.equal(r.status, 'rejected');
    const err = (r as PromiseRejectedResult).reason as ApiStatusError;
    assert.ok(err instanceof ApiStatusError);
    assert.equal(err.code, 409);
    assert.equal(err.reason, 'Conflict');
    assert.equal(err.message, 'Operation cannot be fulfilled on managedclusters.cluster.open-cluster-management.io "a": the object has been modified; please apply your changes to the latest version and try again');
  }
  // The current version (3 after two writes) still goes through.
  assert.equal((await guard.run(ref('a'), '3', obj.write('3', 'fresh'))).metadata.resourceVersion, '4');
});

test('a version the server refused as stale is refused locally afterwards', async () => {
  const guard = createStaleWriteGuard();
  const obj = fakeObject('b');
  await guard.run(ref('b'), undefined, obj.write(undefined, 'other writer'));
  await assert.rejects(guard.run(ref('b'), '1', obj.write('1', 'stale 1')), (e: unknown) => e instanceof ApiStatusError && e.code === 409);
  await assert.rejects(guard.run(ref('b'), '1', obj.write('1', 'stale 2')), (e: unknown) => e instanceof ApiStatusError && e.code === 409);
  assert.deepEqual(obj.sent, ['other writer', 'stale 1']);
});

test('other errors teach nothing, and other objects are independent', async () => {
  const guard = createStaleWriteGuard();
  const boom = new ApiStatusError({ apiVersion: 'v1', kind: 'Status', metadata: {}, status: 'Failure', code: 500, reason: 'InternalError', message: 'boom' });
  await assert.rejects(guard.run(ref('c'), '7', async () => Promise.reject(boom)), (e: unknown) => e === boom);
  assert.equal(await guard.run(ref('c'), '7', async () => 'sent again'), 'sent again');
  const other = fakeObject('d');
  await guard.run(ref('c'), '8', async () => 'ok');
  assert.equal((await guard.run(ref('d'), '1', other.write('1', 'd'))).metadata.resourceVersion, '2');
});

test('a failing write does not block the next one', async () => {
  const guard = createStaleWriteGuard();
  const first = guard.run(ref('e'), undefined, async () => Promise.reject(new Error('network')));
  const second = guard.run(ref('e'), undefined, async () => 'second');
  await assert.rejects(first, /network/);
  assert.equal(await second, 'second');
});

test('a write that changed nothing keeps its version usable (the server answers the same resourceVersion)', async () => {
  const guard = createStaleWriteGuard();
  const obj = fakeObject('f');
  await guard.run(ref('f'), '1', obj.write('1', 'no-op', false));
  assert.equal((await guard.run(ref('f'), '1', obj.write('1', 'real'))).metadata.resourceVersion, '2');
  assert.deepEqual(obj.sent, ['no-op', 'real']);
});

test('answers are not kept for a client that never asks for the newest copy', async () => {
  const guard = createStaleWriteGuard();
  const obj = fakeObject('a');
  await guard.run(ref('a'), undefined, obj.write(undefined, 'accept'));
  await guard.run(ref('a'), undefined, obj.write(undefined, 'taint'));
  const cached = { metadata: { resourceVersion: '2' } };
  assert.equal(guard.newest(ref('a').path, cached), cached);
});

test('newest hands out the last answer for a copy whose version a write replaced, and the copy itself otherwise', async () => {
  const guard = createStaleWriteGuard();
  const obj = fakeObject('a');
  const path = ref('a').path;
  const cached = { metadata: { resourceVersion: '1' } };
  // Nothing written yet: the cached copy is the newest known (and answers are kept from now on).
  assert.equal(guard.newest(path, cached), cached);
  const answer = await guard.run(ref('a'), '1', obj.write('1', 'finalizer'));
  assert.deepEqual(guard.newest(path, cached), { metadata: { resourceVersion: '2' } });
  // A copy of the answer: the writer may change its own object afterwards.
  answer.metadata.resourceVersion = 'changed by the writer';
  assert.deepEqual(guard.newest(path, cached), { metadata: { resourceVersion: '2' } });
  // The answer's own version, and versions this client never replaced, are taken as they are.
  const current = { metadata: { resourceVersion: '2' } };
  assert.equal(guard.newest(path, current), current);
  const unknown = { metadata: { resourceVersion: '7' } };
  assert.equal(guard.newest(path, unknown), unknown);
  assert.equal(guard.newest(ref('b').path, cached), cached);
});

test('an unguarded write replaces the version the previous answer carried', async () => {
  const guard = createStaleWriteGuard();
  const obj = fakeObject('a');
  guard.newest(ref('a').path, { metadata: {} });
  await guard.run(ref('a'), undefined, obj.write(undefined, 'accept'));
  await guard.run(ref('a'), undefined, obj.write(undefined, 'taint'));
  assert.deepEqual(guard.newest(ref('a').path, { metadata: { resourceVersion: '2' } }), { metadata: { resourceVersion: '3' } });
  // The previous answer's version is no longer usable as a precondition either.
  await assert.rejects(guard.run(ref('a'), '2', obj.write('2', 'gc')), (err: unknown) => err instanceof ApiStatusError && err.code === 409);
  assert.deepEqual(obj.sent, ['accept', 'taint']);
});
