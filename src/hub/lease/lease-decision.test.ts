import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkLease, clockSynced, leaseGraceMs } from './lease-decision.js';

const now = Date.parse('2026-01-01T00:10:00Z');
const ago = (s: number): string => new Date(now - s * 1000).toISOString();

test('leaseGraceMs: 5 × duration, 0 → 60 s', () => {
  assert.equal(leaseGraceMs(60), 300_000);
  assert.equal(leaseGraceMs(0), 300_000);
  assert.equal(leaseGraceMs(undefined), 300_000);
  assert.equal(leaseGraceMs(1), 5_000);
});

const leaseCases: { name: string; renew: string | undefined; duration: number | undefined; expired: boolean; requeue: number }[] = [
  { name: 'expired lease: requeue after the grace period', renew: ago(301), duration: 60, expired: true, requeue: 300_000 },
  { name: 'exactly at expiry counts as expired', renew: ago(300), duration: 60, expired: true, requeue: 300_000 },
  { name: 'fresh lease: time until expiry', renew: ago(240), duration: 60, expired: false, requeue: 60_000 },
  { name: 'recently renewed lease', renew: ago(30), duration: 60, expired: false, requeue: 270_000 },
  { name: 'leaseDurationSeconds 0 is 60', renew: ago(299), duration: 0, expired: false, requeue: 1000 },
  { name: 'short lease (1 s) stopped 5 min ago', renew: ago(300), duration: 1, expired: true, requeue: 5000 },
  { name: 'missing renewTime counts as expired', renew: undefined, duration: 60, expired: true, requeue: 300_000 },
  { name: 'garbage renewTime counts as expired', renew: 'yesterday', duration: 60, expired: true, requeue: 300_000 },
];
for (const c of leaseCases) {
  test(`checkLease: ${c.name}`, () => assert.deepEqual(checkLease(c.renew, c.duration, now), { expired: c.expired, requeueAfterMs: c.requeue }));
}

const clockCases: { name: string; renewOffsetS: number; duration: number; annotation?: string; expected: boolean }[] = [
  { name: 'hub and agent clock is close', renewOffsetS: 5, duration: 0, expected: true },
  { name: 'hub and agent clock is not close', renewOffsetS: 301, duration: 0, expected: false },
  { name: 'not close but skip annotation is "true"', renewOffsetS: 301, duration: 0, annotation: 'true', expected: true },
  { name: 'not close and skip annotation is "false"', renewOffsetS: 301, duration: 0, annotation: 'false', expected: false },
  { name: 'agent behind by exactly the threshold', renewOffsetS: -300, duration: 60, expected: false },
  { name: 'agent behind just under the threshold', renewOffsetS: -299, duration: 60, expected: true },
];
for (const c of clockCases) {
  test(`clockSynced: ${c.name}`, () => {
    const renew = new Date(now + c.renewOffsetS * 1000).toISOString();
    assert.equal(clockSynced(renew, c.duration, now, c.annotation), c.expected);
  });
}
