// ManagedClusterSetController: ClusterSetEmpty from the member count.

import type { ManagedCluster, ManagedClusterSet } from '../../api/cluster.js';
import { setCondition } from '../../api/conditions.js';
import { resourceTypes } from '../../client/resource-types.js';
import type { Controller, ReconcileResult } from '../../client/types.js';
import type { HubContext } from '../common/context.js';
import { patchStatus } from '../../client/patch-writer.js';
import { clusterSetEmptyCondition, memberSelector, setsSelecting, symmetricDifference } from './cluster-set-selector.js';
import { errorMessage } from '../../util/errors.js';
import { enqueueByName } from '../../client/event-handlers.js';

const CONTROLLER_NAME = 'ManagedClusterSetController';
/**
 * How long a set's member count waits after a cluster joins, leaves or changes its labels: every
 * change in that time is counted by one status write. A join would otherwise write each set that
 * selects it (the default and the global set: two writes per join), inside the join's own window,
 * and a fleet joining at N clusters a second would write 2N set statuses a second.
 */
const MEMBER_COUNT_BATCH_MS = 1000;

export function setupManagedClusterSetController(ctx: HubContext): Controller {
  const log = ctx.log.child({ controller: CONTROLLER_NAME });
  const sets = ctx.client.resource<ManagedClusterSet>(resourceTypes.managedClusterSets);
  async function reconcile(name: string, signal: AbortSignal): Promise<ReconcileResult> {
    const set = ctx.informers.clusterSets.lister.get(name);
    if (!set || set.metadata.deletionTimestamp) return {};
    let count: number;
    try {
      // Counted from the cluster cache's label index (or its size, for a selector of every cluster):
      // each join reconciles its sets, and a scan of every cluster per join grew with the fleet.
      count = ctx.informers.clusters.lister.count({ selector: memberSelector(set) });
    } catch (err) {
      throw new Error(`failed to sync ManagedClusterSet "${name}": ${errorMessage(err)}`, { cause: err });
    }
    const status = { ...(set.status ?? {}), conditions: setCondition(set.status?.conditions, clusterSetEmptyCondition(count), new Date(ctx.clock.now())) };
    try {
      await patchStatus(sets, set, status, signal);
    } catch (err) {
      throw new Error(`failed to sync ManagedClusterSet "${name}": failed to update status of ManagedClusterSet "${name}": ${errorMessage(err)}`, { cause: err });
    }
    return {};
  }
  const controller = ctx.newController({ name: CONTROLLER_NAME, reconcile, log });
  const enqueueAll = (names: readonly string[]): void => names.forEach((n) => controller.enqueueAfter(n, MEMBER_COUNT_BATCH_MS));
  const all = (): ManagedClusterSet[] => ctx.informers.clusterSets.lister.list();
  enqueueByName(ctx.informers.clusterSets, controller);
  ctx.informers.clusters.addHandlers({
    onAdd: (c: ManagedCluster) => enqueueAll(setsSelecting(all(), c.metadata.labels)),
    onDelete: (c: ManagedCluster) => enqueueAll(setsSelecting(all(), c.metadata.labels)),
    onUpdate: (o: ManagedCluster, n: ManagedCluster) => {
      if (JSON.stringify(o.metadata.labels ?? {}) === JSON.stringify(n.metadata.labels ?? {})) return;
      enqueueAll(symmetricDifference(setsSelecting(all(), o.metadata.labels), setsSelecting(all(), n.metadata.labels)));
    },
  });
  return controller;
}
