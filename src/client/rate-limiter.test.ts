import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bucketRateLimiter, defaultControllerRateLimiter, itemExponentialRateLimiter } from './rate-limiter.js';

test('should double the per-key delay from 5 ms and reset on forget', () => {
  const rl = itemExponentialRateLimiter({ baseMs: 5, maxMs: 1_000_000 });
  assert.deepEqual([1, 2, 3, 4, 5].map(() => rl.when('a')), [5, 10, 20, 40, 80]);
  assert.equal(rl.numRequeues('a'), 5);
  assert.equal(rl.when('b'), 5, 'keys are independent');
  rl.forget('a');
  assert.equal(rl.numRequeues('a'), 0);
  assert.equal(rl.when('a'), 5);
});

test('should cap the per-key delay', () => {
  const rl = itemExponentialRateLimiter({ baseMs: 5, maxMs: 1_000_000 });
  let last = 0;
  for (let i = 0; i < 2000; i++) last = rl.when('k');
  assert.equal(last, 1_000_000);
  const small = itemExponentialRateLimiter({ baseMs: 1, maxMs: 4 });
  assert.deepEqual([1, 2, 3, 4].map(() => small.when('k')), [1, 2, 4, 4]);
});

test('should allow a burst then space requests at the bucket rate', () => {
  let now = 0;
  const rl = bucketRateLimiter({ qps: 10, burst: 100, now: () => now });
  for (let i = 0; i < 100; i++) assert.equal(rl.when(`k${i}`), 0);
  assert.equal(rl.when('x'), 100);
  assert.equal(rl.when('y'), 200);
  now += 1000; // 10 tokens refilled: debt of 2 becomes 8 available
  assert.equal(rl.when('z'), 0);
});

test('should take the larger of the two limiters (table)', () => {
  let now = 0;
  const rl = defaultControllerRateLimiter({ now: () => now });
  const cases = [
    { key: 'a', expected: 5 },
    { key: 'a', expected: 10 },
    { key: 'a', expected: 20 },
    { key: 'b', expected: 5 },
  ];
  for (const c of cases) assert.equal(rl.when(c.key), c.expected, c.key);
  rl.forget('a');
  assert.equal(rl.when('a'), 5);
  for (let i = 0; i < 95; i++) rl.when(`fill${i}`);
  // bucket exhausted (100 used): next costs 100 ms, larger than the per-key 5 ms
  assert.equal(rl.when('c'), 100);
});
