// ClockSyncController: ClockSynced from each lease renewal.

import type { ManagedCluster } from '../../api/cluster.js';
import { findCondition, setCondition } from '../../api/conditions.js';
import { annotations, conditionTypes, names } from '../../api/constants.js';
import { resourceTypes } from '../../client/resource-types.js';
import type { Controller, ReconcileResult } from '../../client/types.js';
import type { HubContext } from '../common/context.js';
import { patchStatus } from '../../client/patch-writer.js';
import { clusterOfLease } from './lease-controller.js';
import { clockSynced, clockSyncedCondition } from './lease-decision.js';

const CONTROLLER_NAME = 'ClockSyncController';

export function setupClockSyncController(ctx: HubContext): Controller {
  const log = ctx.log.child({ controller: CONTROLLER_NAME });
  const clusters = ctx.client.resource<ManagedCluster>(resourceTypes.managedClusters);
  async function reconcile(name: string, signal: AbortSignal): Promise<ReconcileResult> {
    const cluster = ctx.informers.clusters.lister.get(name);
    if (!cluster) return {};
    const lease = ctx.informers.leases.lister.get(names.clusterLease, name);
    if (!lease) throw new Error(`lease ${name}/${names.clusterLease} not found in cache`);
    const synced = clockSynced(lease.spec?.renewTime, cluster.spec?.leaseDurationSeconds, ctx.clock.now(), cluster.metadata.annotations?.[annotations.skipClockSyncCheck]);
    const want = clockSyncedCondition(synced);
    if (findCondition(cluster.status?.conditions, conditionTypes.clockSynced)?.status === want.status) return {};
    const status = { ...(cluster.status ?? {}), conditions: setCondition(cluster.status?.conditions, want, new Date(ctx.clock.now())) };
    if (await patchStatus(clusters, cluster, status, signal)) {
      log.info(`update managed cluster "${name}" clock synced condition to ${want.status}.`, { key: name, reason: 'ManagedClusterClockSyncedConditionUpdated' });
    }
    return {};
  }
  const controller = ctx.newController({ name: CONTROLLER_NAME, reconcile, log });
  ctx.informers.leases.addHandlers({
    onUpdate: (o, n) => {
      const c = clusterOfLease(n);
      if (c && o.spec?.renewTime !== n.spec?.renewTime) controller.enqueue(c);
    },
  });
  return controller;
}
