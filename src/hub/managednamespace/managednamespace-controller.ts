// ManagedNamespaceController: status.managedNamespaces from cluster sets.

import type { ManagedCluster, ManagedClusterSet } from '../../api/cluster.js';
import { resourceTypes } from '../../client/resource-types.js';
import type { Controller, ReconcileResult } from '../../client/types.js';
import type { HubContext } from '../common/context.js';
import { patchStatus } from '../../client/patch-writer.js';
import { setsSelecting } from '../managedclusterset/cluster-set-selector.js';
import { clustersReferencingSet, desiredManagedNamespaces } from './managed-namespaces.js';
import { errorMessage } from '../../util/errors.js';

const CONTROLLER_NAME = 'ManagedNamespaceController';

export function setupManagedNamespaceController(ctx: HubContext): Controller {
  const log = ctx.log.child({ controller: CONTROLLER_NAME });
  const clusters = ctx.client.resource<ManagedCluster>(resourceTypes.managedClusters);
  async function reconcile(name: string, signal: AbortSignal): Promise<ReconcileResult> {
    if (name === '') return {};
    const cluster = ctx.informers.clusters.lister.get(name);
    if (!cluster || cluster.metadata.deletionTimestamp) return {};
    const desired = desiredManagedNamespaces(cluster, ctx.informers.clusterSets.lister.list());
    const status = { ...(cluster.status ?? {}), managedNamespaces: desired };
    try {
      if (await patchStatus(clusters, cluster, status, signal)) {
        log.info(`Updated managed namespaces for cluster "${name}" (total: ${desired.length})`, { key: name, reason: 'ManagedNamespacesUpdated' });
      }
    } catch (err) {
      throw new Error(`failed to sync managed namespaces for ManagedCluster "${name}": ${errorMessage(err)}`, { cause: err });
    }
    return {};
  }
  const controller = ctx.newController({ name: CONTROLLER_NAME, reconcile, log });
  ctx.informers.clusters.addHandlers({
    onAdd: (c) => controller.enqueue(c.metadata.name ?? ''),
    onUpdate: (o, n) => {
      if (JSON.stringify(o.metadata.labels ?? {}) !== JSON.stringify(n.metadata.labels ?? {})) controller.enqueue(n.metadata.name ?? '');
    },
  });
  const onSet = (s: ManagedClusterSet): void => {
    const setName = s.metadata.name ?? '';
    const keys = new Set(clustersReferencingSet(ctx.informers.clusters.lister.list(), setName));
    for (const c of ctx.informers.clusters.lister.list()) if (setsSelecting([s], c.metadata.labels).length > 0) keys.add(c.metadata.name ?? '');
    for (const k of keys) controller.enqueue(k);
  };
  // Only a set's spec (its managed namespaces, its selector) decides the namespaces; its status
  // changes with every cluster that joins (the member count), and re-queuing every member then
  // made a join cost a reconcile per cluster of the fleet.
  ctx.informers.clusterSets.addHandlers({
    onAdd: onSet,
    onUpdate: (o, n) => {
      if (JSON.stringify(o.spec ?? {}) !== JSON.stringify(n.spec ?? {})) onSet(n);
    },
    onDelete: onSet,
  });
  return controller;
}
