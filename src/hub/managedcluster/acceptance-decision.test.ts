import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ManagedCluster } from '../../api/cluster.js';
import { acceptedCondition, autoAcceptPatch, clusterBranch, type ClusterBranch } from './acceptance-decision.js';

function mc(p: { accepts?: boolean; deleting?: boolean; acceptedStatus?: 'True' | 'False'; autoAnnotated?: boolean; unreachable?: boolean } = {}): ManagedCluster {
  return {
    metadata: {
      name: 'c1',
      ...(p.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
      ...(p.autoAnnotated ? { annotations: { 'open-cluster-management.io/automatically-accepted-on': '2026-01-01T00:00:00Z' } } : {}),
    },
    spec: { hubAcceptsClient: p.accepts ?? false, ...(p.unreachable ? { taints: [{ key: 'cluster.open-cluster-management.io/unreachable', value: '', effect: 'NoSelect' }] } : {}) },
    status: p.acceptedStatus ? { conditions: [{ type: 'HubAcceptedManagedCluster', status: p.acceptedStatus, reason: 'x', message: '' }] } : {},
  };
}

const cases: { name: string; input: [ManagedCluster | undefined, boolean]; expected: ClusterBranch }[] = [
  { name: 'sync a deleted spoke cluster', input: [undefined, false], expected: 'gone' },
  { name: 'deleting cluster', input: [mc({ accepts: true, deleting: true }), true], expected: 'deleting' },
  { name: 'new cluster, never accepted', input: [mc(), false], expected: 'idle' },
  { name: 'new cluster, condition False (denied before)', input: [mc({ acceptedStatus: 'False' }), false], expected: 'idle' },
  { name: 'accept a spoke cluster', input: [mc({ accepts: true }), false], expected: 'accept' },
  { name: 'deny an accepted spoke cluster', input: [mc({ acceptedStatus: 'True' }), false], expected: 'deny' },
  { name: 'auto approval on, new cluster', input: [mc(), true], expected: 'autoAccept' },
  { name: 'auto approval on, accepted but not annotated', input: [mc({ accepts: true, acceptedStatus: 'True' }), true], expected: 'autoAccept' },
  { name: 'auto approval done once; admin denied later', input: [mc({ autoAnnotated: true, acceptedStatus: 'True' }), true], expected: 'deny' },
];

for (const c of cases) {
  test(`clusterBranch: ${c.name}`, () => assert.equal(clusterBranch(...c.input), c.expected));
}

test('autoAcceptPatch sets the annotation, hubAcceptsClient only when false and the finalizer only when missing, guarded by uid and resourceVersion (taints already right)', () => {
  const now = new Date('2025-01-02T03:04:05.678Z');
  const at = '2025-01-02T03:04:05Z';
  const fin = 'cluster.open-cluster-management.io/api-resource-cleanup';
  const noGc = { resourceCleanup: false };
  const stored = mc({ unreachable: true });
  stored.metadata.uid = 'u1';
  stored.metadata.resourceVersion = '7';
  stored.metadata.finalizers = ['other'];
  assert.deepEqual(autoAcceptPatch(stored, now, noGc), {
    metadata: { uid: 'u1', resourceVersion: '7', annotations: { 'open-cluster-management.io/automatically-accepted-on': at }, finalizers: ['other', fin] },
    spec: { hubAcceptsClient: true },
  });
  assert.deepEqual(autoAcceptPatch(mc({ unreachable: true }), now, noGc), {
    metadata: { annotations: { 'open-cluster-management.io/automatically-accepted-on': at }, finalizers: [fin] },
    spec: { hubAcceptsClient: true },
  });
  const accepted = mc({ accepts: true, unreachable: true });
  accepted.metadata.finalizers = [fin];
  assert.deepEqual(autoAcceptPatch(accepted, now, noGc), {
    metadata: { annotations: { 'open-cluster-management.io/automatically-accepted-on': at } },
  });
});

test("autoAcceptPatch with the GC controller running also carries its resource-cleanup finalizer, after the cluster's own", () => {
  const now = new Date('2025-01-02T03:04:05.678Z');
  const annotations = { 'open-cluster-management.io/automatically-accepted-on': '2025-01-02T03:04:05Z' };
  const api = 'cluster.open-cluster-management.io/api-resource-cleanup';
  const gc = 'cluster.open-cluster-management.io/resource-cleanup';
  const withGc = { resourceCleanup: true };
  assert.deepEqual(autoAcceptPatch(mc({ unreachable: true }), now, withGc), { metadata: { annotations, finalizers: [api, gc] }, spec: { hubAcceptsClient: true } });
  const gcFirst = mc({ accepts: true, unreachable: true });
  gcFirst.metadata.finalizers = [gc];
  assert.deepEqual(autoAcceptPatch(gcFirst, now, withGc), { metadata: { annotations, finalizers: [gc, api] } });
  const both = mc({ accepts: true, unreachable: true });
  both.metadata.finalizers = [api, gc];
  assert.deepEqual(autoAcceptPatch(both, now, withGc), { metadata: { annotations } });
});

test('autoAcceptPatch carries the taints the cluster calls for: a new cluster is unreachable until its agent reports', () => {
  const now = new Date('2025-01-02T03:04:05.678Z');
  const annotations = { 'open-cluster-management.io/automatically-accepted-on': '2025-01-02T03:04:05Z' };
  const unreachable = { key: 'cluster.open-cluster-management.io/unreachable', value: '', effect: 'NoSelect' };
  const fresh = mc();
  fresh.metadata.finalizers = ['cluster.open-cluster-management.io/api-resource-cleanup'];
  assert.deepEqual(autoAcceptPatch(fresh, now, { resourceCleanup: false }), { metadata: { annotations }, spec: { hubAcceptsClient: true, taints: [unreachable] } });
  const available = mc({ accepts: true, unreachable: true });
  available.metadata.finalizers = ['cluster.open-cluster-management.io/api-resource-cleanup'];
  available.status = { conditions: [{ type: 'ManagedClusterConditionAvailable', status: 'True', reason: 'x', message: '' }] };
  assert.deepEqual(autoAcceptPatch(available, now, { resourceCleanup: false }), { metadata: { annotations }, spec: { taints: [] } });
});

test('acceptedCondition: True without errors, False/Error with the text', () => {
  assert.deepEqual(acceptedCondition(undefined), { type: 'HubAcceptedManagedCluster', status: 'True', reason: 'HubClusterAdminAccepted', message: 'Accepted by hub cluster admin' });
  assert.equal(acceptedCondition('a\nb').reason, 'Error');
  assert.equal(acceptedCondition('a\nb').message, 'a\nb');
});
