// One sync of the status controller, independent of informers and
// HTTP so that it can be table-tested: read the cached cluster, deep-copy it, run the ordered
// reconcilers, refuse to patch while the hub says the clocks are out of sync, send at most one
// status merge patch (only when the status changed) and, after a patch, the hub availability event.

import type { ManagedCluster } from '../../api/cluster.js';
import { isConditionFalse } from '../../api/conditions.js';
import { conditionTypes } from '../../api/constants.js';
import { aggregate, errorMessage, toError } from '../../util/errors.js';
import { availabilityEvent, type AvailabilityEvent } from './hub-events.js';
import type { StatusContext, StatusReconciler } from './reconciler.js';
import { guardedPatch } from '../../client/patch-writer.js';

const CLOCK_OUT_OF_SYNC_MESSAGE = "the managed cluster's clock is out of sync, the agent will not be able to update the status of managed cluster";

export interface StatusSyncDeps {
  clusterName: string;
  /** The hub ManagedCluster from the informer cache (never mutated). */
  getCached(): ManagedCluster | undefined;
  reconcilers: readonly StatusReconciler[];
  /** Sends the merge patch to the status subresource. */
  patchStatus(patch: Record<string, unknown>, signal: AbortSignal): Promise<void>;
  /** Called after a successful patch when Available changed; must not throw or block. */
  onAvailabilityChange(ev: AvailabilityEvent, cluster: ManagedCluster): void;
  /** Log event. */
  event(reason: string, message: string): void;
  requeueAfter(ms: number): void;
  now(): Date;
}

export interface StatusSyncResult {
  patched: boolean;
}

/** Throws the aggregate of every collected error after doing whatever could be done. */
export async function syncClusterStatus(deps: StatusSyncDeps, signal: AbortSignal): Promise<StatusSyncResult> {
  const cached = deps.getCached();
  if (!cached) {
    throw new Error(
      `unable to get managed cluster "${deps.clusterName}" from hub: managedcluster.cluster.open-cluster-management.io "${deps.clusterName}" not found`,
    );
  }
  let obj = structuredClone(cached);
  const ctx: StatusContext = {
    clusterName: deps.clusterName,
    signal,
    now: deps.now(),
    event: deps.event,
    requeueAfter: deps.requeueAfter,
  };
  const errors: Error[] = [];
  for (const r of deps.reconcilers) {
    let res;
    try {
      res = await r.reconcile(obj, ctx);
    } catch (err) {
      // a reconciler that throws is treated like one that returned an error and stopped
      errors.push(toError(err));
      break;
    }
    obj = res.obj;
    if (res.error) errors.push(res.error);
    if (res.next === 'stop') break;
  }

  if (isConditionFalse(obj.status?.conditions, conditionTypes.clockSynced)) {
    deps.event('ClockOutOfSync', "The managed cluster's clock is out of sync, the agent will not be able to update the status of managed cluster.");
    throw new Error(CLOCK_OUT_OF_SYNC_MESSAGE);
  }

  let patched = false;
  const patch = guardedPatch(cached, 'status', obj.status);
  if (patch) {
    try {
      await deps.patchStatus(patch, signal);
      patched = true;
    } catch (err) {
      errors.push(new Error(`unable to patch status of managed cluster "${deps.clusterName}": ${errorMessage(err)}`, { cause: err }));
    }
  }
  if (patched) {
    const ev = availabilityEvent(cached, obj, deps.clusterName);
    if (ev) deps.onAvailabilityChange(ev, obj);
  }
  const err = aggregate(errors);
  if (err) throw err;
  return { patched };
}
