// CSR approval rules of the hub's approver. Pure: which reconciler, if any, may approve a CSR
// (renewal after a SubjectAccessReview, or a listed bootstrap user). What makes a CSR a managed
// cluster agent's is the rule shared with `ocm-ts accept`, so neither approves what the other refuses.

import type { ManagedCluster } from '../../api/cluster.js';
import { csrRequester, validateClusterCsr } from '../../api/cluster-csr.js';
import { isConditionTrue } from '../../api/conditions.js';
import { annotations, conditionTypes } from '../../api/constants.js';
import type { CertificateSigningRequest } from '../../api/core.js';

/** Approved or Denied (any status) means a human or controller already decided. */
function isTerminalCsr(csr: CertificateSigningRequest): boolean {
  return (csr.status?.conditions ?? []).some((c) => c.type === 'Approved' || c.type === 'Denied');
}

export type ApprovalPlan =
  | { kind: 'skip'; why: string }
  /** Not a valid managed cluster agent CSR: never approved by any path. */
  | { kind: 'refuse'; why: string }
  /** Renewal: approve only if a SubjectAccessReview for `renew` allows the requester. */
  | { kind: 'renewal'; cluster: string }
  /** Bootstrap user in the auto-approval list (gate on). */
  | { kind: 'bootstrap'; cluster: string };

export interface ApprovalOptions {
  autoApproval: boolean;
  autoApprovedUsers: readonly string[];
}

export function planApproval(csr: CertificateSigningRequest, opts: ApprovalOptions): ApprovalPlan {
  if (isTerminalCsr(csr)) return { kind: 'skip', why: 'already approved or denied' };
  // Listed auto-approval users count as bootstrap identities, like `accept --bootstrap-users`.
  const v = validateClusterCsr(csr, { bootstrapUsers: opts.autoApprovedUsers });
  if (!v.valid) return { kind: 'refuse', why: v.reason };
  const requester = csrRequester(csr).username;
  if (requester === v.commonName) return { kind: 'renewal', cluster: v.cluster };
  if (!opts.autoApproval) return { kind: 'skip', why: 'left for manual approval' };
  if (requester !== undefined && opts.autoApprovedUsers.includes(requester)) return { kind: 'bootstrap', cluster: v.cluster };
  return { kind: 'skip', why: 'requester is not an auto-approved user' };
}

export const APPROVAL_MESSAGE = 'Auto approving Managed cluster agent certificate after SubjectAccessReview.';

/**
 * When to approve a bootstrap CSR under ManagedClusterAutoApproval. The gate also makes the hub
 * accept every cluster, so both happen anyway; approving once the cluster's RBAC is written (its
 * role and bindings are in the hub's caches, or HubAcceptedManagedCluster is True) hands the agent
 * a certificate its main phase can use at once, where approving first let the agent's requests
 * meet a hub without its RBAC, fail with 403 and back off for a second. Only a cluster on its way
 * to acceptance is waited for, and not longer than `maxWaitMs` after the CSR's creation: a CSR
 * without a ManagedCluster (yet), or of a cluster denied after its automatic acceptance, is
 * approved at once, as before.
 */
export function bootstrapApprovalTiming(
  cluster: ManagedCluster | undefined,
  rbacWritten: boolean,
  csrCreatedMs: number,
  nowMs: number,
  maxWaitMs: number,
): { approve: true } | { approve: false; recheckInMs: number } {
  if (cluster && isConditionTrue(cluster.status?.conditions, conditionTypes.hubAccepted)) return { approve: true };
  if (cluster && cluster.spec?.hubAcceptsClient === true && rbacWritten) return { approve: true };
  const beingAccepted = cluster !== undefined && (cluster.metadata.annotations?.[annotations.autoAcceptedOn] === undefined || cluster.spec?.hubAcceptsClient === true);
  const left = csrCreatedMs + maxWaitMs - nowMs;
  if (!beingAccepted || left <= 0) return { approve: true };
  return { approve: false, recheckInMs: left };
}
