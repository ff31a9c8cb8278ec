// The agent's status controller against real hub and spoke servers: Joined, Available, version,
// capacity, claims, managed namespaces, hub events, and no writes before acceptance or while the
// clock is out of sync.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ManagedCluster } from '../../../src/api/cluster.js';
import type { EventV1, Namespace, Node } from '../../../src/api/core.js';
import { findCondition } from '../../../src/api/conditions.js';
import { resourceTypes } from '../../../src/client/resource-types.js';
import type { KubeClient } from '../../../src/client/types.js';
import { createManualClock } from '../../../src/client/manual-clock.js';
import { hubClusterSetLabel, hubHash } from '../../../src/agent/managedcluster/index.js';
import { createAcceptedCluster, ensureNamespace, patchConditions, startClusters, type Clusters } from './clusters.js';
import { startStatusController as startStatus, type RunningStatusController, type StatusControllerOverrides } from './status-fixture.js';
import { waitFor } from '../../helpers/wait-for.js';

let env: Clusters;
const BOOTSTRAP_URL = 'https://hub.example.com:6443';
const HUB_LABEL = hubClusterSetLabel(hubHash(BOOTSTRAP_URL));

before(async () => {
  env = await startClusters();
  await createNode(env.spokeAdmin, 'node1', { cpu: '32', memory: '64Mi', pods: '110' }, { cpu: '16', memory: '32Mi', pods: '110' });
  await createNode(env.spokeAdmin, 'node2', { cpu: '32', memory: '64Mi', pods: '110' }, { cpu: '16', memory: '32Mi', pods: '110' }, true);
});
after(async () => {
  await env?.stop();
});

async function createNode(client: KubeClient, name: string, capacity: Record<string, string>, allocatable: Record<string, string>, unschedulable = false): Promise<void> {
  const nodes = client.resource<Node>(resourceTypes.nodes);
  const created = await nodes.create({ apiVersion: 'v1', kind: 'Node', metadata: { name }, spec: unschedulable ? { unschedulable: true } : {} });
  created.status = { capacity, allocatable };
  await nodes.updateStatus(created);
}

const startStatusController = (name: string, over: StatusControllerOverrides = {}): RunningStatusController =>
  startStatus(env, name, { bootstrapServerUrl: BOOTSTRAP_URL, ...over });

async function getCluster(name: string): Promise<ManagedCluster> {
  return env.hubAdmin.resource<ManagedCluster>(resourceTypes.managedClusters).get(name);
}

async function events(cluster: string): Promise<EventV1[]> {
  return (await env.hubAdmin.resource<EventV1>(resourceTypes.eventsV1, cluster).list()).items;
}

test('an unaccepted cluster gets no status', async () => {
  const clusters = env.hubAdmin.resource<ManagedCluster>(resourceTypes.managedClusters);
  await clusters.create({ apiVersion: 'cluster.open-cluster-management.io/v1', kind: 'ManagedCluster', metadata: { name: 'unaccepted' }, spec: { hubAcceptsClient: false } });
  const rv = (await getCluster('unaccepted')).metadata.resourceVersion;
  // On a manual clock: the first run, then three resyncs, each advanced to at once.
  const clock = createManualClock();
  const r = startStatusController('unaccepted', { clock });
  await r.runs(1);
  for (let i = 0; i < 3; i++) {
    const runs = r.runs(1);
    clock.advance(200);
    await runs;
  }
  await r.stop();
  const mc = await getCluster('unaccepted');
  assert.equal(mc.metadata.resourceVersion, rv);
  assert.equal(mc.status?.conditions, undefined);
});

