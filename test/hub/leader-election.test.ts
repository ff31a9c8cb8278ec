// Two hub replicas in one process against the embedded server, with short leader election timings:
// exactly one runs the controllers, the other waits (healthy) and takes over once the leader dies.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:https';
import type { TLSSocket } from 'node:tls';
import type { ManagedCluster } from '../../src/api/cluster.js';
import type { Lease } from '../../src/api/core.js';
import { resourceTypes } from '../../src/client/index.js';
import { startHubManager, type HubManager } from '../../src/hub/hub-manager.js';
import { waitFor } from '../helpers/wait-for.js';
import { FAST_TIMINGS, startHubFixture, type HubFixture } from './hub-fixture.js';

const NS = 'open-cluster-management-hub';
let fx: HubFixture;
before(async () => {
  fx = await startHubFixture({ hub: false });
  await fx.admin.resource(resourceTypes.namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
});
after(async () => fx?.stop());

interface Replica {
  manager: HubManager;
  stop: AbortController;
}

async function replica(identity: string): Promise<Replica> {
  const stop = new AbortController();
  const manager = await startHubManager({
    kubeconfigPath: fx.server.adminKubeconfigPath,
    options: { timings: FAST_TIMINGS },
    log: fx.logs.log,
    signal: stop.signal,
    listen: '127.0.0.1:0',
    tls: { minVersion: 'TLSv1.2' },
    // A crashed leader does not hand over: the other replica waits out the lease.
    leaderElection: { namespace: NS, name: 'registration-controller-lock', identity, leaseDurationMs: 2000, renewDeadlineMs: 1500, retryPeriodMs: 200, releaseOnCancel: false },
  });
  return { manager, stop };
}

function healthz(url: string): Promise<{ status: number; protocol: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/healthz`, { rejectUnauthorized: false }, (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0, protocol: (res.socket as TLSSocket).getProtocol() ?? '' });
    });
    req.on('error', reject);
    req.end();
  });
}

const tainted = async (name: string) => ((await fx.admin.resource<ManagedCluster>(resourceTypes.managedClusters).get(name)).spec?.taints ?? []).length > 0;

test('one replica leads and runs the controllers; the other takes over when the leader dies', async () => {
  const a = await replica('replica-a');
  const b = await replica('replica-b');
  try {
    const leaderOf = () => [a, b].filter((r) => r.manager.isLeader() && r.manager.controllers.length > 0);
    const [leader] = await waitFor(() => (leaderOf().length === 1 ? leaderOf() : undefined), 10_000, { message: 'one leader' });
    const standby = leader === a ? b : a;
    assert.equal(standby.manager.isLeader(), false);
    assert.deepEqual(standby.manager.controllers, []);
    const lease = await fx.admin.resource<Lease>(resourceTypes.leases, NS).get('registration-controller-lock');
    assert.equal(lease.spec?.holderIdentity, leader === a ? 'replica-a' : 'replica-b');
    // both serve health over HTTPS; the waiting replica is alive, not failing its probe
    for (const r of [a, b]) {
      assert.match(r.manager.metricsUrl ?? '', /^https:\/\/127\.0\.0\.1:\d+$/);
      const h = await healthz(r.manager.metricsUrl!);
      assert.equal(h.status, 200);
      assert.match(h.protocol, /^TLSv1\.[23]$/);
    }
    // the leader's controllers work; the standby sends nothing but lease requests
    await fx.admin.resource<ManagedCluster>(resourceTypes.managedClusters).create({ metadata: { name: 'le1' }, spec: { hubAcceptsClient: false } });
    await waitFor(() => tainted('le1'), 10_000, { message: 'leader taints the new cluster' });
    assert.deepEqual([...standby.manager.requestCounts().keys()].filter((k) => !k.endsWith(' leases')), []);

    // the leader dies without handing over: the standby takes the lease once it expires
    leader!.stop.abort();
    await leader!.manager.done;
    await waitFor(() => standby.manager.isLeader() && standby.manager.controllers.length > 0, 10_000, { message: 'standby took over' });
    const after = await fx.admin.resource<Lease>(resourceTypes.leases, NS).get('registration-controller-lock');
    assert.equal(after.spec?.holderIdentity, standby === a ? 'replica-a' : 'replica-b');
    await fx.admin.resource<ManagedCluster>(resourceTypes.managedClusters).create({ metadata: { name: 'le2' }, spec: { hubAcceptsClient: false } });
    await waitFor(() => tainted('le2'), 10_000, { message: 'new leader taints the new cluster' });
  } finally {
    a.stop.abort();
    b.stop.abort();
    await Promise.all([a.manager.done, b.manager.done]);
  }
});
