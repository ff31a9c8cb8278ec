// ManagedClusterController against the embedded server: accept, deny, re-accept, delete (hub-controller.md §5.1).

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ManagedCluster } from '../../src/api/cluster.js';
import type { ClusterRole, ClusterRoleBinding, Namespace } from '../../src/api/core.js';
import { resourceTypes } from '../../src/client/index.js';
import { getIfExists } from '../helpers/objects.js';
import { waitFor } from '../helpers/wait-for.js';
import { startHubFixture, type HubFixture } from './hub-fixture.js';

let fx: HubFixture;
before(async () => {
  fx = await startHubFixture({ hub: { labels: 'team=a,tier=hub' } });
});
after(async () => fx?.stop());

const mcs = () => fx.admin.resource<ManagedCluster>(resourceTypes.managedClusters);
const exists = async (type: (typeof resourceTypes)[keyof typeof resourceTypes], name: string, ns?: string): Promise<boolean> =>
  (await getIfExists(fx.admin.resource(type, ns), name)) !== undefined;
const accepted = async (name: string): Promise<string | undefined> =>
  (await mcs().get(name)).status?.conditions?.find((c) => c.type === 'HubAcceptedManagedCluster')?.reason;

async function createCluster(name: string, hubAcceptsClient: boolean): Promise<void> {
  await mcs().create({ apiVersion: 'cluster.open-cluster-management.io/v1', kind: 'ManagedCluster', metadata: { name }, spec: { hubAcceptsClient } });
}

test('a never-accepted cluster gets no namespace and no cluster RBAC, but the unreachable taint and the GC finalizer', async () => {
  await createCluster('idle1', false);
  const mc = await waitFor(async () => {
    const c = await mcs().get('idle1');
    return c.spec?.taints?.some((t) => t.key === 'cluster.open-cluster-management.io/unreachable') && c.metadata.finalizers?.includes('cluster.open-cluster-management.io/resource-cleanup') ? c : undefined;
  }, 5000);
  assert.equal(mc.spec?.taints?.[0]?.effect, 'NoSelect');
  assert.equal(await exists(resourceTypes.namespaces, 'idle1'), false);
  assert.equal(await exists(resourceTypes.clusterRoles, 'open-cluster-management:managedcluster:idle1'), false);
  assert.equal(await accepted('idle1'), undefined);
  // common ClusterRoles exist while any cluster exists
  await waitFor(() => exists(resourceTypes.clusterRoles, 'open-cluster-management:managedcluster:registration'), 5000);
  await waitFor(() => exists(resourceTypes.clusterRoles, 'open-cluster-management:managedcluster:work'), 5000);
});

test('accept creates the namespace, exact RBAC with labels, finalizers and HubAccepted True', async () => {
  await createCluster('c1', true);
  await waitFor(async () => (await accepted('c1')) === 'HubClusterAdminAccepted', 5000);
  const ns = await fx.admin.resource<Namespace>(resourceTypes.namespaces).get('c1');
  assert.deepEqual(ns.metadata.labels?.['open-cluster-management.io/cluster-name'], 'c1');
  assert.equal(ns.metadata.labels?.['team'], 'a');
  const cr = await fx.admin.resource<ClusterRole>(resourceTypes.clusterRoles).get('open-cluster-management:managedcluster:c1');
  assert.equal(cr.metadata.labels?.['tier'], 'hub');
  assert.deepEqual(cr.rules?.map((r) => r.verbs), [['create', 'get', 'list', 'watch'], ['renew'], ['get', 'list', 'update', 'watch'], ['patch', 'update']]);
  const crb = await fx.admin.resource<ClusterRoleBinding>(resourceTypes.clusterRoleBindings).get('open-cluster-management:managedcluster:c1');
  assert.deepEqual(crb.subjects?.map((s) => s.name), ['system:open-cluster-management:c1', 'open-cluster-management:c1']);
  const work = await waitFor(() => fx.admin.resource<ClusterRoleBinding>(resourceTypes.roleBindings, 'c1').get('open-cluster-management:managedcluster:c1:work'), 5000);
  assert.deepEqual(work.metadata.finalizers, ['cluster.open-cluster-management.io/manifest-work-cleanup']);
  assert.equal(work.roleRef.name, 'open-cluster-management:managedcluster:work');
  assert.ok(await exists(resourceTypes.roleBindings, 'open-cluster-management:managedcluster:c1:registration', 'c1'));
  const mc = await mcs().get('c1');
  assert.ok(mc.metadata.finalizers?.includes('cluster.open-cluster-management.io/api-resource-cleanup'));
  // the lease controller creates the cluster lease once the condition exists
  await waitFor(() => exists(resourceTypes.leases, 'managed-cluster-lease', 'c1'), 5000);
});

