// taintController: unreachable/unavailable taints from Available.

import type { ManagedCluster } from '../../api/cluster.js';
import { resourceTypes } from '../../client/resource-types.js';
import type { Controller, ReconcileResult } from '../../client/types.js';
import type { HubContext } from '../common/context.js';
import { patchSpec } from '../../client/patch-writer.js';
import { desiredTaints } from './taint-decision.js';
import { enqueueByName } from '../../client/event-handlers.js';

const CONTROLLER_NAME = 'taintController';

export function setupTaintController(ctx: HubContext): Controller {
  const log = ctx.log.child({ controller: CONTROLLER_NAME });
  const clusters = ctx.client.resource<ManagedCluster>(resourceTypes.managedClusters);
  async function reconcile(name: string, signal: AbortSignal): Promise<ReconcileResult> {
    const cluster = ctx.informers.clusters.lister.get(name);
    if (!cluster || cluster.metadata.deletionTimestamp) return {};
    const current = cluster.spec?.taints;
    const next = desiredTaints(current, cluster.status?.conditions);
    if (next === current || (current === undefined && next.length === 0)) return {};
    const spec = { ...(cluster.spec ?? { hubAcceptsClient: false }), taints: [...next] };
    if (await patchSpec(clusters, cluster, spec, signal)) {
      log.info(`Update the original taints to the ${JSON.stringify(next)}`, { key: name, reason: 'ManagedClusterConditionAvailableUpdated' });
    }
    return {};
  }
  const controller = ctx.newController({ name: CONTROLLER_NAME, reconcile, log });
  enqueueByName(ctx.informers.clusters, controller);
  return controller;
}
