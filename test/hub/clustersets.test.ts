// Cluster sets, bindings and managed namespaces against the embedded server (hub-controller.md §5.8–5.11).

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ManagedCluster, ManagedClusterSet, ManagedClusterSetBinding } from '../../src/api/cluster.js';
import { resourceTypes } from '../../src/client/index.js';
import { waitFor } from '../helpers/wait-for.js';
import { startHubFixture, type HubFixture } from './hub-fixture.js';

let fx: HubFixture;
before(async () => {
  fx = await startHubFixture();
});
after(async () => fx?.stop());

const sets = () => fx.admin.resource<ManagedClusterSet>(resourceTypes.managedClusterSets);
const mcs = () => fx.admin.resource<ManagedCluster>(resourceTypes.managedClusters);
const emptyCond = async (name: string) => (await sets().get(name)).status?.conditions?.find((c) => c.type === 'ClusterSetEmpty');

test('default and global sets are created and their selector is restored', async () => {
  const d = await waitFor(() => sets().get('default'), 5000);
  assert.deepEqual(d.spec?.clusterSelector, { selectorType: 'ExclusiveClusterSetLabel' });
  const g = await waitFor(() => sets().get('global'), 5000);
  assert.deepEqual(g.spec?.clusterSelector, { selectorType: 'LabelSelector', labelSelector: {} });
  assert.ok(g.metadata.uid);
  // the hub writes the set's status concurrently: retry the edit on conflicts with a fresh read
  await waitFor(async () => {
    const cur = await sets().get('global');
    await sets().update({ ...cur, spec: { clusterSelector: { selectorType: 'LabelSelector', labelSelector: { matchLabels: { a: 'b' } } }, managedNamespaces: [{ name: 'keep-me' }] } });
    return true;
  }, 5000);
  await waitFor(async () => JSON.stringify((await sets().get('global')).spec?.clusterSelector) === JSON.stringify({ selectorType: 'LabelSelector', labelSelector: {} }), 5000);
  assert.deepEqual((await sets().get('global')).spec?.managedNamespaces, [{ name: 'keep-me' }]);
  await sets().delete('default');
  await waitFor(async () => (await sets().get('default')).metadata.uid !== d.metadata.uid, 5000, { message: 'default set re-created' });
});

test('ClusterSetEmpty follows membership; managed namespaces are published to members', async () => {
  await sets().create({ metadata: { name: 'prod' }, spec: { clusterSelector: { selectorType: 'ExclusiveClusterSetLabel' }, managedNamespaces: [{ name: 'app-b' }, { name: 'app-a' }] } });
  await waitFor(async () => (await emptyCond('prod'))?.reason === 'NoClusterMatched', 5000);
  await mcs().create({ metadata: { name: 'm1', labels: { 'cluster.open-cluster-management.io/clusterset': 'prod' } }, spec: { hubAcceptsClient: false } });
  await waitFor(async () => (await emptyCond('prod'))?.message === '1 ManagedClusters selected', 5000);
  await waitFor(async () => (await emptyCond('global'))?.reason === 'ClustersSelected', 5000);
  // global carries managedNamespaces [keep-me] from the previous test; entries sorted by set, then name
  const want = [{ name: 'keep-me', clusterSet: 'global' }, { name: 'app-a', clusterSet: 'prod' }, { name: 'app-b', clusterSet: 'prod' }];
  await waitFor(async () => JSON.stringify((await mcs().get('m1')).status?.managedNamespaces) === JSON.stringify(want), 5000);
  // moving the cluster out of the set: prod becomes empty and its namespaces are withdrawn
  await mcs().patch('m1', 'merge', { metadata: { labels: { 'cluster.open-cluster-management.io/clusterset': 'default' } } });
  await waitFor(async () => (await emptyCond('prod'))?.reason === 'NoClusterMatched', 5000);
  await waitFor(async () => JSON.stringify((await mcs().get('m1')).status?.managedNamespaces) === JSON.stringify([{ name: 'keep-me', clusterSet: 'global' }]), 5000);
});

test('bindings are Bound while their set exists', async () => {
  await fx.admin.resource(resourceTypes.namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team1' } });
  const bindings = fx.admin.resource<ManagedClusterSetBinding>(resourceTypes.managedClusterSetBindings, 'team1');
  await bindings.create({ metadata: { name: 'staging', namespace: 'team1' }, spec: { clusterSet: 'staging' } });
  const bound = async () => (await bindings.get('staging')).status?.conditions?.find((c) => c.type === 'Bound');
  await waitFor(async () => (await bound())?.reason === 'ClusterSetNotFound', 5000);
  await sets().create({ metadata: { name: 'staging' }, spec: { clusterSelector: { selectorType: 'ExclusiveClusterSetLabel' } } });
  await waitFor(async () => (await bound())?.reason === 'ClusterSetBound', 5000);
  assert.equal((await bound())?.status, 'True');
  await sets().delete('staging');
  await waitFor(async () => (await bound())?.status === 'False', 5000);
});

test('clusters joining together are counted by one status write of their set', async () => {
  await sets().create({ metadata: { name: 'batch' }, spec: { clusterSelector: { selectorType: 'ExclusiveClusterSetLabel' } } });
  const empty = await waitFor(async () => {
    const s = await sets().get('batch');
    return s.status?.conditions?.find((c) => c.type === 'ClusterSetEmpty')?.reason === 'NoClusterMatched' ? s : undefined;
  }, 5000);
  const ac = new AbortController();
  const messages: string[] = [];
  const watched = (async () => {
    for await (const ev of sets().watch({ resourceVersion: empty.metadata.resourceVersion, fieldSelector: 'metadata.name=batch', signal: ac.signal })) {
      const msg = ev.object.status?.conditions?.find((c) => c.type === 'ClusterSetEmpty')?.message;
      if (ev.type === 'MODIFIED' && msg !== undefined) messages.push(msg);
      if (msg === '3 ManagedClusters selected') return;
    }
  })();
  const label = { 'cluster.open-cluster-management.io/clusterset': 'batch' };
  // One after the other, each created once the previous one is: without batching each is a write.
  for (const name of ['b1', 'b2', 'b3']) await mcs().create({ metadata: { name, labels: label }, spec: { hubAcceptsClient: false } });
  await Promise.race([watched, new Promise((_r, reject) => setTimeout(() => reject(new Error(`no count of 3 within 5 s: ${JSON.stringify(messages)}`)), 5000))]).finally(() => ac.abort());
  assert.deepEqual(messages, ['3 ManagedClusters selected'], 'one write for the three joins, no count of 1 or 2 in between');
});
