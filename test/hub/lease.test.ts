// Lease expiry, clock sync, taints and addon health against the embedded server. The hub runs on a
// manual clock: a lease's grace passes when the test advances it, so expiry is checked to the
// millisecond, without waiting it out.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ManagedClusterAddOn } from '../../src/api/addon.js';
import type { ManagedCluster } from '../../src/api/cluster.js';
import { rfc3339, rfc3339Micro } from '../../src/api/conditions.js';
import type { EventV1, Lease } from '../../src/api/core.js';
import { resourceTypes } from '../../src/client/index.js';
import { createManualClock } from '../../src/client/manual-clock.js';
import { waitFor } from '../helpers/wait-for.js';
import { startHubFixture, type HubFixture } from './hub-fixture.js';

const clock = createManualClock(Date.now());
let fx: HubFixture;
before(async () => {
  fx = await startHubFixture({ clock });
});
after(async () => fx?.stop());

const mcs = () => fx.admin.resource<ManagedCluster>(resourceTypes.managedClusters);
const cond = async (name: string, type: string) => (await mcs().get(name)).status?.conditions?.find((c) => c.type === type);
const leases = (ns: string) => fx.admin.resource<Lease>(resourceTypes.leases, ns);

async function acceptedCluster(name: string, leaseDurationSeconds: number): Promise<void> {
  await mcs().create({ metadata: { name }, spec: { hubAcceptsClient: true, leaseDurationSeconds } });
  await waitFor(async () => (await cond(name, 'HubAcceptedManagedCluster'))?.status === 'True', 5000);
  await waitFor(() => leases(name).get('managed-cluster-lease'), 5000);
}

async function renew(name: string, at: number): Promise<void> {
  const l = await leases(name).get('managed-cluster-lease');
  await leases(name).update({ ...l, spec: { ...l.spec, renewTime: rfc3339Micro(new Date(at)) } });
}

