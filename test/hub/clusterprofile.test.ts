// ClusterProfiles (gate ClusterProfile) against the embedded server over HTTPS: one per cluster and
// consumer namespace of a bound set, status mirrored from the ManagedCluster, gone with the binding
// or the cluster.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ManagedCluster, ManagedClusterSet, ManagedClusterSetBinding } from '../../src/api/cluster.js';
import type { ClusterProfile } from '../../src/api/cluster-profile.js';
import { isNotFound, resourceTypes } from '../../src/client/index.js';
import { waitFor } from '../helpers/wait-for.js';
import { startHubFixture, type HubFixture } from './hub-fixture.js';

let fx: HubFixture;
before(async () => {
  fx = await startHubFixture({ hub: { featureGates: ['ClusterProfile=true'] }, extraCrds: ['clusterprofiles.multicluster.x-k8s.io'] });
  await seed();
});
after(async () => fx?.stop());

const profiles = (ns: string) => fx.admin.resource<ClusterProfile>(resourceTypes.clusterProfiles, ns);
const clusters = () => fx.admin.resource<ManagedCluster>(resourceTypes.managedClusters);
const bindings = (ns: string) => fx.admin.resource<ManagedClusterSetBinding>(resourceTypes.managedClusterSetBindings, ns);
const names = async (ns: string) => (await profiles(ns).list()).items.map((p) => p.metadata.name ?? '').sort().join(',');

async function namespace(name: string): Promise<void> {
  await fx.admin.resource(resourceTypes.namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
}
async function bind(ns: string, set: string): Promise<void> {
  await bindings(ns).create({ apiVersion: 'cluster.open-cluster-management.io/v1beta2', kind: 'ManagedClusterSetBinding', metadata: { name: set, namespace: ns }, spec: { clusterSet: set } });
}
async function gone(ns: string, name: string): Promise<boolean> {
  try {
    await profiles(ns).get(name);
    return false;
  } catch (err) {
    return isNotFound(err);
  }
}

async function seed(): Promise<void> {
  const sets = fx.admin.resource<ManagedClusterSet>(resourceTypes.managedClusterSets);
  await sets.create({ metadata: { name: 'set-a' }, spec: { clusterSelector: { selectorType: 'ExclusiveClusterSetLabel' } } });
  await sets.create({ metadata: { name: 'set-b' }, spec: { clusterSelector: { selectorType: 'LabelSelector', labelSelector: { matchLabels: { env: 'prod' } } } } });
  await clusters().create({ metadata: { name: 'c1', labels: { 'cluster.open-cluster-management.io/clusterset': 'set-a', env: 'prod' } }, spec: { hubAcceptsClient: true } });
  await clusters().create({ metadata: { name: 'c2', labels: { env: 'prod' } }, spec: { hubAcceptsClient: true } });
  await clusters().create({ metadata: { name: 'c3' }, spec: { hubAcceptsClient: true } });
  for (const ns of ['team-a', 'team-b', 'team-c']) await namespace(ns);
}

test('one profile per selected cluster and namespace, whatever the overlap; none for an unbound binding', async () => {
  await bind('team-a', 'set-a');
  await bind('team-a', 'set-b'); // c1 is in both sets: still one profile
  await bind('team-b', 'global'); // the global set selects every cluster
  await bind('team-c', 'no-such-set'); // never Bound
  await waitFor(async () => (await names('team-a')) === 'c1,c2', 10_000, { message: 'team-a profiles' });
  await waitFor(async () => (await names('team-b')) === 'c1,c2,c3', 10_000, { message: 'team-b profiles' });
  const p = await profiles('team-a').get('c1');
  assert.deepEqual(p.spec, { displayName: 'c1', clusterManager: { name: 'open-cluster-management' } });
  assert.equal(p.metadata.labels?.['x-k8s.io/cluster-manager'], 'open-cluster-management');
  assert.equal(p.metadata.labels?.['open-cluster-management.io/cluster-name'], 'c1');
  await waitFor(async () => (await bindings('team-c').get('no-such-set')).status?.conditions?.some((c) => c.type === 'Bound' && c.status === 'False'), 10_000);
  assert.equal(await names('team-c'), '');
});

test('status and the cluster set label follow the ManagedCluster', async () => {
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  await clusters().patch('c1', 'merge', {
    status: {
      version: { kubernetes: 'v1.31.2' },
      clusterClaims: [{ name: 'id.k8s.io', value: 'c1-uid' }, { name: 'platform.open-cluster-management.io', value: 'Kind' }],
      conditions: [
        { type: 'ManagedClusterConditionAvailable', status: 'True', reason: 'ManagedClusterAvailable', message: 'Managed cluster is available', lastTransitionTime: now },
        { type: 'ManagedClusterJoined', status: 'True', reason: 'ManagedClusterJoined', message: 'Managed cluster joined', lastTransitionTime: now },
      ],
    },
  }, { subresource: 'status' });
  const p = await waitFor(async () => {
    const cur = await profiles('team-b').get('c1');
    return cur.status?.version?.kubernetes === 'v1.31.2' && cur.metadata.labels?.['multicluster.x-k8s.io/clusterset'] === 'set-a' ? cur : undefined;
  }, 10_000, { message: 'profile status synced' });
  assert.deepEqual(p.status?.properties, [{ name: 'id.k8s.io', value: 'c1-uid' }, { name: 'platform.open-cluster-management.io', value: 'Kind' }]);
  const healthy = p.status?.conditions?.find((c) => c.type === 'ControlPlaneHealthy');
  assert.equal(healthy?.status, 'True');
  assert.equal(healthy?.reason, 'ManagedClusterAvailable');
  assert.equal(p.status?.conditions?.find((c) => c.type === 'Joined')?.status, 'True');
  // every profile of the cluster, in every namespace
  await waitFor(async () => (await profiles('team-a').get('c1')).status?.version?.kubernetes === 'v1.31.2', 10_000);
  // a cluster created without a set label is put in `default` by admission, and its profile says so
  await waitFor(async () => (await profiles('team-b').get('c3')).metadata.labels?.['multicluster.x-k8s.io/clusterset'] === 'default', 10_000);
});

test('a profile deleted by hand comes back; removing a binding removes its profiles', async () => {
  const before = await profiles('team-a').get('c2');
  await profiles('team-a').delete('c2');
  await waitFor(async () => (await profiles('team-a').get('c2').catch(() => undefined))?.metadata.uid !== before.metadata.uid ? true : undefined, 10_000, { message: 'profile re-created' });
  await bindings('team-a').delete('set-b');
  await waitFor(() => gone('team-a', 'c2'), 10_000, { message: 'c2 profile removed with its binding' });
  assert.equal(await names('team-a'), 'c1');
});

test('a cluster that moves out of a set loses that profile; a deleted cluster loses all of them', async () => {
  await clusters().patch('c1', 'merge', { metadata: { labels: { 'cluster.open-cluster-management.io/clusterset': null } } });
  await waitFor(() => gone('team-a', 'c1'), 10_000, { message: 'c1 left set-a' });
  await clusters().delete('c3');
  await waitFor(() => gone('team-b', 'c3'), 10_000, { message: 'c3 profile removed with the cluster' });
  assert.equal(await names('team-b'), 'c1,c2');
});
