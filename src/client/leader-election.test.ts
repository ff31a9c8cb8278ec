import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LeaderElectionConfigError, nextLockRecord, validateLeaderElectionTimings } from './leader-election.js';

const base = { identity: 'me', leaseDurationMs: 15_000, now: Date.parse('2024-01-01T00:00:10Z') };
const other = { holderIdentity: 'other', leaseDurationSeconds: 15, acquireTime: '2024-01-01T00:00:00.000000Z', renewTime: '2024-01-01T00:00:00.000000Z', leaseTransitions: 3 };

test('should create a fresh record with zero transitions when there is no lease', () => {
  const r = nextLockRecord(undefined, { at: 0 }, base);
  assert.deepEqual(r, { holderIdentity: 'me', leaseDurationSeconds: 15, acquireTime: '2024-01-01T00:00:10.000000Z', renewTime: '2024-01-01T00:00:10.000000Z', leaseTransitions: 0 });
});

test('should not take a lease another holder renewed within the lease duration (local observation time)', () => {
  // The record's renewTime is irrelevant: only when this process saw it change counts.
  assert.equal(nextLockRecord(other, { record: other, at: base.now - 14_999 }, base), undefined);
});

test('should take an expired lease, counting one more transition and a new acquireTime', () => {
  const r = nextLockRecord(other, { record: other, at: base.now - 15_000 }, base);
  assert.equal(r?.holderIdentity, 'me');
  assert.equal(r?.leaseTransitions, 4);
  assert.equal(r?.acquireTime, '2024-01-01T00:00:10.000000Z');
});

test('should take a released lease (empty holder) at once', () => {
  const released = { ...other, holderIdentity: '', leaseDurationSeconds: 1 };
  assert.equal(nextLockRecord(released, { record: released, at: base.now }, base)?.leaseTransitions, 4);
});

test('should renew its own lease keeping acquireTime and transitions', () => {
  const mine = { ...other, holderIdentity: 'me' };
  const r = nextLockRecord(mine, { record: mine, at: base.now }, base);
  assert.equal(r?.acquireTime, mine.acquireTime);
  assert.equal(r?.leaseTransitions, 3);
  assert.equal(r?.renewTime, '2024-01-01T00:00:10.000000Z');
});

test('should refuse the timings client-go refuses', () => {
  const ok = { leaseDurationMs: 137_000, renewDeadlineMs: 107_000, retryPeriodMs: 26_000 };
  validateLeaderElectionTimings(ok);
  for (const bad of [
    { ...ok, leaseDurationMs: 107_000 },
    { ...ok, renewDeadlineMs: 31_200 },
    { ...ok, retryPeriodMs: 0 },
    { ...ok, leaseDurationMs: -1 },
  ]) {
    assert.throws(() => validateLeaderElectionTimings(bad), LeaderElectionConfigError);
  }
});
