import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ManagedCluster } from '../api/cluster.js';
import { ClusterBoard } from './cluster-board.js';

function mc(name: string, joined: string, available?: string): ManagedCluster {
  const conditions = [{ type: 'ManagedClusterJoined', status: joined, reason: 'r', message: 'm', lastTransitionTime: '2026-01-01T00:00:00Z' }];
  if (available) conditions.push({ type: 'ManagedClusterConditionAvailable', status: available, reason: 'r', message: 'm', lastTransitionTime: '2026-01-01T00:00:00Z' });
  return { apiVersion: 'cluster.open-cluster-management.io/v1', kind: 'ManagedCluster', metadata: { name }, spec: { hubAcceptsClient: true, leaseDurationSeconds: 60 }, status: { conditions } } as ManagedCluster;
}

test('should count joined, available and unknown clusters of the fleet only', () => {
  const b = new ClusterBoard(new Set(['a', 'b', 'c']));
  b.update(mc('a', 'True', 'True'), 1);
  b.update(mc('b', 'True'), 2);
  b.update(mc('other', 'True', 'True'), 3);
  assert.deepEqual(b.counts(), { registered: 2, joined: 2, available: 1, unknown: 0 });
  b.update(mc('a', 'True', 'Unknown'), 4);
  b.update(mc('a', 'True', 'Unknown'), 5);
  assert.equal(b.unknownTransitions(), 1);
  assert.deepEqual(b.counts(), { registered: 2, joined: 2, available: 0, unknown: 1 });
  assert.equal(b.firstReadyTimes().get('a'), 1);
  assert.equal(b.leaseDurationOf('a'), 60);
});

test('should forget clusters missing from a relist', () => {
  const b = new ClusterBoard(new Set(['a', 'b']));
  b.update(mc('a', 'True', 'True'), 1);
  b.update(mc('b', 'True', 'True'), 1);
  b.replace([mc('b', 'True', 'True')], 2);
  assert.equal(b.counts().registered, 1);
});

test('should resolve until() once the counts match, and reject when aborted', async () => {
  const b = new ClusterBoard(new Set(['a']));
  const ac = new AbortController();
  const ready = b.until((c) => c.available === 1, ac.signal);
  b.update(mc('a', 'True', 'True'), 1);
  await ready;
  const never = b.until((c) => c.available === 2, ac.signal);
  ac.abort(new Error('stop'));
  await assert.rejects(never, /stop/);
});