test('accepted cluster: Joined, Available, version, capacity, allocatable, claims and one Available event', async () => {
  const name = 'status-full';
  await ensureNamespace(env.hubAdmin, name);
  await createAcceptedCluster(env.hubAdmin, name);
  const claims = env.spokeAdmin.resource(resourceTypes.clusterClaims);
  await claims.create({ apiVersion: 'cluster.open-cluster-management.io/v1alpha1', kind: 'ClusterClaim', metadata: { name: 'id.k8s.io' }, spec: { value: 'abc' } });
  for (const n of ['c', 'a', 'b']) await claims.create({ apiVersion: 'cluster.open-cluster-management.io/v1alpha1', kind: 'ClusterClaim', metadata: { name: n }, spec: { value: n + '-claim' } });
  await claims.create({ apiVersion: 'cluster.open-cluster-management.io/v1alpha1', kind: 'ClusterClaim', metadata: { name: 'hidden', labels: { 'open-cluster-management.io/spoke-only': '' } }, spec: { value: 'x' } });
  await env.spokeAdmin.resource(resourceTypes.clusterProperties).create({ apiVersion: 'about.k8s.io/v1alpha1', kind: 'ClusterProperty', metadata: { name: 'a' }, spec: { value: 'a-property' } });

  const r = startStatusController(name, { maxCustomClusterClaims: 2 });
  try {
    const mc = await waitFor(async () => {
      const m = await getCluster(name);
      return m.status?.clusterClaims?.length ? m : undefined;
    }, 10_000);
    const joined = findCondition(mc.status?.conditions, 'ManagedClusterJoined');
    assert.deepEqual([joined?.status, joined?.reason, joined?.message], ['True', 'ManagedClusterJoined', 'Managed cluster joined']);
    const avail = findCondition(mc.status?.conditions, 'ManagedClusterConditionAvailable');
    assert.deepEqual([avail?.status, avail?.reason], ['True', 'ManagedClusterAvailable']);
    assert.match(mc.status?.version?.kubernetes ?? '', /^v\d+\.\d+/);
    assert.deepEqual(mc.status?.capacity, { cpu: '64', memory: '128Mi', pods: '220' });
    assert.deepEqual(mc.status?.allocatable, { cpu: '16', memory: '32Mi', pods: '110' }, 'unschedulable node2 is excluded');
    assert.deepEqual(mc.status?.clusterClaims, [
      { name: 'id.k8s.io', value: 'abc' },
      { name: 'a', value: 'a-property' },
      { name: 'b', value: 'b-claim' },
    ]);
    const evs = await waitFor(async () => {
      const e = await events(name);
      return e.length > 0 ? e : undefined;
    });
    await r.runs(3); // several resyncs later: still one event
    const all = await events(name);
    assert.equal(all.length, 1, JSON.stringify(all.map((e) => e.reason)));
    const ev = evs[0]!;
    assert.equal(ev.reason, 'Available');
    assert.equal(ev.action, 'Available');
    assert.equal(ev.type, 'Normal');
    assert.equal(ev.note, `The ${name} is successfully imported, and it is managed by the hub cluster. Its apieserver is available`);
    assert.equal(ev.reportingController, 'klusterlet-agent');
    assert.equal(ev.reportingInstance, 'klusterlet-agent-testhost');
    assert.equal(ev.regarding?.kind, 'ManagedCluster');
    assert.equal(ev.regarding?.name, name);
    assert.equal(ev.regarding?.namespace, name);
    assert.match(ev.metadata.name ?? '', new RegExp(`^${name}\\.[0-9a-f]+$`));

    // foreign capacity keys survive; an unschedulable node becoming schedulable adds allocatable
    const cur = await getCluster(name);
    cur.status!.capacity = { ...cur.status!.capacity, sockets: '2' };
    await env.hubAdmin.resource<ManagedCluster>(resourceTypes.managedClusters).updateStatus(cur);
    const nodes = env.spokeAdmin.resource<Node>(resourceTypes.nodes);
    const n2 = await nodes.get('node2');
    n2.spec = { ...n2.spec, unschedulable: false };
    await nodes.update(n2);
    const mc2 = await waitFor(async () => {
      const m = await getCluster(name);
      return m.status?.allocatable?.['cpu'] === '32' ? m : undefined;
    }, 10_000);
    assert.deepEqual(mc2.status?.capacity, { cpu: '64', memory: '128Mi', pods: '220', sockets: '2' });
    assert.deepEqual(mc2.status?.allocatable, { cpu: '32', memory: '64Mi', pods: '220' });
    n2.spec = { ...n2.spec, unschedulable: true };
    delete n2.metadata.resourceVersion;
    await nodes.update(n2);
    await waitFor(async () => (await getCluster(name)).status?.allocatable?.['cpu'] === '16', 10_000);
  } finally {
    await r.stop();
  }
});

test('managed namespaces are labelled on the spoke, and unlabelled ("false") when no longer managed', async () => {
  const name = 'status-ns';
  await createAcceptedCluster(env.hubAdmin, name);
  const clusters = env.hubAdmin.resource<ManagedCluster>(resourceTypes.managedClusters);
  let mc = await getCluster(name);
  mc.status = { ...mc.status, managedNamespaces: [{ name: 'team-a', clusterSet: 'set1' }, { name: 'team-b', clusterSet: 'set1' }] };
  await clusters.updateStatus(mc);
  const r = startStatusController(name);
  const spokeNs = env.spokeAdmin.resource<Namespace>(resourceTypes.namespaces);
  try {
    mc = await waitFor(async () => {
      const m = await getCluster(name);
      const ok = m.status?.managedNamespaces?.every((e) => findCondition(e.conditions, 'NamespaceAvailable')?.status === 'True');
      return ok ? m : undefined;
    }, 10_000);
    const cond = findCondition(mc.status?.managedNamespaces?.[0]?.conditions, 'NamespaceAvailable');
    assert.deepEqual([cond?.reason, cond?.message], ['NamespaceApplied', 'Namespace successfully applied and managed']);
    assert.equal((await spokeNs.get('team-a')).metadata.labels?.[HUB_LABEL], 'true');
    assert.equal((await spokeNs.get('team-b')).metadata.labels?.[HUB_LABEL], 'true');

    mc.status = { ...mc.status, managedNamespaces: [mc.status!.managedNamespaces![0]!] };
    await clusters.updateStatus(mc);
    await waitFor(async () => (await spokeNs.get('team-b')).metadata.labels?.[HUB_LABEL] === 'false', 10_000);
    assert.equal((await spokeNs.get('team-a')).metadata.labels?.[HUB_LABEL], 'true');
  } finally {
    await r.stop();
  }
});

test('no status patch while ManagedClusterConditionClockSynced is False', async () => {
  const name = 'status-clock';
  await createAcceptedCluster(env.hubAdmin, name, {}, [
    { type: 'ManagedClusterConditionClockSynced', status: 'False', reason: 'ManagedClusterClockOutOfSync', message: 'out of sync', lastTransitionTime: '2026-01-01T00:00:00Z' },
  ]);
  const rv = (await getCluster(name)).metadata.resourceVersion;
  const r = startStatusController(name);
  try {
    await r.runs(3);
    const mc = await getCluster(name);
    assert.equal(mc.metadata.resourceVersion, rv);
    assert.equal(findCondition(mc.status?.conditions, 'ManagedClusterJoined'), undefined);
    // the hub marks the clock synced: the agent catches up
    await patchConditions(env.hubAdmin, name, [{ type: 'ManagedClusterConditionClockSynced', status: 'True', reason: 'ManagedClusterClockSynced', message: 'ok', lastTransitionTime: '2026-01-01T00:00:00Z' }]);
    await waitFor(async () => findCondition((await getCluster(name)).status?.conditions, 'ManagedClusterJoined')?.status === 'True', 10_000);
  } finally {
    await r.stop();
  }
});
