// Addon lease controller H against real hub and spoke (spoke-agent.md §15.1, §18.9).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { setMaxListeners } from 'node:events';
import type { ManagedClusterAddOn } from '../../../src/api/addon.js';
import type { Lease } from '../../../src/api/core.js';
import { findCondition, rfc3339Micro } from '../../../src/api/conditions.js';
import { createInformerFactory } from '../../../src/client/informer-factory.js';
import { resourceTypes } from '../../../src/client/resource-types.js';
import { nullLogger } from '../../../src/util/logger.js';
import { createAddonLeaseController } from '../../../src/agent/addon/index.js';
import { ensureNamespace, startClusters, type Clusters } from './clusters.js';
import { waitFor } from '../../helpers/wait-for.js';

let env: Clusters;
const CLUSTER = 'addon-cluster';
before(async () => {
  env = await startClusters();
  await ensureNamespace(env.hubAdmin, CLUSTER);
  await ensureNamespace(env.spokeAdmin, 'open-cluster-management-agent-addon');
  await ensureNamespace(env.spokeAdmin, 'addon-ns');
});
after(async () => {
  await env?.stop();
});

async function createAddon(name: string, extra: Partial<ManagedClusterAddOn> = {}): Promise<void> {
  await env.hubAdmin.resource<ManagedClusterAddOn>(resourceTypes.managedClusterAddOns, CLUSTER).create({
    apiVersion: 'addon.open-cluster-management.io/v1beta1',
    kind: 'ManagedClusterAddOn',
    metadata: { name, namespace: CLUSTER, ...(extra.metadata ?? {}) },
    spec: {},
  });
  if (extra.status) {
    const a = await env.hubAdmin.resource<ManagedClusterAddOn>(resourceTypes.managedClusterAddOns, CLUSTER).get(name);
    a.status = extra.status;
    await env.hubAdmin.resource<ManagedClusterAddOn>(resourceTypes.managedClusterAddOns, CLUSTER).updateStatus(a);
  }
}

async function setLease(namespace: string, name: string, renewMs: number): Promise<void> {
  const leases = env.spokeAdmin.resource<Lease>(resourceTypes.leases, namespace);
  try {
    const l = await leases.get(name);
    l.spec = { ...l.spec, renewTime: rfc3339Micro(new Date(renewMs)) };
    await leases.update(l);
  } catch {
    await leases.create({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name, namespace }, spec: { renewTime: rfc3339Micro(new Date(renewMs)) } });
  }
}

async function available(name: string) {
  const a = await env.hubAdmin.resource<ManagedClusterAddOn>(resourceTypes.managedClusterAddOns, CLUSTER).get(name);
  return findCondition(a.status?.conditions, 'Available');
}

test('addon Available follows its lease: Unknown without lease, True when renewed, False when stale; Customized untouched', async () => {
  await createAddon('addon-a');
  await createAddon('addon-b', { status: { namespace: 'addon-ns' } });
  await createAddon('addon-custom', { status: { healthCheck: { mode: 'Customized' } } });
  await setLease('addon-ns', 'addon-b', Date.now());

  const ac = new AbortController();
  setMaxListeners(50, ac.signal);
  const hubInformers = createInformerFactory(env.hubAdmin);
  const c = createAddonLeaseController({ clusterName: CLUSTER, hubClient: env.hubAdmin, hubInformers, spokeClient: env.spokeAdmin, resyncMs: 200, gracePeriodMs: 1500, log: nullLogger() });
  hubInformers.start(ac.signal);
  const running = c.run(ac.signal);
  try {
    const a = await waitFor(() => available('addon-a'), 10_000);
    assert.deepEqual([a.status, a.reason, a.message], ['Unknown', 'ManagedClusterAddOnLeaseNotFound', 'The status of addon-a add-on is unknown.']);
    const b = await waitFor(async () => ((await available('addon-b'))?.status === 'True' ? available('addon-b') : undefined), 10_000);
    assert.deepEqual([b!.reason, b!.message], ['ManagedClusterAddOnLeaseUpdated', 'addon-b add-on is available.']);

    // addon-a's agent starts renewing in the default install namespace
    await setLease('open-cluster-management-agent-addon', 'addon-a', Date.now());
    await waitFor(async () => (await available('addon-a'))?.status === 'True', 10_000);

    // addon-b stops renewing: False after the grace period
    const f = await waitFor(async () => ((await available('addon-b'))?.status === 'False' ? available('addon-b') : undefined), 10_000);
    assert.deepEqual([f!.reason, f!.message], ['ManagedClusterAddOnLeaseUpdateStopped', 'addon-b add-on is not available.']);

    assert.equal(await available('addon-custom'), undefined, 'Customized health check is left alone');
  } finally {
    ac.abort();
    await running;
  }
});

test('a hosted addon reads its lease on the management cluster and names the hosting cluster when missing', async () => {
  await createAddon('hosted', { metadata: { name: 'hosted', annotations: { 'addon.open-cluster-management.io/hosting-cluster-name': 'mgmt-cluster' } } });
  const ac = new AbortController();
  setMaxListeners(50, ac.signal);
  const hubInformers = createInformerFactory(env.hubAdmin);
  // management cluster = the hub server here; spoke = the spoke server
  const c = createAddonLeaseController({ clusterName: CLUSTER, hubClient: env.hubAdmin, hubInformers, spokeClient: env.spokeAdmin, managementClient: env.hubAdmin, resyncMs: 200, log: nullLogger() });
  hubInformers.start(ac.signal);
  const running = c.run(ac.signal);
  try {
    // a lease on the spoke does not count for a hosted addon
    await setLease('open-cluster-management-agent-addon', 'hosted', Date.now());
    const u = await waitFor(() => available('hosted'), 10_000);
    assert.equal(u.status, 'Unknown');
    assert.equal(u.message, 'The status of hosted add-on is unknown. No lease found on hosting cluster "mgmt-cluster"; verify it matches the cluster where this managed cluster\'s klusterlet actually runs.');
    await ensureNamespace(env.hubAdmin, 'open-cluster-management-agent-addon');
    await env.hubAdmin.resource<Lease>(resourceTypes.leases, 'open-cluster-management-agent-addon').create({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'hosted', namespace: 'open-cluster-management-agent-addon' },
      spec: { renewTime: rfc3339Micro(new Date()) },
    });
    await waitFor(async () => (await available('hosted'))?.status === 'True', 10_000);
  } finally {
    ac.abort();
    await running;
  }
});
