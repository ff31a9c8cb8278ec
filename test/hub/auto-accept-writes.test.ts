// An auto-accepted cluster's finalizers arrive with its acceptance: the hub writes the cluster once
// for both its own api-resource-cleanup finalizer and the GC controller's resource-cleanup, instead
// of a write of each controller on the way to the certificate.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ManagedCluster } from '../../src/api/cluster.js';
import { resourceTypes } from '../../src/client/index.js';
import { startHubFixture, type HubFixture } from './hub-fixture.js';

const API_CLEANUP = 'cluster.open-cluster-management.io/api-resource-cleanup';
const GC_CLEANUP = 'cluster.open-cluster-management.io/resource-cleanup';
const ACCEPTED_ON = 'open-cluster-management.io/automatically-accepted-on';

let fx: HubFixture;
before(async () => {
  fx = await startHubFixture({ hub: { featureGates: ['ManagedClusterAutoApproval=true'] } });
});
after(async () => fx?.stop());

test('an auto-accepted cluster gets both cleanup finalizers in the write that accepts it, and in no other', async () => {
  const mcs = fx.admin.resource<ManagedCluster>(resourceTypes.managedClusters);
  const created = await mcs.create({ apiVersion: 'cluster.open-cluster-management.io/v1', kind: 'ManagedCluster', metadata: { name: 'auto1' }, spec: { hubAcceptsClient: false } });
  const ac = new AbortController();
  const seen: ManagedCluster[] = [created];
  try {
    const events = mcs.watch({ resourceVersion: created.metadata.resourceVersion ?? '0', fieldSelector: 'metadata.name=auto1', timeoutSeconds: 10, signal: ac.signal });
    for await (const ev of events) {
      if (ev.type !== 'MODIFIED') continue;
      seen.push(ev.object);
      if (ev.object.status?.conditions?.some((c) => c.type === 'HubAcceptedManagedCluster' && c.status === 'True')) break;
    }
  } finally {
    ac.abort();
  }
  assert.ok(seen.at(-1)!.status?.conditions?.some((c) => c.type === 'HubAcceptedManagedCluster' && c.status === 'True'), 'accepted within the watch');
  const finalizersOf = (c: ManagedCluster): string => (c.metadata.finalizers ?? []).join(',');
  const changes = seen.slice(1).filter((c, i) => finalizersOf(c) !== finalizersOf(seen[i]!));
  assert.equal(changes.length, 1, `finalizers changed in ${changes.length} writes: ${seen.map(finalizersOf).join(' | ')}`);
  assert.deepEqual(changes[0]!.metadata.finalizers, [API_CLEANUP, GC_CLEANUP]);
  assert.ok(changes[0]!.metadata.annotations?.[ACCEPTED_ON], 'the finalizers come with the acceptance');
  assert.equal(changes[0]!.spec?.hubAcceptsClient, true);
});
