// Pure decisions of ManagedClusterController: which branch a sync takes (the first that matches, in
// the order below), and the HubAcceptedManagedCluster condition it writes.

import type { ManagedCluster } from '../../api/cluster.js';
import { isConditionTrue, rfc3339 } from '../../api/conditions.js';
import { annotations, conditionTypes, finalizers, reasons } from '../../api/constants.js';
import type { Condition } from '../../api/meta.js';
import { preconditions } from '../../client/patch-writer.js';

export type ClusterBranch =
  /** Gone: remove RBAC. */
  | 'gone'
  /** Deleting: remove RBAC, then the api-resource-cleanup finalizer. */
  | 'deleting'
  /** Auto-accept once (gate on, annotation absent). */
  | 'autoAccept'
  /** Not accepted and never was: nothing to do (no namespace, RBAC or finalizer). */
  | 'idle'
  /** Not accepted but was: downgrade RBAC, condition False. */
  | 'deny'
  /** Accepted: namespace, RBAC, finalizer, condition True (runs on every sync, idempotent). */
  | 'accept';

export function clusterBranch(cluster: ManagedCluster | undefined, autoApproval: boolean): ClusterBranch {
  if (!cluster) return 'gone';
  if (cluster.metadata.deletionTimestamp) return 'deleting';
  if (autoApproval && cluster.metadata.annotations?.[annotations.autoAcceptedOn] === undefined) return 'autoAccept';
  if (cluster.spec?.hubAcceptsClient !== true) {
    return isConditionTrue(cluster.status?.conditions, conditionTypes.hubAccepted) ? 'deny' : 'idle';
  }
  return 'accept';
}

/**
 * One merge patch: annotation = now, plus hubAcceptsClient when false, plus the finalizers an accepted
 * cluster carries when missing: api-resource-cleanup, which the accepted branch this leads to adds
 * next, and with `resourceCleanup` (the GC controller runs) the GC's, which that controller would add
 * in a write of its own in the same moment. In this one write, a join has two writes of its cluster
 * fewer on its way to the certificate. Guarded by the cluster's uid and resourceVersion (OCM's is
 * not): the hub's other controllers write a new cluster in the same moment, and a write whose version
 * is known to be replaced is then retried against the newest copy before it is sent, where an
 * unguarded one made the next of them fail at the server; the guard also keeps the finalizer list,
 * which a merge patch replaces whole, from dropping one written meanwhile.
 */
export function autoAcceptPatch(cluster: ManagedCluster, now: Date, o: { resourceCleanup: boolean }): Record<string, unknown> {
  const metadata: Record<string, unknown> = { ...preconditions(cluster), annotations: { [annotations.autoAcceptedOn]: rfc3339(now) } };
  const existing = cluster.metadata.finalizers ?? [];
  const wanted = o.resourceCleanup ? [finalizers.apiResourceCleanup, finalizers.resourceCleanup] : [finalizers.apiResourceCleanup];
  const missing = wanted.filter((f) => !existing.includes(f));
  if (missing.length > 0) metadata['finalizers'] = [...existing, ...missing];
  const patch: Record<string, unknown> = { metadata };
  if (cluster.spec?.hubAcceptsClient !== true) patch['spec'] = { hubAcceptsClient: true };
  return patch;
}

export function acceptedCondition(errorText: string | undefined): Condition {
  if (errorText === undefined) {
    return { type: conditionTypes.hubAccepted, status: 'True', reason: reasons.hubClusterAdminAccepted, message: 'Accepted by hub cluster admin' };
  }
  return { type: conditionTypes.hubAccepted, status: 'False', reason: reasons.error, message: errorText };
}

export const DENIED_CONDITION: Readonly<Condition> = Object.freeze({
  type: conditionTypes.hubAccepted,
  status: 'False',
  reason: reasons.hubClusterAdminDenied,
  message: 'Denied by hub cluster admin',
});
