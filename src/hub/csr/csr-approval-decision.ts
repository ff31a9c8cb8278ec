// CSR approval rules (hub-controller.md §7.2, §7.3). Pure: validation of a spoke-cluster CSR and which
// reconciler (renewal with SubjectAccessReview, or bootstrap user list) may approve it.

import { labels as wellKnownLabels, names } from '../../api/constants.js';
import type { CertificateSigningRequest } from '../../api/core.js';
import { parseCsr, splitPemBlocks } from '../../util/x509.js';

export type CsrValidation = { valid: true; cluster: string; commonName: string } | { valid: false; why: string };

/** §7.2: all checks must hold; never throws (garbage input is "invalid" with a reason). */
export function validateSpokeCsr(csr: CertificateSigningRequest, signerName: string): CsrValidation {
  const cluster = csr.metadata.labels?.[wellKnownLabels.clusterName];
  if (cluster === undefined) return { valid: false, why: 'missing cluster-name label' };
  if (csr.spec?.signerName !== signerName) return { valid: false, why: `signer ${String(csr.spec?.signerName)} is not ${signerName}` };
  let pem: string;
  try {
    pem = Buffer.from(String(csr.spec.request ?? ''), 'base64').toString('utf8');
  } catch {
    return { valid: false, why: 'spec.request is not base64' };
  }
  const blocks = splitPemBlocks(pem);
  if (blocks.length === 0 || blocks[0]!.type !== 'CERTIFICATE REQUEST') return { valid: false, why: 'PEM block type must be CERTIFICATE REQUEST' };
  let cn: string;
  let orgs: string[];
  try {
    const parsed = parseCsr(pem);
    cn = parsed.commonName;
    orgs = parsed.organizations;
  } catch (err) {
    return { valid: false, why: `cannot parse certificate request: ${(err as Error).message}` };
  }
  const distinct = new Set(orgs.filter((o) => o !== names.managedClustersGroup));
  if (distinct.size !== 1) return { valid: false, why: 'organization must name exactly one cluster group' };
  const expectedOrg = `${names.userPrefix}${cluster}`;
  if (!distinct.has(expectedOrg)) return { valid: false, why: `organization is not ${expectedOrg}` };
  if (!cn.startsWith(names.userPrefix)) return { valid: false, why: `common name does not start with ${names.userPrefix}` };
  const parts = cn.slice(names.userPrefix.length).split(':');
  if (parts.length !== 2 || parts[0] === '' || parts[1] === '') return { valid: false, why: 'common name must be system:open-cluster-management:<cluster>:<agent>' };
  if (parts[0] !== cluster) return { valid: false, why: `common name names cluster ${parts[0]}, label names ${cluster}` };
  return { valid: true, cluster, commonName: cn };
}

/** Approved or Denied (any status) means a human or controller already decided. */
export function isTerminalCsr(csr: CertificateSigningRequest): boolean {
  return (csr.status?.conditions ?? []).some((c) => c.type === 'Approved' || c.type === 'Denied');
}

export type ApprovalPlan =
  | { kind: 'skip'; why: string }
  /** Renewal: approve only if a SubjectAccessReview for `renew` allows the requester. */
  | { kind: 'renewal'; cluster: string }
  /** Bootstrap user in the auto-approval list (gate on). */
  | { kind: 'bootstrap'; cluster: string };

export function planApproval(csr: CertificateSigningRequest, opts: { signerName: string; autoApproval: boolean; autoApprovedUsers: readonly string[] }): ApprovalPlan {
  if (isTerminalCsr(csr)) return { kind: 'skip', why: 'already approved or denied' };
  const v = validateSpokeCsr(csr, opts.signerName);
  if (!v.valid) return { kind: 'skip', why: v.why };
  if (csr.spec.username === v.commonName) return { kind: 'renewal', cluster: v.cluster };
  if (!opts.autoApproval) return { kind: 'skip', why: 'left for manual approval' };
  if (csr.spec.username !== undefined && opts.autoApprovedUsers.includes(csr.spec.username)) return { kind: 'bootstrap', cluster: v.cluster };
  return { kind: 'skip', why: 'requester is not an auto-approved user' };
}

export const APPROVAL_MESSAGE = 'Auto approving Managed cluster agent certificate after SubjectAccessReview.';
