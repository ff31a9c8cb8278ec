import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jitteredIntervalMs } from './lease-decision.js';
import { nextRenewDelayMs, retryCapMs, RETRY_BASE_MS } from './renew-schedule.js';

test('renew schedule: after a success, the normal cadence duration × (1 + 0.25 U)', () => {
  for (const u of [0, 0.3, 0.9999]) assert.equal(nextRenewDelayMs(60, { failures: 0 }, u), jitteredIntervalMs(60, u));
});

test('renew schedule: after failures, 1 s doubling up to a quarter of the lease, stretched by up to half', () => {
  const at0 = [1, 2, 3, 4, 5, 6, 7, 20].map((f) => nextRenewDelayMs(60, { failures: f }, 0));
  assert.deepEqual(at0, [1000, 2000, 4000, 8000, 15_000, 15_000, 15_000, 15_000]);
  assert.equal(nextRenewDelayMs(60, { failures: 1 }, 0.5), 1250);
  assert.equal(nextRenewDelayMs(60, { failures: 9 }, 0.5), 18_750);
  assert.ok(nextRenewDelayMs(60, { failures: 1000 }, 0.9999) < 22_500, 'the cap holds for long streaks');
});

test('renew schedule: a retry never comes sooner than the base nor later than the normal cadence', () => {
  for (const lease of [1, 2, 4, 10, 60, 3600]) {
    for (const failures of [1, 2, 5, 50]) {
      for (const u of [0, 0.25, 0.5, 0.9999]) {
        const d = nextRenewDelayMs(lease, { failures }, u);
        assert.ok(d >= RETRY_BASE_MS, `lease ${lease} s, ${failures} failures, U ${u}: ${d} ms`);
        assert.ok(d <= jitteredIntervalMs(lease, u), `lease ${lease} s, ${failures} failures, U ${u}: ${d} ms`);
      }
    }
  }
  // At the cap, a retry comes within 0.375 of a lease (10 s lease: by 3.75 s).
  assert.ok(nextRenewDelayMs(10, { failures: 10 }, 0.9999) <= 3750);
  assert.equal(retryCapMs(1), RETRY_BASE_MS);
  assert.equal(retryCapMs(10), 2500);
});

test('renew schedule: jitter spreads agents that failed together', () => {
  const delays = new Set(Array.from({ length: 100 }, (_, i) => nextRenewDelayMs(60, { failures: 8 }, i / 100)));
  assert.equal(delays.size, 100);
  assert.equal(Math.min(...delays), 15_000);
  assert.ok(Math.max(...delays) > 22_000);
});

test('renew schedule: Retry-After is honoured, bounded by the normal cadence', () => {
  assert.equal(nextRenewDelayMs(60, { failures: 1, retryAfterSeconds: 5 }, 0), 5000);
  assert.equal(nextRenewDelayMs(60, { failures: 4, retryAfterSeconds: 1 }, 0), 8000, 'a shorter Retry-After does not shorten the backoff');
  assert.equal(nextRenewDelayMs(60, { failures: 1, retryAfterSeconds: 600 }, 0), 60_000);
  assert.equal(nextRenewDelayMs(60, { failures: 1, retryAfterSeconds: Number.NaN }, 0), 1000);
});
