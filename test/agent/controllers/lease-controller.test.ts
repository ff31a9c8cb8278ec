// Lease controller F against a real hub (spoke-agent.md §13, §18.7): renewals only while accepted,
// at spec.leaseDurationSeconds, picking up duration changes.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { setMaxListeners } from 'node:events';
import type { ManagedCluster } from '../../../src/api/cluster.js';
import type { Lease } from '../../../src/api/core.js';
import { createInformerFactory } from '../../../src/client/informer-factory.js';
import { resourceTypes } from '../../../src/client/resource-types.js';
import { nullLogger } from '../../../src/util/logger.js';
import { createLeaseController } from '../../../src/agent/lease/index.js';
import { createAcceptedCluster, createClusterLease, patchConditions, startClusters, type Clusters } from './clusters.js';
import { waitFor } from '../../helpers/wait-for.js';

let env: Clusters;
before(async () => {
  env = await startClusters({ spoke: false });
});
after(async () => {
  await env?.stop();
});

test('renewTime advances at the lease duration while accepted, and stops when not accepted', async () => {
  const name = 'lease1';
  await createAcceptedCluster(env.hubAdmin, name, { leaseDurationSeconds: 1 });
  await createClusterLease(env.hubAdmin, name);
  const leases = env.hubAdmin.resource<Lease>(resourceTypes.leases, name);
  const renewals: { at: number; renewTime: string }[] = [];
  let last = '';
  const ac = new AbortController();
  setMaxListeners(50, ac.signal);
  const poll = setInterval(() => {
    void leases.get('managed-cluster-lease').then((l) => {
      const t = l.spec?.renewTime ?? '';
      if (t !== last) {
        last = t;
        renewals.push({ at: Date.now(), renewTime: t });
      }
    }, () => {});
  }, 25);
  const hubInformers = createInformerFactory(env.hubAdmin);
  const c = createLeaseController({ clusterName: name, hubClient: env.hubAdmin, hubInformers, log: nullLogger(), random: () => 0 });
  hubInformers.start(ac.signal);
  const running = c.run(ac.signal);
  try {
    // initial value + at least 3 renewals
    await waitFor(() => renewals.length >= 4, 10_000);
    assert.match(renewals[1]!.renewTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    const gaps = renewals.slice(2).map((r, i) => r.at - renewals[i + 1]!.at);
    for (const g of gaps) assert.ok(g >= 800 && g <= 1700, `renewal gap ${g} ms for a 1 s lease`);
    assert.ok(Date.parse(renewals.at(-1)!.renewTime) > Date.parse(renewals[1]!.renewTime));

    // duration change is picked up: 2 s
    const clusters = env.hubAdmin.resource<ManagedCluster>(resourceTypes.managedClusters);
    const mc = await clusters.get(name);
    mc.spec = { ...mc.spec!, leaseDurationSeconds: 2 };
    await clusters.update(mc);
    await waitFor(() => c.updater.running(), 2000);
    const mark = renewals.length;
    await waitFor(() => renewals.length >= mark + 3, 10_000);
    const gaps2 = renewals.slice(mark + 1).map((r, i) => r.at - renewals[mark + i]!.at);
    for (const g of gaps2) assert.ok(g >= 1800 && g <= 2700, `renewal gap ${g} ms for a 2 s lease`);

    // not accepted any more: renewals stop
    await patchConditions(env.hubAdmin, name, [{ type: 'HubAcceptedManagedCluster', status: 'False', reason: 'HubClusterAdminDenied', message: 'Denied by hub cluster admin', lastTransitionTime: '2026-01-01T00:00:00Z' }]);
    await waitFor(() => !c.updater.running(), 5000);
    await new Promise((r) => setTimeout(r, 100));
    const stopped = renewals.length;
    await new Promise((r) => setTimeout(r, 2500));
    assert.equal(renewals.length, stopped, 'no renewals while not accepted');
  } finally {
    clearInterval(poll);
    ac.abort();
    await running;
  }
});

test('a cluster that was never accepted never renews', async () => {
  const name = 'lease2';
  await env.hubAdmin.resource<ManagedCluster>(resourceTypes.managedClusters).create({ apiVersion: 'cluster.open-cluster-management.io/v1', kind: 'ManagedCluster', metadata: { name }, spec: { hubAcceptsClient: true, leaseDurationSeconds: 1 } });
  const lease = await createClusterLease(env.hubAdmin, name);
  const ac = new AbortController();
  const hubInformers = createInformerFactory(env.hubAdmin);
  const c = createLeaseController({ clusterName: name, hubClient: env.hubAdmin, hubInformers, log: nullLogger() });
  hubInformers.start(ac.signal);
  const running = c.run(ac.signal);
  await new Promise((r) => setTimeout(r, 1500));
  const now = await env.hubAdmin.resource<Lease>(resourceTypes.leases, name).get('managed-cluster-lease');
  assert.equal(now.metadata.resourceVersion, lease.metadata.resourceVersion);
  assert.equal(c.updater.running(), false);
  ac.abort();
  await running;
});
