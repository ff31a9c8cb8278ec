// ManagedClusterController: namespace, RBAC, finalizer and the
// HubAcceptedManagedCluster condition; auto-accept; cleanup on deny and delete.

import type { ManagedCluster } from '../../api/cluster.js';
import { setCondition } from '../../api/conditions.js';
import { finalizers, labels as wellKnownLabels, workRoleBindingName } from '../../api/constants.js';
import type { KubeObject } from '../../api/meta.js';
import { isNotFound } from '../../client/errors.js';
import { resourceTypes } from '../../client/resource-types.js';
import type { Controller, ReconcileResult } from '../../client/types.js';
import { applyNamespace, applyRbacList, deleteRbacList } from '../common/apply.js';
import { type HubContext, CLUSTER_WORKERS } from '../common/context.js';
import { aggregate, aggregateMessage, errorMessage, toError } from '../../util/errors.js';
import { RequeueError, requeueOf } from '../common/errors.js';
import { patchStatus } from '../../client/patch-writer.js';
import { addFinalizer, removeFinalizer, writeNewest } from '../common/writes.js';
import { clusterLabels, clusterRoleBindings, clusterSpecificRbac } from '../rbac-manifests.js';
import { acceptedCondition, autoAcceptPatch, clusterBranch, DENIED_CONDITION } from './acceptance-decision.js';
import { enqueueByName, onEveryChange } from '../../client/event-handlers.js';

const CONTROLLER_NAME = 'ManagedClusterController';

