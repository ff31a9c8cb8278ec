import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ManagedCluster } from '../../api/cluster.js';
import { ApiStatusError } from '../../client/errors.js';
import { resourceTypes } from '../../client/resource-types.js';
import { conflictStatus, createStaleWriteGuard, type ObjectRef } from '../../client/stale-writes.js';
import type { KubeClient, ResourceClient } from '../../client/types.js';
import { addFinalizer, writeNewest } from './writes.js';

const ref: ObjectRef = { path: '/apis/cluster.open-cluster-management.io/v1/managedclusters/c1', name: 'c1', group: 'cluster.open-cluster-management.io', resource: 'managedclusters' };

/** One stored cluster behind a client's write guard: a write guarded by another version gets a 409. */
function fakeHub() {
  const guard = createStaleWriteGuard();
  let stored: ManagedCluster = { apiVersion: 'cluster.open-cluster-management.io/v1', kind: 'ManagedCluster', metadata: { name: 'c1', resourceVersion: '1' }, spec: { hubAcceptsClient: true } };
  const sent: string[] = [];
  return {
    sent,
    stored: () => stored,
    client: { newest: (_type: unknown, o: unknown) => guard.newest(ref.path, o) } as unknown as KubeClient,
    /** A write from `base`, guarded by its version, as a controller's patch is. */
    write: (label: string, base: ManagedCluster, change: (c: ManagedCluster) => ManagedCluster) =>
      guard.run(ref, base.metadata.resourceVersion, async () => {
        sent.push(`${label}@${base.metadata.resourceVersion ?? ''}`);
        await new Promise((r) => setImmediate(r));
        if (base.metadata.resourceVersion !== stored.metadata.resourceVersion) throw new ApiStatusError(conflictStatus(ref));
        stored = { ...change(base), metadata: { ...change(base).metadata, resourceVersion: String(Number(stored.metadata.resourceVersion) + 1) } };
        return structuredClone(stored);
      }),
    /** Another writer (an agent) changes the object behind the client's back. */
    external: () => {
      stored = { ...stored, metadata: { ...stored.metadata, resourceVersion: String(Number(stored.metadata.resourceVersion) + 1) } };
    },
  };
}

test('controllers writing one cluster at once: the losers write again against the copy the winner got, each change kept', async () => {
  const hub = fakeHub();
  const cached = structuredClone(hub.stored());
  hub.client.newest?.(resourceTypes.managedClusters, cached);
  const addFinalizer = (c: ManagedCluster): ManagedCluster => ({ ...c, metadata: { ...c.metadata, finalizers: [...(c.metadata.finalizers ?? []), 'gc'] } });
  const taint = (c: ManagedCluster): ManagedCluster => ({ ...c, spec: { hubAcceptsClient: true, ...c.spec, taints: [{ key: 'unreachable', effect: 'NoSelect' }] } });
  const label = (c: ManagedCluster): ManagedCluster => ({ ...c, metadata: { ...c.metadata, labels: { a: 'b' } } });
  await Promise.all([
    writeNewest(hub.client, resourceTypes.managedClusters, cached, (c) => hub.write('gc', c, addFinalizer)),
    writeNewest(hub.client, resourceTypes.managedClusters, cached, (c) => hub.write('taint', c, taint)),
    writeNewest(hub.client, resourceTypes.managedClusters, cached, (c) => hub.write('label', c, label)),
  ]);
  assert.deepEqual(hub.stored().metadata.finalizers, ['gc']);
  assert.deepEqual(hub.stored().spec?.taints, [{ key: 'unreachable', effect: 'NoSelect' }]);
  assert.deepEqual(hub.stored().metadata.labels, { a: 'b' });
  // The losers were refused by the client itself and never sent a stale write.
  assert.deepEqual(hub.sent, ['gc@1', 'taint@2', 'label@3']);
  // A later reader holding the first cached copy is handed the newest.
  assert.equal(hub.client.newest?.(resourceTypes.managedClusters, cached).metadata.resourceVersion, '4');
});

test('a conflict with another writer is thrown as it is, after one attempt', async () => {
  const hub = fakeHub();
  const cached = structuredClone(hub.stored());
  hub.external();
  await assert.rejects(
    writeNewest(hub.client, resourceTypes.managedClusters, cached, (c) => hub.write('taint', c, (x) => x)),
    (err: unknown) => err instanceof ApiStatusError && err.code === 409,
  );
  assert.deepEqual(hub.sent, ['taint@1']);
});

test('a write that keeps losing gives up after five attempts', async () => {
  const hub = fakeHub();
  hub.client.newest?.(resourceTypes.managedClusters, hub.stored());
  let attempts = 0;
  await assert.rejects(
    writeNewest(hub.client, resourceTypes.managedClusters, structuredClone(hub.stored()), async (c) => {
      attempts++;
      // Another controller of the hub wins every time just before.
      await hub.write('other', hub.client.newest?.(resourceTypes.managedClusters, c) ?? c, (x) => x);
      return hub.write('loser', c, (x) => x);
    }),
    (err: unknown) => err instanceof ApiStatusError && err.code === 409,
  );
  assert.equal(attempts, 5);
});

test('addFinalizer sends nothing for an object being deleted, which takes no new finalizer', async () => {
  const sent: unknown[] = [];
  const rc = { patch: async (...args: unknown[]) => (sent.push(args), undefined) } as unknown as ResourceClient<ManagedCluster>;
  const deleting: ManagedCluster = { apiVersion: 'cluster.open-cluster-management.io/v1', kind: 'ManagedCluster', metadata: { name: 'c1', resourceVersion: '3', deletionTimestamp: '2026-12-07T00:00:00Z' }, spec: { hubAcceptsClient: true } };
  assert.equal(await addFinalizer(rc, deleting, 'gc'), undefined);
  assert.deepEqual(sent, []);
});
