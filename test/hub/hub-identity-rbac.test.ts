// The embedded hub's controllers run as their own identity (ocm-ts:hub-controller). With RBAC
// escalation prevention on, that identity still writes every per-cluster and common Role,
// ClusterRole and binding a cluster needs (accept, deny, re-accept, delete), and it cannot grant
// anything beyond them: not cluster-admin, not a role it does not manage, not extra rules.

import 'reflect-metadata';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ManagedCluster } from '../../src/api/cluster.js';
import type { ClusterRole, ClusterRoleBinding, RoleBinding } from '../../src/api/core.js';
import { createKubeClient, isNotFound, resourceTypes } from '../../src/client/index.js';
import type { KubeClient } from '../../src/client/types.js';
import type { EmbeddedHub } from '../../src/embedded/embedded-hub.js';
import { startEmbeddedHubFixture, type EmbeddedHubFixture } from './embedded-hub-fixture.js';
import { HUB_CONTROLLER_USER } from '../../src/hub/rbac-manifests.js';
import { waitFor } from '../helpers/wait-for.js';

const G = 'rbac.authorization.k8s.io';
const V = `${G}/v1`;
let fixture: EmbeddedHubFixture | undefined;
let hub: EmbeddedHub;
let admin: KubeClient;
let controller: KubeClient;

before(async () => {
  fixture = await startEmbeddedHubFixture('ocm-ts-hub-identity-');
  hub = fixture.hub;
  admin = createKubeClient({ kubeconfigPath: hub.adminKubeconfigPath });
  controller = createKubeClient({ kubeconfigPath: hub.hubControllerKubeconfigPath });
});

after(async () => {
  admin?.close();
  controller?.close();
  await fixture?.stop();
});

const mcs = (): ReturnType<KubeClient['resource']> => admin.resource<ManagedCluster>(resourceTypes.managedClusters);
const clusterRoles = (c: KubeClient): ReturnType<KubeClient['resource']> => c.resource<ClusterRole>(resourceTypes.clusterRoles);

async function exists(type: (typeof resourceTypes)[keyof typeof resourceTypes], name: string, ns?: string): Promise<boolean> {
  try {
    await admin.resource(type, ns).get(name);
    return true;
  } catch (err) {
    if (isNotFound(err)) return false;
    throw err;
  }
}

async function setAccepted(name: string, hubAcceptsClient: boolean): Promise<void> {
  await waitFor(async () => {
    const mc = (await mcs().get(name)) as ManagedCluster;
    await mcs().update({ ...mc, spec: { ...mc.spec, hubAcceptsClient } });
    return true;
  }, 5000);
}

/** Status code of a failed call, or 0 when it succeeded. */
async function codeOf(p: Promise<unknown>): Promise<number> {
  try {
    await p;
    return 0;
  } catch (err) {
    return (err as { code?: number }).code ?? -1;
  }
}

