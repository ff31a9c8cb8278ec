// DefaultManagedClusterSetController / GlobalManagedClusterSetController: create the `default` and
// `global` sets and restore their clusterSelector; 10 s repair tick.

import type { ManagedClusterSet } from '../../api/cluster.js';
import { resourceTypes } from '../../client/resource-types.js';
import type { Controller, ReconcileResult } from '../../client/types.js';
import { DEFAULT_KEY, type HubContext } from '../common/context.js';
import { builtinSetAction, type BuiltinSetName } from './cluster-set-selector.js';
import { onEveryChange } from '../../client/event-handlers.js';

export function setupBuiltinClusterSetController(ctx: HubContext, which: BuiltinSetName): Controller {
  const prefix = which === 'default' ? 'Default' : 'Global';
  const name = `${prefix}ManagedClusterSetController`;
  const log = ctx.log.child({ controller: name });
  const sets = ctx.client.resource<ManagedClusterSet>(resourceTypes.managedClusterSets);
  async function reconcile(_key: string, signal: AbortSignal): Promise<ReconcileResult> {
    const action = builtinSetAction(which, ctx.informers.clusterSets.lister.get(which));
    if (action.kind === 'create') {
      await sets.create(action.set, { signal });
      log.info(`Set the ${which} ManagedClusterSet name to ${which}`, { reason: `${prefix}ManagedClusterSetCreated` });
    } else if (action.kind === 'update') {
      await sets.update(action.set, { signal });
      log.info(`Rollback the spec of ${which} ManagedClusterSet`, { reason: `${prefix}ManagedClusterSetSpecRollbacked` });
    }
    return {};
  }
  const controller = ctx.newController({ name, reconcile, log, resyncMs: ctx.options.timings.defaultSetResyncMs, resyncKeys: () => [DEFAULT_KEY] });
  const onSet = (o: ManagedClusterSet): void => {
    if (o.metadata.name === which) controller.enqueue(DEFAULT_KEY);
  };
  onEveryChange(ctx.informers.clusterSets, onSet);
  controller.enqueue(DEFAULT_KEY);
  return controller;
}
