import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createManualClock } from './manual-clock.js';
import { waitForCacheSync, type Syncable } from './wait-synced.js';

/** A cache that syncs when the test says so and honours the abort signal like an informer. */
function cache(): Syncable & { sync(): void } {
  let done = false;
  const waiters: Array<() => void> = [];
  return {
    sync() {
      done = true;
      for (const w of waiters.splice(0)) w();
    },
    waitForSync: (signal) =>
      new Promise<void>((resolve, reject) => {
        if (done) return resolve();
        if (signal?.aborted) return reject(signal.reason);
        signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
        waiters.push(resolve);
      }),
  };
}

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

test('waitForCacheSync resolves true once every cache has synced', async () => {
  const a = cache();
  const b = cache();
  let result: boolean | undefined;
  const p = waitForCacheSync([a, b], { signal: new AbortController().signal, what: 'test' }).then((r) => (result = r));
  a.sync();
  await tick();
  assert.equal(result, undefined, 'still waiting for b');
  b.sync();
  await p;
  assert.equal(result, true);
  assert.equal(await waitForCacheSync([], { signal: new AbortController().signal, what: 'test' }), true);
});

test('waitForCacheSync resolves false when stopped, even for a cache that ignores the signal', async () => {
  const ac = new AbortController();
  const deaf: Syncable = { waitForSync: () => new Promise<void>(() => {}) };
  const p = waitForCacheSync([cache(), deaf], { signal: ac.signal, what: 'test' });
  ac.abort();
  assert.equal(await p, false);
  assert.equal(await waitForCacheSync([cache()], { signal: AbortSignal.abort(), what: 'test' }), false);
});

test('waitForCacheSync fails after the deadline on the injected clock, and not before', async () => {
  const clock = createManualClock();
  let settled = false;
  const p = waitForCacheSync([cache()], { signal: new AbortController().signal, clock, timeoutMs: 60_000, what: 'hub informer' });
  p.then(() => (settled = true), () => (settled = true));
  clock.advance(59_999);
  await tick();
  assert.equal(settled, false);
  clock.advance(1);
  await assert.rejects(p, { message: 'hub informer caches not synced within 60000 ms' });
  assert.equal(clock.pending(), 0, 'no timer left behind');
});

test('waitForCacheSync passes on a cache failure, and leaves no timer once synced', async () => {
  const clock = createManualClock();
  const broken: Syncable = { waitForSync: () => Promise.reject(new Error('boom')) };
  await assert.rejects(waitForCacheSync([broken], { signal: new AbortController().signal, clock, timeoutMs: 1000, what: 'test' }), /boom/);
  const c = cache();
  c.sync();
  assert.equal(await waitForCacheSync([c], { signal: new AbortController().signal, clock, timeoutMs: 1000, what: 'test' }), true);
  assert.equal(clock.pending(), 0);
});
