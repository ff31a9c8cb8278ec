import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ManagedCluster, ManagedClusterSet, ManagedClusterSetBinding } from '../../api/cluster.js';
import { desiredProfileClusters, profileLabels, profileStatus, newClusterProfile } from './profile-decision.js';

const bound = (set: string, status: 'True' | 'False' = 'True'): ManagedClusterSetBinding => ({
  metadata: { name: set, namespace: 'ns' },
  spec: { clusterSet: set },
  status: { conditions: [{ type: 'Bound', status, reason: 'x', message: '' }] },
});
const cluster = (name: string, labels: Record<string, string> = {}, deleting = false): ManagedCluster => ({
  metadata: { name, labels, ...(deleting ? { deletionTimestamp: '2024-01-01T00:00:00Z' } : {}) },
  spec: { hubAcceptsClient: true },
});
const sets: Record<string, ManagedClusterSet> = {
  a: { metadata: { name: 'a' }, spec: { clusterSelector: { selectorType: 'ExclusiveClusterSetLabel' } } },
  prod: { metadata: { name: 'prod' }, spec: { clusterSelector: { selectorType: 'LabelSelector', labelSelector: { matchLabels: { env: 'prod' } } } } },
  global: { metadata: { name: 'global' }, spec: { clusterSelector: { selectorType: 'LabelSelector', labelSelector: {} } } },
  bad: { metadata: { name: 'bad' }, spec: { clusterSelector: { selectorType: 'Weird' as 'LabelSelector' } } },
};
const all = [
  cluster('c1', { 'cluster.open-cluster-management.io/clusterset': 'a', env: 'prod' }),
  cluster('c2', { env: 'prod' }),
  cluster('c3'),
  cluster('gone', { env: 'prod' }, true),
];
const desired = (bs: ManagedClusterSetBinding[]) => [...desiredProfileClusters(bs, (n) => sets[n], all)].sort();

test('desiredProfileClusters: union of the bound sets, deleting clusters and unbound or unknown sets left out', () => {
  assert.deepEqual(desired([bound('a')]), ['c1']);
  assert.deepEqual(desired([bound('a'), bound('prod')]), ['c1', 'c2']);
  assert.deepEqual(desired([bound('global')]), ['c1', 'c2', 'c3']);
  assert.deepEqual(desired([bound('prod', 'False')]), []);
  assert.deepEqual(desired([bound('missing'), bound('bad')]), []);
});

test('profileLabels: manager, set and cluster name over the existing labels; undefined when already right', () => {
  const p = newClusterProfile('ns', 'c1');
  p.metadata.labels = { ...p.metadata.labels, mine: 'kept' };
  const l = profileLabels(p, all[0]!);
  assert.deepEqual(l, { mine: 'kept', 'x-k8s.io/cluster-manager': 'open-cluster-management', 'open-cluster-management.io/cluster-name': 'c1', 'multicluster.x-k8s.io/clusterset': 'a' });
  assert.equal(profileLabels({ ...p, metadata: { ...p.metadata, labels: l! } }, all[0]!), undefined);
  assert.equal(profileLabels(p, all[2]!)?.['multicluster.x-k8s.io/clusterset'], '');
});

test('profileStatus: version, claims with a value, Available/Joined mirrored; transition time kept while status holds', () => {
  const c: ManagedCluster = {
    ...cluster('c1'),
    status: {
      version: { kubernetes: 'v1.30.0' },
      clusterClaims: [{ name: 'id.k8s.io', value: 'x' }, { name: 'empty', value: '' }],
      conditions: [{ type: 'ManagedClusterConditionAvailable', status: 'False', reason: 'Gone', message: 'lease expired' }],
    },
  };
  const t0 = new Date('2024-01-01T00:00:00Z');
  const s1 = profileStatus({ accessProviders: [{ name: 'p' }] }, c, t0);
  assert.deepEqual(s1.version, { kubernetes: 'v1.30.0' });
  assert.deepEqual(s1.properties, [{ name: 'id.k8s.io', value: 'x' }]);
  assert.deepEqual(s1['accessProviders'], [{ name: 'p' }]);
  assert.deepEqual(s1.conditions, [{ type: 'ControlPlaneHealthy', status: 'False', reason: 'Gone', message: 'lease expired', lastTransitionTime: '2024-01-01T00:00:00Z' }]);
  const s2 = profileStatus(s1, c, new Date('2024-01-02T00:00:00Z'));
  assert.equal(s2.conditions?.[0]?.lastTransitionTime, '2024-01-01T00:00:00Z');
  assert.deepEqual(profileStatus(undefined, cluster('c3'), t0), { version: {}, properties: [] });
});
