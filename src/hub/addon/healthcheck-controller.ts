// ManagedClusterAddonHealthCheckController: when the cluster's Available
// is Unknown, copy it onto every addon in the cluster namespace.

import type { ManagedClusterAddOn } from '../../api/addon.js';
import { findCondition, setCondition } from '../../api/conditions.js';
import { conditionTypes } from '../../api/constants.js';
import { resourceTypes } from '../../client/resource-types.js';
import type { Controller, ReconcileResult } from '../../client/types.js';
import type { HubContext } from '../common/context.js';
import { aggregate, toError } from '../../util/errors.js';
import { patchStatus } from '../../client/patch-writer.js';
import { addonUnknownCondition } from './addon-decision.js';
import { enqueueByName } from '../../client/event-handlers.js';

const CONTROLLER_NAME = 'ManagedClusterAddonHealthCheckController';

export function setupAddonHealthCheckController(ctx: HubContext): Controller {
  const log = ctx.log.child({ controller: CONTROLLER_NAME });
  async function reconcile(name: string, signal: AbortSignal): Promise<ReconcileResult> {
    const cluster = ctx.informers.clusters.lister.get(name);
    const available = cluster ? findCondition(cluster.status?.conditions, conditionTypes.available) : undefined;
    if (!available || available.status !== 'Unknown') return {};
    const rc = ctx.client.resource<ManagedClusterAddOn>(resourceTypes.managedClusterAddOns, name);
    const errors: Error[] = [];
    for (const addon of ctx.informers.addons.lister.list({ namespace: name })) {
      const status = { ...(addon.status ?? {}), conditions: setCondition(addon.status?.conditions, addonUnknownCondition(available), new Date(ctx.clock.now())) };
      try {
        if (await patchStatus(rc, addon, status, signal)) {
          log.info(`update addon "${addon.metadata.name ?? ''}" status to unknown on managed cluster "${name}"`, { key: name, reason: 'ManagedClusterAddOnStatusUpdated' });
        }
      } catch (err) {
        errors.push(toError(err));
      }
    }
    const err = aggregate(errors, 'lines');
    if (err) throw err;
    return {};
  }
  const controller = ctx.newController({ name: CONTROLLER_NAME, reconcile, log });
  enqueueByName(ctx.informers.clusters, controller);
  return controller;
}