test('an edited cluster RBAC object is restored', async () => {
  const rc = fx.admin.resource<ClusterRole>(resourceTypes.clusterRoles);
  await waitFor(async () => {
    const cr = await rc.get('open-cluster-management:managedcluster:c1');
    await rc.update({ ...cr, rules: [] });
    return true;
  }, 5000);
  await waitFor(async () => ((await rc.get('open-cluster-management:managedcluster:c1')).rules ?? []).length === 4, 5000);
});

test('deny downgrades the ClusterRole, removes the RoleBindings, keeps namespace; re-accept restores', async () => {
  await mcs().patch('c1', 'merge', { spec: { hubAcceptsClient: false } });
  await waitFor(async () => (await accepted('c1')) === 'HubClusterAdminDenied', 5000);
  const cr = await fx.admin.resource<ClusterRole>(resourceTypes.clusterRoles).get('open-cluster-management:managedcluster:c1');
  assert.deepEqual(cr.rules, [{ apiGroups: ['cluster.open-cluster-management.io'], resources: ['managedclusters'], resourceNames: ['c1'], verbs: ['get', 'list', 'watch'] }]);
  assert.ok(await exists(resourceTypes.clusterRoleBindings, 'open-cluster-management:managedcluster:c1'));
  await waitFor(async () => !(await exists(resourceTypes.roleBindings, 'open-cluster-management:managedcluster:c1:work', 'c1')), 5000);
  assert.equal(await exists(resourceTypes.roleBindings, 'open-cluster-management:managedcluster:c1:registration', 'c1'), false);
  assert.ok(await exists(resourceTypes.namespaces, 'c1'));
  const mc = await mcs().get('c1');
  assert.equal(mc.status?.conditions?.find((c) => c.type === 'HubAcceptedManagedCluster')?.message, 'Denied by hub cluster admin');

  await mcs().patch('c1', 'merge', { spec: { hubAcceptsClient: true } });
  await waitFor(async () => (await accepted('c1')) === 'HubClusterAdminAccepted', 5000);
  await waitFor(() => exists(resourceTypes.roleBindings, 'open-cluster-management:managedcluster:c1:work', 'c1'), 5000);
  await waitFor(async () => ((await fx.admin.resource<ClusterRole>(resourceTypes.clusterRoles).get('open-cluster-management:managedcluster:c1')).rules ?? []).length === 4, 5000);
});

test('flapping accept/deny converges to the last value', async () => {
  await createCluster('flap', false);
  for (const v of [true, false, true, false, true]) await mcs().patch('flap', 'merge', { spec: { hubAcceptsClient: v } });
  await waitFor(async () => (await accepted('flap')) === 'HubClusterAdminAccepted', 5000);
  await waitFor(() => exists(resourceTypes.roleBindings, 'open-cluster-management:managedcluster:flap:registration', 'flap'), 5000);
  for (const v of [false, true, false]) await mcs().patch('flap', 'merge', { spec: { hubAcceptsClient: v } });
  await waitFor(async () => (await accepted('flap')) === 'HubClusterAdminDenied', 5000);
  await waitFor(async () => !(await exists(resourceTypes.roleBindings, 'open-cluster-management:managedcluster:flap:registration', 'flap')), 5000);
});

test('deleting an accepted cluster leaves nothing behind but the namespace', async () => {
  await createCluster('gone1', true);
  await waitFor(async () => (await accepted('gone1')) === 'HubClusterAdminAccepted', 5000);
  await waitFor(() => exists(resourceTypes.roleBindings, 'open-cluster-management:managedcluster:gone1:work', 'gone1'), 5000);
  await mcs().delete('gone1');
  await waitFor(async () => !(await exists(resourceTypes.managedClusters, 'gone1')), 10_000, { message: 'cluster removed' });
  for (const [type, name, ns] of [
    [resourceTypes.clusterRoles, 'open-cluster-management:managedcluster:gone1'],
    [resourceTypes.clusterRoleBindings, 'open-cluster-management:managedcluster:gone1'],
    [resourceTypes.roleBindings, 'open-cluster-management:managedcluster:gone1:registration', 'gone1'],
    [resourceTypes.roleBindings, 'open-cluster-management:managedcluster:gone1:work', 'gone1'],
  ] as const) {
    await waitFor(async () => !(await exists(type, name, ns)), 5000, { message: `${name} removed` });
  }
  assert.ok(await exists(resourceTypes.namespaces, 'gone1'));
});
