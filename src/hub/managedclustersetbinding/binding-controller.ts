// ManagedClusterSetBindingController: condition Bound. Registered, as in OCM, under the name
// ManagedClusterSetController (queue managed-clusterset-binding-controller).

import type { ManagedClusterSet, ManagedClusterSetBinding } from '../../api/cluster.js';
import { setCondition } from '../../api/conditions.js';
import { conditionTypes, reasons } from '../../api/constants.js';
import type { Condition } from '../../api/meta.js';
import { resourceTypes } from '../../client/resource-types.js';
import type { Controller, ReconcileResult } from '../../client/types.js';
import type { HubContext } from '../common/context.js';
import { patchStatus } from '../../client/patch-writer.js';
import { onEveryChange } from '../../client/event-handlers.js';

const CONTROLLER_NAME = 'ManagedClusterSetController';

/** Bound True when the set exists (even if deleting), else False. Pure. */
function boundCondition(setExists: boolean): Condition {
  return setExists
    ? { type: conditionTypes.bound, status: 'True', reason: reasons.clusterSetBound, message: '' }
    : { type: conditionTypes.bound, status: 'False', reason: reasons.clusterSetNotFound, message: '' };
}

export function setupClusterSetBindingController(ctx: HubContext): Controller {
  const log = ctx.log.child({ controller: CONTROLLER_NAME, queue: 'managed-clusterset-binding-controller' });
  async function reconcile(key: string, signal: AbortSignal): Promise<ReconcileResult> {
    const slash = key.indexOf('/');
    if (slash <= 0) return {};
    const ns = key.slice(0, slash);
    const name = key.slice(slash + 1);
    const binding = ctx.informers.clusterSetBindings.lister.get(name, ns);
    if (!binding) return {};
    const exists = ctx.informers.clusterSets.lister.get(binding.spec?.clusterSet ?? '') !== undefined;
    const status = { ...(binding.status ?? {}), conditions: setCondition(binding.status?.conditions, boundCondition(exists), new Date(ctx.clock.now())) };
    await patchStatus(ctx.client.resource<ManagedClusterSetBinding>(resourceTypes.managedClusterSetBindings, ns), binding, status, signal);
    return {};
  }
  const controller = ctx.newController({ name: CONTROLLER_NAME, reconcile, log });
  const keyOf = (b: ManagedClusterSetBinding): string => `${b.metadata.namespace ?? ''}/${b.metadata.name ?? ''}`;
  onEveryChange(ctx.informers.clusterSetBindings, (b) => controller.enqueue(keyOf(b)));
  const onSet = (s: ManagedClusterSet): void => {
    for (const b of ctx.informers.clusterSetBindings.lister.list()) if (b.spec?.clusterSet === s.metadata.name) controller.enqueue(keyOf(b));
  };
  onEveryChange(ctx.informers.clusterSets, onSet);
  return controller;
}
