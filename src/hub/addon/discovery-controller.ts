// AddOnFeatureDiscoveryController: cluster labels
// `feature.open-cluster-management.io/addon-<name>` from each addon's Available condition.

import type { ManagedCluster } from '../../api/cluster.js';
import { findCondition } from '../../api/conditions.js';
import { conditionTypes } from '../../api/constants.js';
import { resourceTypes } from '../../client/resource-types.js';
import type { Controller, ReconcileResult } from '../../client/types.js';
import { DEFAULT_KEY, type HubContext } from '../common/context.js';
import { addonLabelPatch } from './addon-decision.js';
import { enqueueByName, onEveryChange } from '../../client/event-handlers.js';

const CONTROLLER_NAME = 'AddOnFeatureDiscoveryController';

export function setupAddonDiscoveryController(ctx: HubContext): Controller {
  const log = ctx.log.child({ controller: CONTROLLER_NAME });
  const clusters = ctx.client.resource<ManagedCluster>(resourceTypes.managedClusters);
  async function reconcile(name: string, signal: AbortSignal): Promise<ReconcileResult> {
    if (name === '' || name === DEFAULT_KEY) return {};
    const cluster = ctx.informers.clusters.lister.get(name);
    if (!cluster || cluster.metadata.deletionTimestamp || !findCondition(cluster.status?.conditions, conditionTypes.available)) return {};
    const patch = addonLabelPatch(cluster.metadata.labels, ctx.informers.addons.lister.list({ namespace: name }));
    if (Object.keys(patch).length === 0) return {};
    await clusters.patch(name, 'merge', { metadata: { uid: cluster.metadata.uid, resourceVersion: cluster.metadata.resourceVersion, labels: patch } }, { signal });
    log.info('addon feature labels updated', { key: name, labels: patch });
    return {};
  }
  const controller = ctx.newController({ name: CONTROLLER_NAME, reconcile, log });
  enqueueByName(ctx.informers.clusters, controller);
  // an addon lives in its cluster's namespace
  onEveryChange(ctx.informers.addons, (a) => controller.enqueue(a.metadata.namespace ?? ''));
  return controller;
}
