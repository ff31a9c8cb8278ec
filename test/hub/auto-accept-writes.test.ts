// What the hub's controllers write to a new auto-accepted cluster arrives with its acceptance: the
// hub writes the cluster once for its own api-resource-cleanup finalizer, the GC controller's
// resource-cleanup and the unreachable taint, instead of a write of each controller on the way to
// the certificate.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ManagedCluster } from '../../src/api/cluster.js';
import { resourceTypes } from '../../src/client/index.js';
import { startHubFixture, type HubFixture } from './hub-fixture.js';

const API_CLEANUP = 'cluster.open-cluster-management.io/api-resource-cleanup';
const GC_CLEANUP = 'cluster.open-cluster-management.io/resource-cleanup';
const ACCEPTED_ON = 'open-cluster-management.io/automatically-accepted-on';
const UNREACHABLE = 'cluster.open-cluster-management.io/unreachable';

let fx: HubFixture;
before(async () => {
  fx = await startHubFixture({ hub: { featureGates: ['ManagedClusterAutoApproval=true'] } });
});
after(async () => fx?.stop());

test('an auto-accepted cluster gets both cleanup finalizers and the unreachable taint in the write that accepts it, and in no other', async () => {
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
  const taintsOf = (c: ManagedCluster): string => (c.spec?.taints ?? []).map((t) => `${t.key}:${t.effect}`).join(',');
  for (const [what, of] of [['finalizers', finalizersOf], ['taints', taintsOf]] as const) {
    const changes = seen.slice(1).filter((c, i) => of(c) !== of(seen[i]!));
    assert.equal(changes.length, 1, `${what} changed in ${changes.length} writes: ${seen.map(of).join(' | ')}`);
    assert.ok(changes[0]!.metadata.annotations?.[ACCEPTED_ON], `the ${what} come with the acceptance`);
    assert.equal(changes[0]!.spec?.hubAcceptsClient, true);
  }
  const accepting = seen.find((c) => c.metadata.annotations?.[ACCEPTED_ON])!;
  assert.deepEqual(accepting.metadata.finalizers, [API_CLEANUP, GC_CLEANUP]);
  assert.deepEqual(accepting.spec?.taints?.map((t) => [t.key, t.effect, typeof t.timeAdded]), [[UNREACHABLE, 'NoSelect', 'string']]);
});
