// The agent's lease controller against a real hub, on a manual clock: renewals only while the
// cluster is accepted, every spec.leaseDurationSeconds, picking up duration changes. The renewTime
// the agent writes is the manual clock's time, so each renewal is identified exactly.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ManagedCluster } from '../../../src/api/cluster.js';
import { rfc3339Micro } from '../../../src/api/conditions.js';
import type { Lease } from '../../../src/api/core.js';
import { createInformerFactory } from '../../../src/client/informer-factory.js';
import { createManualClock, type ManualClock } from '../../../src/client/manual-clock.js';
import { resourceTypes } from '../../../src/client/resource-types.js';
import { createLeaseController, LEASE_CONTROLLER_NAME, type LeaseController } from '../../../src/agent/lease/index.js';
import { createAcceptedCluster, createClusterLease, patchConditions, startClusters, type Clusters } from './clusters.js';
import { captureLog, type CapturedLog } from '../../helpers/test-log.js';
import { waitFor } from '../../helpers/wait-for.js';

let env: Clusters;
before(async () => {
  env = await startClusters({ spoke: false });
});
after(async () => {
  await env?.stop();
});

interface Running {
  c: LeaseController;
  clock: ManualClock;
  logs: CapturedLog;
  stop(): Promise<void>;
}

function startLeaseController(name: string): Running {
  const clock = createManualClock();
  const logs = captureLog();
  const ac = new AbortController();
  const hubInformers = createInformerFactory(env.hubAdmin);
  const c = createLeaseController({ clusterName: name, hubClient: env.hubAdmin, hubInformers, log: logs.log, clock, random: () => 0 });
  hubInformers.start(ac.signal);
  const running = c.run(ac.signal);
  return {
    c,
    clock,
    logs,
    async stop() {
      ac.abort();
      await running;
    },
  };
}

const leaseOf = (name: string): Promise<Lease> => env.hubAdmin.resource<Lease>(resourceTypes.leases, name).get('managed-cluster-lease');

/** The renewal stamped `atMs` reached the hub, and the updater waits `nextInMs` for the next one. */
async function renewed(name: string, clock: ManualClock, atMs: number, nextInMs: number): Promise<void> {
  const want = rfc3339Micro(new Date(atMs));
  await waitFor(async () => (await leaseOf(name)).spec?.renewTime === want, 5000, { message: `renewal at ${want}` });
  await waitFor(() => clock.pending() === 1 && clock.nextDue() === atMs + nextInMs, 5000, { message: `next renewal in ${nextInMs} ms` });
}

test('renewTime advances at the lease duration while accepted, and stops when not accepted', async () => {
  const name = 'lease1';
  await createAcceptedCluster(env.hubAdmin, name, { leaseDurationSeconds: 1 });
  await createClusterLease(env.hubAdmin, name);
  const r = startLeaseController(name);
  const { clock } = r;
  try {
    // at once, then every second
    const t0 = clock.now();
    await renewed(name, clock, t0, 1000);
    assert.match((await leaseOf(name)).spec?.renewTime ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    for (let i = 1; i <= 3; i++) {
      clock.advance(1000);
      await renewed(name, clock, t0 + i * 1000, 1000);
    }

    // a duration change restarts the updater: a renewal at once, then every 2 s
    clock.advance(500);
    const clusters = env.hubAdmin.resource<ManagedCluster>(resourceTypes.managedClusters);
    const mc = await clusters.get(name);
    mc.spec = { ...mc.spec!, leaseDurationSeconds: 2 };
    await clusters.update(mc);
    const t1 = t0 + 3500;
    await renewed(name, clock, t1, 2000);
    clock.advance(2000);
    await renewed(name, clock, t1 + 2000, 2000);

    // not accepted any more: no renewal is scheduled, and three lease durations pass without one
    await patchConditions(env.hubAdmin, name, [{ type: 'HubAcceptedManagedCluster', status: 'False', reason: 'HubClusterAdminDenied', message: 'Denied by hub cluster admin', lastTransitionTime: '2026-01-01T00:00:00Z' }]);
    await waitFor(() => !r.c.updater.running(), 5000, { message: 'updater stopped' });
    const rv = (await leaseOf(name)).metadata.resourceVersion;
    assert.equal(clock.pending(), 0, 'no renewal scheduled');
    clock.advance(3 * 2000);
    const after = await leaseOf(name);
    assert.equal(after.spec?.renewTime, rfc3339Micro(new Date(t1 + 2000)));
    assert.equal(after.metadata.resourceVersion, rv, 'no renewal while not accepted');
  } finally {
    await r.stop();
  }
});

test('a cluster that was never accepted never renews', async () => {
  const name = 'lease2';
  await env.hubAdmin.resource<ManagedCluster>(resourceTypes.managedClusters).create({ apiVersion: 'cluster.open-cluster-management.io/v1', kind: 'ManagedCluster', metadata: { name }, spec: { hubAcceptsClient: true, leaseDurationSeconds: 1 } });
  const lease = await createClusterLease(env.hubAdmin, name);
  const r = startLeaseController(name);
  try {
    // The controller has decided about this cluster: had it started the updater, the first
    // renewal would be under way now.
    await waitFor(() => r.logs.reconciles(LEASE_CONTROLLER_NAME) >= 1, 5000, { message: 'a lease controller run' });
    assert.equal(r.c.updater.running(), false);
    assert.equal(r.clock.pending(), 0, 'no renewal scheduled');
    r.clock.advance(3 * 1000);
    assert.equal((await leaseOf(name)).metadata.resourceVersion, lease.metadata.resourceVersion);
  } finally {
    await r.stop();
  }
});
