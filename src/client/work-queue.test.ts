import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createManualClock } from './manual-clock.js';
import { defaultControllerRateLimiter } from './rate-limiter.js';
import { createWorkQueue } from './work-queue.js';

function newQueue() {
  const clock = createManualClock();
  const q = createWorkQueue({ clock, rateLimiter: defaultControllerRateLimiter({ now: () => clock.now() }) });
  return { clock, q };
}

test('should deduplicate keys that are queued', async () => {
  const { q } = newQueue();
  q.add('a');
  q.add('b');
  q.add('a');
  assert.equal(q.len(), 2);
  assert.equal(await q.get(), 'a');
  assert.equal(await q.get(), 'b');
  assert.equal(q.len(), 0);
});

test('should not hand out a key being processed, and run it again after done', async () => {
  const { q } = newQueue();
  q.add('a');
  const k = await q.get();
  assert.equal(k, 'a');
  q.add('a'); // changed while processing
  assert.equal(q.len(), 0, 'not queued while processing');
  q.add('b');
  assert.equal(await q.get(), 'b');
  let second: string | undefined;
  const p = q.get().then((v) => (second = v));
  await Promise.resolve();
  assert.equal(second, undefined, 'a is still processing');
  q.done('a');
  await p;
  assert.equal(second, 'a');
});

test('should wake a waiting worker on add', async () => {
  const { q } = newQueue();
  const p = q.get();
  q.add('x');
  assert.equal(await p, 'x');
});

test('should add after a delay, keeping the earliest pending time', async () => {
  const { q, clock } = newQueue();
  q.addAfter('a', 100);
  q.addAfter('a', 50);
  q.addAfter('a', 500);
  clock.advance(49);
  assert.equal(q.len(), 0);
  clock.advance(1);
  assert.equal(q.len(), 1);
  clock.advance(1000);
  assert.equal(q.len(), 1, 'later timers were replaced or ignored');
});

test('should rate-limit re-adds with exact per-key delays and forget', async () => {
  const { q, clock } = newQueue();
  const delays: number[] = [];
  for (let i = 0; i < 4; i++) {
    const t0 = clock.now();
    q.addRateLimited('k');
    const due = clock.nextDue();
    assert.ok(due !== undefined);
    delays.push(due - t0);
    clock.advance(due - t0);
    assert.equal(await q.get(), 'k');
    q.done('k');
  }
  assert.deepEqual(delays, [5, 10, 20, 40]);
  assert.equal(q.numRequeues('k'), 4);
  q.forget('k');
  assert.equal(q.numRequeues('k'), 0);
});

test('should drain queued keys after shutdown, then return undefined and ignore adds', async () => {
  const { q, clock } = newQueue();
  q.add('a');
  q.add('b');
  q.addAfter('c', 10);
  const waiting = newQueue().q; // an empty queue with a blocked worker
  const blocked = waiting.get();
  waiting.shutDown();
  assert.equal(await blocked, undefined);
  q.shutDown();
  q.add('d');
  clock.advance(100);
  assert.equal(await q.get(), 'a');
  assert.equal(await q.get(), 'b');
  assert.equal(await q.get(), undefined);
  assert.ok(q.isShuttingDown());
});

test('should resolve shutDownWithDrain once processing keys are done', async () => {
  const { q } = newQueue();
  q.add('a');
  const k = await q.get();
  let drained = false;
  const p = q.shutDownWithDrain().then(() => (drained = true));
  await Promise.resolve();
  assert.equal(drained, false);
  q.done(k as string);
  await p;
  assert.equal(drained, true);
});