async function setAvailable(name: string, status: 'True' | 'False'): Promise<void> {
  const mc = await mcs().get(name);
  const others = (mc.status?.conditions ?? []).filter((c) => c.type !== 'ManagedClusterConditionAvailable');
  await mcs().patch(name, 'merge', { status: { conditions: [...others, { type: 'ManagedClusterConditionAvailable', status, reason: 'ManagedClusterAvailable', message: 'x', lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') }] } }, { subresource: 'status' });
}

let pokes = 0;
/**
 * Advances the hub's clock, then has the lease controller look at the cluster again: a look that
 * was under way during the advance computed its next wake-up from the old time.
 */
async function advanceAndLook(name: string, ms: number): Promise<void> {
  clock.advance(ms);
  await mcs().patch(name, 'merge', { metadata: { labels: { 'test.ocm-ts.io/look': String(++pokes) } } });
}

async function unknownCondition(name: string) {
  return waitFor(async () => {
    const x = await cond(name, 'ManagedClusterConditionAvailable');
    return x?.status === 'Unknown' ? x : undefined;
  }, 5000, { message: `${name} Available=Unknown` });
}

test('the lease controller creates the lease with OCM labels and holder', async () => {
  await acceptedCluster('l1', 60);
  const l = await leases('l1').get('managed-cluster-lease');
  assert.equal(l.metadata.labels?.['open-cluster-management.io/cluster-name'], 'l1');
  assert.equal(l.spec?.holderIdentity, 'managed-cluster-lease');
  assert.equal(l.spec?.renewTime, rfc3339Micro(new Date(clock.now())), 'renewed at creation, on the hub clock');
});

test('a stopped lease (leaseDurationSeconds 1) is flagged Unknown when its 5 s grace has passed, with the API event', async () => {
  await acceptedCluster('l2', 1);
  await setAvailable('l2', 'True');
  const renewedAt = clock.now();
  await renew('l2', renewedAt);
  await advanceAndLook('l2', 5000);
  const c = await unknownCondition('l2');
  assert.equal(c.lastTransitionTime, rfc3339(new Date(renewedAt + 5000)));
  assert.equal(c.reason, 'ManagedClusterLeaseUpdateStopped');
  assert.equal(c.message, 'Registration agent stopped updating its lease.');
  const event = await waitFor(async () => {
    const list = await fx.admin.resource<EventV1>(resourceTypes.eventsV1, 'l2').list();
    return list.items.find((e) => e.reason === 'AvailableUnknown');
  }, 5000);
  assert.equal(event.eventTime, rfc3339Micro(new Date(renewedAt + 5000)));
  assert.equal(event.type, 'Warning');
  assert.equal(event.reportingController, 'registration-controller');
  assert.equal(event.note, 'The l2 is successfully imported. However, the connection check from the managed cluster to the hub cluster has failed');
  // Unknown → unreachable taint
  await waitFor(async () => (await mcs().get('l2')).spec?.taints?.some((t) => t.key === 'cluster.open-cluster-management.io/unreachable'), 5000);
});

test('a lease kept renewed is not flagged; it is flagged only once the grace after its last renewal has passed', async () => {
  await acceptedCluster('l3', 1);
  await setAvailable('l3', 'True');
  // Renewed every 2 s for 8 s, well past one 5 s grace.
  for (let i = 0; i < 4; i++) {
    await renew('l3', clock.now());
    await advanceAndLook('l3', 2000);
  }
  const lastRenewal = clock.now();
  await renew('l3', lastRenewal);
  assert.equal((await cond('l3', 'ManagedClusterConditionAvailable'))?.status, 'True');
  await advanceAndLook('l3', 5000);
  // An earlier flag would have kept its earlier transition time (an Unknown cluster is not re-marked).
  assert.equal((await unknownCondition('l3')).lastTransitionTime, rfc3339(new Date(lastRenewal + 5000)));
});

test('clock sync: renewals far in the future are out of sync; the skip annotation forces True', async () => {
  await acceptedCluster('k1', 60);
  const reason = async (): Promise<string | undefined> => (await cond('k1', 'ManagedClusterConditionClockSynced'))?.reason;
  await renew('k1', clock.now() + 301_000);
  await waitFor(async () => (await reason()) === 'ManagedClusterClockOutOfSync', 5000);
  await renew('k1', clock.now() + 1000);
  await waitFor(async () => (await reason()) === 'ManagedClusterClockSynced', 5000);
  await renew('k1', clock.now() + 400_000);
  await waitFor(async () => (await reason()) === 'ManagedClusterClockOutOfSync', 5000);
  // With the annotation, a renewal still far in the future turns the condition back to True.
  await mcs().patch('k1', 'merge', { metadata: { annotations: { 'registration.open-cluster-management.io/skip-clock-sync-check': 'true' } } });
  await renew('k1', clock.now() + 500_000);
  await waitFor(async () => (await reason()) === 'ManagedClusterClockSynced', 5000);
});

test('taints follow Available: False → unavailable, True → none (user taints kept)', async () => {
  await acceptedCluster('t1', 60);
  await mcs().patch('t1', 'merge', { spec: { taints: [...((await mcs().get('t1')).spec?.taints ?? []), { key: 'example.com/mine', value: 'v', effect: 'PreferNoSelect' }] } });
  await setAvailable('t1', 'False');
  await waitFor(async () => {
    const keys = (await mcs().get('t1')).spec?.taints?.map((t) => t.key) ?? [];
    return keys.includes('cluster.open-cluster-management.io/unavailable') && !keys.includes('cluster.open-cluster-management.io/unreachable') && keys.includes('example.com/mine');
  }, 5000);
  await setAvailable('t1', 'True');
  await waitFor(async () => JSON.stringify((await mcs().get('t1')).spec?.taints?.map((t) => t.key)) === JSON.stringify(['example.com/mine']), 5000);
});

test('addons: feature labels from Available; cluster Unknown is copied onto addons', async () => {
  await acceptedCluster('a1', 1);
  await setAvailable('a1', 'True');
  const addons = fx.admin.resource<ManagedClusterAddOn>(resourceTypes.managedClusterAddOns, 'a1');
  await addons.create({ apiVersion: 'addon.open-cluster-management.io/v1beta1', kind: 'ManagedClusterAddOn', metadata: { name: 'demo', namespace: 'a1' }, spec: {} });
  await waitFor(async () => (await mcs().get('a1')).metadata.labels?.['feature.open-cluster-management.io/addon-demo'] === 'unreachable', 5000);
  const a = await addons.get('demo');
  await addons.patch('demo', 'merge', { status: { conditions: [{ type: 'Available', status: 'True', reason: 'ManagedClusterAddOnLeaseUpdated', message: 'ok', lastTransitionTime: '2026-01-01T00:00:00Z' }] } }, { subresource: 'status' });
  void a;
  await waitFor(async () => (await mcs().get('a1')).metadata.labels?.['feature.open-cluster-management.io/addon-demo'] === 'available', 5000);
  // lease stops → cluster Unknown → addon Unknown with the cluster's reason
  await advanceAndLook('a1', 5000);
  await waitFor(async () => (await addons.get('demo')).status?.conditions?.find((c) => c.type === 'Available')?.reason === 'ManagedClusterLeaseUpdateStopped', 5000);
  await waitFor(async () => (await mcs().get('a1')).metadata.labels?.['feature.open-cluster-management.io/addon-demo'] === 'unreachable', 5000);
  await addons.delete('demo');
  await waitFor(async () => (await mcs().get('a1')).metadata.labels?.['feature.open-cluster-management.io/addon-demo'] === undefined, 5000);
});