test('should let the hub identity write every per-cluster and common RBAC object through accept, deny, re-accept and delete', async () => {
  const crName = 'open-cluster-management:managedcluster:c1';
  await mcs().create({ apiVersion: 'cluster.open-cluster-management.io/v1', kind: 'ManagedCluster', metadata: { name: 'c1' }, spec: { hubAcceptsClient: true } });
  await waitFor(async () => ((await clusterRoles(admin).get(crName).catch(() => undefined)) as ClusterRole | undefined)?.rules?.length === 4, 10_000, { message: 'accepted ClusterRole' });
  await waitFor(() => exists(resourceTypes.clusterRoleBindings, crName), 5000);
  await waitFor(() => exists(resourceTypes.roleBindings, `${crName}:registration`, 'c1'), 5000, { message: 'registration RoleBinding' });
  await waitFor(() => exists(resourceTypes.roleBindings, `${crName}:work`, 'c1'), 5000, { message: 'work RoleBinding' });
  assert.ok(await exists(resourceTypes.clusterRoles, 'open-cluster-management:managedcluster:registration'));
  assert.ok(await exists(resourceTypes.clusterRoles, 'open-cluster-management:managedcluster:work'));
  const crb = (await admin.resource<ClusterRoleBinding>(resourceTypes.clusterRoleBindings).get(crName)) as ClusterRoleBinding;
  assert.equal(crb.roleRef.name, crName);

  await setAccepted('c1', false);
  await waitFor(async () => ((await clusterRoles(admin).get(crName)) as ClusterRole).rules?.length === 1, 10_000, { message: 'denied ClusterRole' });
  await waitFor(async () => !(await exists(resourceTypes.roleBindings, `${crName}:registration`, 'c1')), 5000, { message: 'RoleBindings removed on deny' });
  await setAccepted('c1', true);
  await waitFor(async () => ((await clusterRoles(admin).get(crName)) as ClusterRole).rules?.length === 4, 10_000, { message: 're-accepted ClusterRole' });
  await waitFor(() => exists(resourceTypes.roleBindings, `${crName}:work`, 'c1'), 5000, { message: 'RoleBindings restored' });

  // Deleting the cluster removes its RBAC, the finalizer of the work RoleBinding included.
  await mcs().delete('c1');
  await waitFor(async () => !(await exists(resourceTypes.clusterRoles, crName)) && !(await exists(resourceTypes.roleBindings, `${crName}:work`, 'c1')), 15_000, { message: 'cluster RBAC removed' });
});

test('should refuse the hub identity any grant beyond the roles it manages', async () => {
  // The common roles exist while a cluster does: with the previous test's cluster gone, one is
  // created and seen by the hub first, so the role widened below is not deleted under the test.
  await waitFor(async () => !(await exists(resourceTypes.managedClusters, 'c1')), 15_000, { message: 'previous cluster gone' });
  await mcs().create({ apiVersion: 'cluster.open-cluster-management.io/v1', kind: 'ManagedCluster', metadata: { name: 'c2' }, spec: { hubAcceptsClient: true } });
  await waitFor(() => exists(resourceTypes.clusterRoles, 'open-cluster-management:managedcluster:c2'), 10_000, { message: 'c2 ClusterRole' });
  await waitFor(() => exists(resourceTypes.clusterRoles, 'open-cluster-management:managedcluster:registration'), 10_000, { message: 'common ClusterRole' });
  const crbs = controller.resource<ClusterRoleBinding>(resourceTypes.clusterRoleBindings);
  const bindAdmin: ClusterRoleBinding = {
    apiVersion: V, kind: 'ClusterRoleBinding', metadata: { name: 'pwn' },
    roleRef: { apiGroup: G, kind: 'ClusterRole', name: 'cluster-admin' }, subjects: [{ apiGroup: G, kind: 'User', name: HUB_CONTROLLER_USER }],
  };
  assert.equal(await codeOf(crbs.create(bindAdmin)), 403, 'cluster-admin');
  assert.equal(await codeOf(crbs.create({ ...bindAdmin, roleRef: { ...bindAdmin.roleRef, name: 'open-cluster-management:bootstrap' } })), 403, 'a role it does not manage');
  const rbs = controller.resource<RoleBinding>(resourceTypes.roleBindings, 'default');
  assert.equal(await codeOf(rbs.create({ ...bindAdmin, kind: 'RoleBinding', metadata: { name: 'pwn', namespace: 'default' } } as RoleBinding)), 403, 'cluster-admin in a namespace');
  const secrets: ClusterRole = { apiVersion: V, kind: 'ClusterRole', metadata: { name: 'steal' }, rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list'] }] };
  assert.equal(await codeOf(clusterRoles(controller).create(secrets)), 403, 'a ClusterRole with rules it does not hold');
  // Widening a role it manages is refused too.
  const registration = (await clusterRoles(controller).get('open-cluster-management:managedcluster:registration')) as ClusterRole;
  assert.equal(await codeOf(clusterRoles(controller).update({ ...registration, rules: [...(registration.rules ?? []), ...(secrets.rules ?? [])] })), 403, 'widening a managed role');
  for (const name of ['pwn', 'steal']) assert.equal(await exists(resourceTypes.clusterRoleBindings, name) || await exists(resourceTypes.clusterRoles, name), false);
});
