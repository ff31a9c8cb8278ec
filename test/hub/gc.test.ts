// GC on cluster deletion (hub-controller.md §5.7): addons first (lowest cleanup priority first), then
// ManifestWorks; Deleting condition; finalizers released in order; the work RoleBinding waits for works.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ManagedClusterAddOn } from '../../src/api/addon.js';
import type { ManagedCluster } from '../../src/api/cluster.js';
import type { KubeObject } from '../../src/api/meta.js';
import { resourceTypes } from '../../src/client/index.js';
import type { ResourceClient } from '../../src/client/types.js';
import { CONTROLLER_NAME as GC_CONTROLLER } from '../../src/hub/gc/gc-controller.js';
import { installCrds } from '../../src/hub/install-crds.js';
import { realClock } from '../../src/util/clock.js';
import { getIfExists } from '../helpers/objects.js';
import { waitFor } from '../helpers/wait-for.js';
import { startHubFixture, type HubFixture } from './hub-fixture.js';

const MANIFESTWORK_CRD: KubeObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'manifestworks.work.open-cluster-management.io' },
  spec: {
    group: 'work.open-cluster-management.io',
    names: { kind: 'ManifestWork', listKind: 'ManifestWorkList', plural: 'manifestworks', singular: 'manifestwork' },
    scope: 'Namespaced',
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } }, subresources: { status: {} } }],
  },
};

let fx: HubFixture;
before(async () => {
  fx = await startHubFixture({ hub: false });
  await installCrds(fx.admin, [MANIFESTWORK_CRD], { clock: realClock });
  await fx.startHub();
});
after(async () => fx?.stop());

const mcs = () => fx.admin.resource<ManagedCluster>(resourceTypes.managedClusters);
const present = (rc: ResourceClient, name: string): Promise<KubeObject | undefined> => getIfExists(rc, name);

test('deleting a cluster removes addons by priority, then works, then the cluster; the namespace stays', async () => {
  await mcs().create({ metadata: { name: 'g1' }, spec: { hubAcceptsClient: true } });
  await waitFor(async () => (await mcs().get('g1')).status?.conditions?.some((c) => c.reason === 'HubClusterAdminAccepted'), 5000);
  await waitFor(async () => (await mcs().get('g1')).metadata.finalizers?.length === 2, 5000);
  const addons = fx.admin.resource<ManagedClusterAddOn>(resourceTypes.managedClusterAddOns, 'g1');
  const works = fx.admin.resource(resourceTypes.manifestWorks, 'g1');
  await addons.create({ metadata: { name: 'low', namespace: 'g1', finalizers: ['test.example.com/hold'] }, spec: {} });
  await addons.create({ metadata: { name: 'high', namespace: 'g1', annotations: { 'open-cluster-management.io/cleanup-priority': '10' } }, spec: {} });
  await works.create({ apiVersion: 'work.open-cluster-management.io/v1', kind: 'ManifestWork', metadata: { name: 'w1', namespace: 'g1' }, spec: {} });

  await mcs().delete('g1');
  const deleting = await waitFor(async () => (await mcs().get('g1')).status?.conditions?.find((c) => c.type === 'Deleting'), 5000);
  assert.equal(deleting.reason, 'ResourceRemaining');
  assert.equal(deleting.message, 'The resource managedclusteraddons is remaning, the remaining count is 2, the finalizer pending count is 1');
  await waitFor(async () => (await present(addons, 'low'))?.metadata.deletionTimestamp !== undefined, 5000);
  // the priority-10 addon and the work wait while the priority-0 addon is still there, however
  // often the cleanup runs again (every 100 ms here)
  const runs = (): number => fx.logs.reconciles(GC_CONTROLLER, 'g1');
  const target = runs() + 3;
  await waitFor(() => runs() >= target, 5000, { message: 'three more cleanup runs' });
  assert.ok(await present(addons, 'high'));
  assert.equal((await present(addons, 'high'))?.metadata.deletionTimestamp, undefined);
  assert.ok(await present(works, 'w1'));
  // the work RoleBinding keeps its finalizer while works remain
  const rbs = fx.admin.resource(resourceTypes.roleBindings, 'g1');
  const workRb = await waitFor(() => present(rbs, 'open-cluster-management:managedcluster:g1:work'), 5000);
  assert.ok(workRb.metadata.deletionTimestamp);

  const low = (await present(addons, 'low'))!;
  await addons.patch('low', 'merge', { metadata: { resourceVersion: low.metadata.resourceVersion, finalizers: [] } });
  await waitFor(async () => !(await present(addons, 'high')), 5000);
  await waitFor(async () => !(await present(works, 'w1')), 5000);
  await waitFor(async () => !(await present(mcs(), 'g1')), 5000);
  await waitFor(async () => !(await present(rbs, 'open-cluster-management:managedcluster:g1:work')), 5000);
  assert.ok(await present(fx.admin.resource(resourceTypes.namespaces), 'g1'));
});
