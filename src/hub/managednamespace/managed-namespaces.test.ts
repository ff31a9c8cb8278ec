import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ManagedCluster, ManagedClusterSet } from '../../api/cluster.js';
import { clustersReferencingSet, desiredManagedNamespaces } from './managed-namespaces.js';

const cluster = (labels: Record<string, string>, managedNamespaces?: { name: string; clusterSet: string }[]): ManagedCluster => ({
  metadata: { name: 'c1', labels },
  spec: { hubAcceptsClient: true },
  ...(managedNamespaces ? { status: { managedNamespaces } } : {}),
});
const set1: ManagedClusterSet = { metadata: { name: 'set1' }, spec: { clusterSelector: { selectorType: 'ExclusiveClusterSetLabel' }, managedNamespaces: [{ name: 'ns-b' }, { name: 'ns-a' }] } };
const set2: ManagedClusterSet = { metadata: { name: 'aset' }, spec: { clusterSelector: { selectorType: 'LabelSelector', labelSelector: { matchLabels: { env: 'prod' } } }, managedNamespaces: [{ name: 'ns-z' }] } };
const deleting: ManagedClusterSet = { ...set1, metadata: { name: 'set1', deletionTimestamp: '2026-01-01T00:00:00Z' } };

const cases: { name: string; cluster: ManagedCluster; sets: ManagedClusterSet[]; expected: { name: string; clusterSet: string }[] }[] = [
  { name: 'cluster with no cluster sets', cluster: cluster({}), sets: [set1], expected: [] },
  { name: 'cluster with single cluster set', cluster: cluster({ 'cluster.open-cluster-management.io/clusterset': 'set1' }), sets: [set1], expected: [{ name: 'ns-a', clusterSet: 'set1' }, { name: 'ns-b', clusterSet: 'set1' }] },
  {
    name: 'cluster with multiple cluster sets (sorted by set then name)',
    cluster: cluster({ 'cluster.open-cluster-management.io/clusterset': 'set1', env: 'prod' }),
    sets: [set1, set2],
    expected: [{ name: 'ns-z', clusterSet: 'aset' }, { name: 'ns-a', clusterSet: 'set1' }, { name: 'ns-b', clusterSet: 'set1' }],
  },
  { name: 'cluster set being deleted is ignored', cluster: cluster({ 'cluster.open-cluster-management.io/clusterset': 'set1' }), sets: [deleting], expected: [] },
];
for (const c of cases) test(`desiredManagedNamespaces: ${c.name}`, () => assert.deepEqual(desiredManagedNamespaces(c.cluster, c.sets), c.expected));

test('clustersReferencingSet: selection by status.managedNamespaces[].clusterSet', () => {
  const a = { ...cluster({}, [{ name: 'x', clusterSet: 'set1' }]), metadata: { name: 'a' } };
  const b = { ...cluster({}, [{ name: 'x', clusterSet: 'set2' }]), metadata: { name: 'b' } };
  assert.deepEqual(clustersReferencingSet([a, b, cluster({})], 'set1'), ['a']);
});
