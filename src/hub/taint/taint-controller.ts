// taintController: unreachable/unavailable taints from Available.

import type { ManagedCluster, Taint } from '../../api/cluster.js';
import { resourceTypes } from '../../client/resource-types.js';
import type { Controller, ReconcileResult } from '../../client/types.js';
import { type HubContext, CLUSTER_WORKERS } from '../common/context.js';
import { patchSpec } from '../../client/patch-writer.js';
import { taintsToWrite } from './taint-decision.js';
import { enqueueByName } from '../../client/event-handlers.js';
import { writeNewest } from '../common/writes.js';
import { awaitsAutoAccept } from '../managedcluster/acceptance-decision.js';

const CONTROLLER_NAME = 'taintController';

export function setupTaintController(ctx: HubContext): Controller {
  const log = ctx.log.child({ controller: CONTROLLER_NAME });
  const clusters = ctx.client.resource<ManagedCluster>(resourceTypes.managedClusters);
  const autoApproval = ctx.options.featureGates['ManagedClusterAutoApproval'] === true;
  /** The taints written, or undefined when they were right already. */
  async function updateTaints(cluster: ManagedCluster, signal: AbortSignal): Promise<readonly Taint[] | undefined> {
    if (cluster.metadata.deletionTimestamp || awaitsAutoAccept(cluster, autoApproval)) return undefined;
    const next = taintsToWrite(cluster.spec?.taints, cluster.status?.conditions);
    if (next === undefined) return undefined;
    const spec = { ...(cluster.spec ?? { hubAcceptsClient: false }), taints: [...next] };
    return (await patchSpec(clusters, cluster, spec, signal)) ? next : undefined;
  }

  async function reconcile(name: string, signal: AbortSignal): Promise<ReconcileResult> {
    const cached = ctx.informers.clusters.lister.get(name);
    if (!cached) return {};
    const written = await writeNewest(ctx.client, resourceTypes.managedClusters, cached, (cluster) => updateTaints(cluster, signal));
    if (written) log.info(`Update the original taints to the ${JSON.stringify(written)}`, { key: name, reason: 'ManagedClusterConditionAvailableUpdated' });
    return {};
  }
  const controller = ctx.newController({ name: CONTROLLER_NAME, reconcile, log, workers: CLUSTER_WORKERS });
  enqueueByName(ctx.informers.clusters, controller);
  return controller;
}