export function setupManagedClusterController(ctx: HubContext): Controller {
  const { client, informers, options, clock } = ctx;
  const log = ctx.log.child({ controller: CONTROLLER_NAME });
  const clusters = client.resource<ManagedCluster>(resourceTypes.managedClusters);
  const listers = {
    clusterRoles: informers.clusterRoles.lister,
    clusterRoleBindings: informers.clusterRoleBindings.lister,
    roleBindings: informers.roleBindings.lister,
  };
  const autoApproval = options.featureGates['ManagedClusterAutoApproval'] === true;
  const acceptance = { resourceCleanup: options.featureGates['ResourceCleanup'] === true };

  /** Whether ns <c> still holds ManifestWorks (a hub without the CRD has none). */
  async function hasManifestWorks(ns: string, signal: AbortSignal): Promise<boolean> {
    try {
      const list = await client.resource(resourceTypes.manifestWorks, ns).list({ signal, limit: 1 });
      return list.items.length > 0;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  }

  /**
   * Removes the cluster's registration and work RoleBindings; releases the work RoleBinding finalizer
   * once no works remain.
   */
  async function removeRoleBindings(name: string, signal: AbortSignal): Promise<Error[]> {
    const errors = await deleteRbacList(client, clusterRoleBindings(name, options.labels), signal);
    if (await hasManifestWorks(name, signal)) {
      errors.push(new RequeueError('cluster rbac cleanup requeue', options.timings.cleanupRequeueMs));
      return errors;
    }
    const workRb = informers.roleBindings.lister.get(workRoleBindingName(name), name);
    if (workRb) {
      try {
        await removeFinalizer(client.resource<KubeObject>(resourceTypes.roleBindings, name), workRb, finalizers.manifestWorkCleanup, signal);
      } catch (err) {
        errors.push(toError(err));
      }
    }
    return errors;
  }

  async function cleanup(name: string, signal: AbortSignal): Promise<Error[]> {
    ctx.rbacWritten.forget(name);
    const errors = await deleteRbacList(client, clusterSpecificRbac(name, false, options.labels), signal);
    errors.push(...(await removeRoleBindings(name, signal)));
    return errors;
  }

  function finish(errors: Error[]): ReconcileResult {
    const requeue = requeueOf(errors);
    if (requeue !== undefined) return { requeueAfterMs: requeue };
    const err = aggregate(errors, 'lines');
    if (err) throw err;
    return {};
  }

  async function reconcile(name: string, signal: AbortSignal): Promise<ReconcileResult> {
    const cached = informers.clusters.lister.get(name);
    const branch = clusterBranch(cached, autoApproval);
    switch (branch) {
      case 'gone':
        return finish(await cleanup(name, signal));
      case 'deleting': {
        const errors = await cleanup(name, signal);
        if (errors.length > 0) return finish(errors);
        await removeFinalizer(clusters, cached!, finalizers.apiResourceCleanup, signal);
        return {};
      }
      case 'autoAccept': {
        const now = new Date(clock.now());
        const accepted = await writeNewest(client, resourceTypes.managedClusters, cached!, (c) => clusters.patch(name, 'merge', autoAcceptPatch(c, now, acceptance), { signal }));
        log.info('managed cluster auto accepted', { key: name });
        // Go on with the object the patch returned rather than wait for its watch event: the
        // accepted branch is what the next sync would take anyway.
        return clusterBranch(accepted, autoApproval) === 'accept' ? accept(accepted, signal) : {};
      }
      case 'idle':
        return {};
      case 'deny':
        return deny(cached!, signal);
      case 'accept':
        return accept(cached!, signal);
    }
  }

  async function deny(cluster: ManagedCluster, signal: AbortSignal): Promise<ReconcileResult> {
    const name = cluster.metadata.name ?? '';
    log.info(`managed cluster ${name} is denied by hub cluster admin`, { key: name, reason: 'ManagedClusterDenied' });
    ctx.rbacWritten.forget(name);
    // Apply errors are logged (inside applyRbacList) and discarded, as OCM's applier does.
    await applyRbacList(client, listers, clusterSpecificRbac(name, false, options.labels), log, signal);
    const errors = await removeRoleBindings(name, signal);
    if (errors.length > 0) return finish(errors);
    const status = { ...(cluster.status ?? {}), conditions: setCondition(cluster.status?.conditions, { ...DENIED_CONDITION }, new Date(clock.now())) };
    await patchStatus(clusters, cluster, status, signal);
    return {};
  }

  /**
   * The namespace, finalizer and RBAC in two rounds of concurrent writes (OCM writes them one by
   * one): what needs nothing else first, then the bindings, which need the cluster's role (RBAC
   * refuses a binding to a role that does not exist yet from an author without `bind`) and the
   * namespace. The condition comes last, once everything it stands for exists.
   */
  async function accept(cluster: ManagedCluster, signal: AbortSignal): Promise<ReconcileResult> {
    const name = cluster.metadata.name ?? '';
    const errors: Error[] = [];
    const [clusterRole, clusterRoleBinding] = clusterSpecificRbac(name, true, options.labels);
    const namespace = applyNamespace(client, name, clusterLabels(name, options.labels), signal, informers.namespaces.lister).catch((err: unknown) => {
      errors.push(new Error(`"namespace ${name}" (Namespace): ${errorMessage(err)}`, { cause: err }));
    });
    // The finalizer patch returns the object, so the status patch carries the fresh resourceVersion
    // (OCM patches with the old one, gets a conflict and needs a second sync).
    const finalizer = writeNewest(client, resourceTypes.managedClusters, cluster, (c) => addFinalizer(clusters, c, finalizers.apiResourceCleanup, signal));
    // RBAC errors are logged and discarded, as OCM's applier does.
    const role = applyRbacList(client, listers, [clusterRole], log, signal);
    const [, patched, roleErrors] = await Promise.all([namespace, finalizer, role]);
    const bindingErrors = await applyRbacList(client, listers, [clusterRoleBinding, ...clusterRoleBindings(name, options.labels)], log, signal, { concurrently: true });
    if (errors.length === 0 && roleErrors.length === 0 && bindingErrors.length === 0) ctx.rbacWritten.confirm(name);
    const cond = acceptedCondition(errors.length === 0 ? undefined : aggregateMessage(errors, 'lines'));
    // Other controllers write the cluster meanwhile (its taints, the GC finalizer): the status is
    // patched against the newest copy the hub has.
    const patchAccepted = (current: ManagedCluster): Promise<boolean> => {
      const status = { ...(current.status ?? {}), conditions: setCondition(current.status?.conditions, cond, new Date(clock.now())) };
      return patchStatus(clusters, current, status, signal);
    };
    try {
      if (await writeNewest(client, resourceTypes.managedClusters, patched ?? cluster, patchAccepted)) {
        log.info(`managed cluster ${name} is accepted by hub cluster admin`, { key: name, reason: 'ManagedClusterAccepted' });
      }
    } catch (err) {
      errors.push(toError(err));
    }
    return finish(errors);
  }

  const controller = ctx.newController({ name: CONTROLLER_NAME, reconcile, log, workers: CLUSTER_WORKERS });
  enqueueByName(informers.clusters, controller);
  const byLabel = (o: KubeObject): void => {
    const c = o.metadata.labels?.[wellKnownLabels.clusterName];
    if (c) controller.enqueue(c);
  };
  for (const inf of [informers.clusterRoles, informers.clusterRoleBindings, informers.roleBindings]) {
    onEveryChange(inf, byLabel);
  }
  return controller;
}
