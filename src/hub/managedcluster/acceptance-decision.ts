// Pure decisions of ManagedClusterController: which branch a sync takes (the first that matches, in
// the order below), and the HubAcceptedManagedCluster condition it writes.

import type { ManagedCluster } from '../../api/cluster.js';
import { isConditionTrue, rfc3339 } from '../../api/conditions.js';
import { annotations, conditionTypes, finalizers, reasons } from '../../api/constants.js';
import type { Condition } from '../../api/meta.js';
import { preconditions } from '../../client/patch-writer.js';
import { taintsToWrite } from '../taint/taint-decision.js';

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
 * One merge patch: annotation = now, plus hubAcceptsClient when false, plus what the hub's other
 * controllers would otherwise write to the new cluster in the same moment, each in a write of its
 * own: the finalizers an accepted cluster carries when missing (api-resource-cleanup, which the
 * accepted branch this leads to adds next, and with `resourceCleanup` the GC controller's), and the
 * taints its conditions call for (a new cluster is unreachable until its agent reports). A join
 * thus has three writes of its cluster fewer on its way to the certificate; those controllers leave
 * a cluster about to be auto-accepted to this write. Guarded by the cluster's uid and
 * resourceVersion (OCM's is not): a write whose version is known to be replaced is then retried
 * against the newest copy before it is sent, where an unguarded one made the next of them fail at
 * the server; the guard also keeps the finalizer and taint lists, which a merge patch replaces
 * whole, from dropping one written meanwhile.
 */
export function autoAcceptPatch(cluster: ManagedCluster, now: Date, o: { resourceCleanup: boolean }): Record<string, unknown> {
  const metadata: Record<string, unknown> = { ...preconditions(cluster), annotations: { [annotations.autoAcceptedOn]: rfc3339(now) } };
  const existing = cluster.metadata.finalizers ?? [];
  const wanted = o.resourceCleanup ? [finalizers.apiResourceCleanup, finalizers.resourceCleanup] : [finalizers.apiResourceCleanup];
  const missing = wanted.filter((f) => !existing.includes(f));
  if (missing.length > 0) metadata['finalizers'] = [...existing, ...missing];
  const spec: Record<string, unknown> = {};
  if (cluster.spec?.hubAcceptsClient !== true) spec['hubAcceptsClient'] = true;
  const taints = taintsToWrite(cluster.spec?.taints, cluster.status?.conditions);
  if (taints !== undefined) spec['taints'] = [...taints];
  return Object.keys(spec).length > 0 ? { metadata, spec } : { metadata };
}

/**
 * Whether the hub's acceptance is about to write this cluster, carrying what other controllers
 * (taints, the GC finalizer) would write to it: they leave it to that write, and check again at the
 * cluster's next change.
 */
export function awaitsAutoAccept(cluster: ManagedCluster, autoApproval: boolean): boolean {
  return clusterBranch(cluster, autoApproval) === 'autoAccept';
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
