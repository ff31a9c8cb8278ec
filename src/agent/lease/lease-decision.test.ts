import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ManagedCluster } from '../../api/cluster.js';
import { decideLease, jitteredIntervalMs } from './lease-decision.js';

function cluster(accepted: boolean, leaseDurationSeconds?: number): ManagedCluster {
  return {
    metadata: { name: 'testmanagedcluster' },
    spec: { hubAcceptsClient: accepted, ...(leaseDurationSeconds !== undefined ? { leaseDurationSeconds } : {}) },
    status: { conditions: accepted ? [{ type: 'HubAcceptedManagedCluster', status: 'True', reason: 'HubClusterAdminAccepted', message: '' }] : [] },
  };
}

test('decideLease table', () => {
  const cases: { name: string; cluster?: ManagedCluster; last?: number; expected: { stop: boolean; run?: number; last?: number; error?: string } }[] = [
    { name: 'start lease update routine', cluster: cluster(true, 60), last: 60, expected: { stop: false, run: 60, last: 60 } },
    {
      name: 'the managed cluster can not be found',
      expected: {
        stop: true,
        error: 'unable to get managed cluster "testmanagedcluster" from hub: managedcluster.cluster.open-cluster-management.io "testmanagedcluster" not found',
      },
    },
    { name: 'unaccept a managed cluster', cluster: cluster(false, 60), last: 60, expected: { stop: true, last: 60 } },
    { name: 'update the lease duration', cluster: cluster(true, 30), last: 60, expected: { stop: true, run: 30, last: 30 } },
    { name: 'first sync', cluster: cluster(true, 60), expected: { stop: true, run: 60, last: 60 } },
    { name: 'zero duration means 60', cluster: cluster(true, 0), last: 60, expected: { stop: false, run: 60, last: 60 } },
  ];
  for (const c of cases) {
    const d = decideLease({ clusterName: 'testmanagedcluster', cluster: c.cluster, lastDurationSeconds: c.last });
    assert.equal(d.stop, c.expected.stop, c.name);
    assert.equal(d.runWithSeconds, c.expected.run, c.name);
    assert.equal(d.lastDurationSeconds, c.expected.last, c.name);
    assert.equal(d.error, c.expected.error, c.name);
  }
});

test('jitteredIntervalMs adds up to 25 %', () => {
  assert.equal(jitteredIntervalMs(60, 0), 60_000);
  assert.equal(jitteredIntervalMs(60, 0.5), 67_500);
  assert.ok(jitteredIntervalMs(60, 0.9999) < 75_000);
});
