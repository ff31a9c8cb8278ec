// Joining reconciler: once the hub has accepted the cluster, report
// ManagedClusterJoined=True. Until then, stop the chain: nothing else is reported. The agent never
// sets Joined back to False.

import type { ManagedCluster } from '../../api/cluster.js';
import { isConditionTrue, setCondition } from '../../api/conditions.js';
import { conditionTypes, reasons } from '../../api/constants.js';
import type { StatusContext, StatusReconciler, StepResult } from './reconciler.js';

export function reconcileJoining(obj: ManagedCluster, ctx: StatusContext): StepResult {
  const conditions = obj.status?.conditions;
  if (!isConditionTrue(conditions, conditionTypes.hubAccepted)) {
    ctx.event('ManagedClusterIsNotAccepted', `Managed cluster "${ctx.clusterName}" is not accepted by hub yet`);
    return { obj, next: 'stop' };
  }
  if (isConditionTrue(conditions, conditionTypes.joined)) return { obj, next: 'continue' };
  const status = obj.status ?? {};
  status.conditions = setCondition(
    conditions,
    { type: conditionTypes.joined, status: 'True', reason: reasons.managedClusterJoined, message: 'Managed cluster joined' },
    ctx.now,
  );
  obj.status = status;
  return { obj, next: 'continue' };
}

export function createJoiningReconciler(): StatusReconciler {
  return { name: 'joining', reconcile: async (obj, ctx) => reconcileJoining(obj, ctx) };
}
