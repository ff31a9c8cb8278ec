import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ClusterClaim, ClusterProperty } from '../../api/cluster.js';
import { createClaimReconciler, exposeClaims, type ClaimItem, type ExposeClaimsInput } from './claim-reconciler.js';
import { newAcceptedCluster, newJoinedCluster, recordingContext } from './test-fixtures.js';

function claim(name: string, value: string, labels?: Record<string, string>): ClusterClaim {
  return { metadata: { name, ...(labels ? { labels } : {}) }, spec: { value } };
}
function property(name: string, value: string, labels?: Record<string, string>): ClusterProperty {
  return { metadata: { name, ...(labels ? { labels } : {}) }, spec: { value } };
}

test('exposeClaims table', () => {
  const base = { maxCustomClaims: 20, reservedSuffixes: [] as string[] };
  const cases: { name: string; input: ExposeClaimsInput; expected: ClaimItem[]; truncated?: { found: number; max: number } }[] = [
    { name: 'both gates off', input: base, expected: [] },
    { name: 'sync properties into status of the managed cluster', input: { ...base, properties: [property('name', 'test'), property('a', 'b')] }, expected: [{ name: 'a', value: 'b' }, { name: 'name', value: 'test' }] },
    { name: 'claims and properties both exposed, sorted', input: { ...base, claims: [claim('a', 'b')], properties: [property('name', 'test')] }, expected: [{ name: 'a', value: 'b' }, { name: 'name', value: 'test' }] },
    { name: 'property wins over claim of the same name', input: { ...base, claims: [claim('name', 'claim')], properties: [property('name', 'property')] }, expected: [{ name: 'name', value: 'property' }] },
    {
      name: 'truncate custom cluster claims',
      input: { ...base, maxCustomClaims: 2, claims: [claim('id.k8s.io', 'cluster1'), claim('c', 'd'), claim('a', 'b'), claim('e', 'f'), claim('id-test.k8s.io', 'x')] },
      expected: [{ name: 'id.k8s.io', value: 'cluster1' }, { name: 'a', value: 'b' }, { name: 'c', value: 'd' }],
      truncated: { found: 4, max: 2 },
    },
    {
      name: 'keep custom reserved cluster claims',
      input: { ...base, maxCustomClaims: 2, reservedSuffixes: ['reserved.io'], claims: [claim('id.k8s.io', 'c1'), claim('test.reserved.io', 'r'), claim('c', 'd'), claim('a', 'b'), claim('e', 'f')] },
      expected: [{ name: 'id.k8s.io', value: 'c1' }, { name: 'test.reserved.io', value: 'r' }, { name: 'a', value: 'b' }, { name: 'c', value: 'd' }],
      truncated: { found: 3, max: 2 },
    },
    { name: 'remove claims from managed cluster', input: { ...base, claims: [] }, expected: [] },
    { name: 'spoke-only claims excluded (any value)', input: { ...base, claims: [claim('a', 'b'), claim('x', 'y', { 'open-cluster-management.io/spoke-only': '' })] }, expected: [{ name: 'a', value: 'b' }] },
    { name: 'spoke-only properties excluded', input: { ...base, properties: [property('a', 'b', { 'open-cluster-management.io/spoke-only': 'true' }), property('c', 'd')] }, expected: [{ name: 'c', value: 'd' }] },
    { name: 'byte order sorting', input: { ...base, claims: [claim('b', '1'), claim('B', '2'), claim('a', '3')] }, expected: [{ name: 'B', value: '2' }, { name: 'a', value: '3' }, { name: 'b', value: '1' }] },
  ];
  for (const c of cases) {
    const res = exposeClaims(c.input);
    assert.deepEqual(res.claims, c.expected, c.name);
    assert.deepEqual(res.truncated, c.truncated, c.name);
  }
});

test('claim reconciler skips a cluster that has not joined', async () => {
  const r = createClaimReconciler({ listClaims: () => [claim('a', 'b')] });
  const ctx = recordingContext();
  const res = await r.reconcile(newAcceptedCluster(), ctx);
  assert.equal(res.next, 'continue');
  assert.equal(res.obj.status?.clusterClaims, undefined);
  assert.deepEqual(ctx.events, [{ reason: 'ManagedClusterIsNotAccepted', message: 'Managed cluster "testmanagedcluster" does not join the hub yet' }]);
});

test('claim reconciler writes claims of a joined cluster and logs truncation', async () => {
  const r = createClaimReconciler({ listClaims: () => [claim('a', 'b'), claim('c', 'd')], listProperties: () => [property('name', 'test')], maxCustomClaims: 2 });
  const ctx = recordingContext();
  const res = await r.reconcile(newJoinedCluster(), ctx);
  assert.deepEqual(res.obj.status?.clusterClaims, [{ name: 'a', value: 'b' }, { name: 'c', value: 'd' }]);
  assert.deepEqual(ctx.events, [
    { reason: 'CustomClusterClaimsTruncated', message: '3 cluster claims are found. It exceeds the max number of custom cluster claims (2). 1 custom cluster claims are not exposed.' },
  ]);
});

test('claim reconciler with both gates off clears existing claims', async () => {
  const r = createClaimReconciler({});
  const cluster = newJoinedCluster();
  cluster.status!.clusterClaims = [{ name: 'a', value: 'b' }];
  const res = await r.reconcile(cluster, recordingContext());
  assert.deepEqual(res.obj.status?.clusterClaims, []);
});

test('claim reconciler reports list errors', async () => {
  const r = createClaimReconciler({
    listClaims: () => {
      throw new Error('boom');
    },
  });
  const res = await r.reconcile(newJoinedCluster(), recordingContext());
  assert.equal(res.error?.message, 'unable to list cluster claims: boom');
});
