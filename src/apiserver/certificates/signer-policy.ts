// Pure decisions of the built-in signer: whether a CSR is ours to sign, whether its usages and
// subject are acceptable, and the validity window.

import { labelledSubjectProblem } from '../../api/cluster-csr.js';
import { decodeCsrRequest, type CsrSubject } from '../../api/csr-subject.js';
import type { KubeObject } from '../../api/meta.js';
import type { ExtKeyUsageName, KeyUsageName, ParsedCsr } from '../../util/x509.js';
import { conditionsOf, specOf, statusOf } from './csr-validation.js';
import { KUBE_APISERVER_CLIENT_SIGNER } from './csr-admission.js';

const SIGNED_SIGNERS = [KUBE_APISERVER_CLIENT_SIGNER] as const;
const MIN_TTL_MS = 600_000;
const BACKDATE_MS = 5 * 60_000;
const SHORT_TTL_MS = 8 * 3600_000;

export type SignDecision =
  | { action: 'ignore'; why: string }
  | { action: 'fail'; message: string }
  | { action: 'sign'; request: ParsedCsr; keyUsages: KeyUsageName[]; extKeyUsages: ExtKeyUsageName[]; notBefore: Date; notAfter: Date };

/**
 * CN prefix of the server's and the hub's own identities (the admin, the hub controllers). A client
 * certificate for one of them is the hub itself, so no approval, however obtained, may mint one.
 */
const INTERNAL_IDENTITY_PREFIX = 'ocm-ts:';
const MASTERS_GROUP = 'system:masters';

const KEY_USAGES: Record<string, KeyUsageName> = { 'digital signature': 'digitalSignature', 'key encipherment': 'keyEncipherment' };
const EXT_KEY_USAGES: Record<string, ExtKeyUsageName> = { 'client auth': 'clientAuth' };

/** Is the CSR approved (True), not denied, not failed, unsigned, for a signer we own? */
function needsSigning(csr: KubeObject): { yes: true } | { yes: false; why: string } {
  const signer = specOf(csr).signerName;
  if (typeof signer !== 'string' || !(SIGNED_SIGNERS as readonly string[]).includes(signer)) return { yes: false, why: 'not our signer' };
  if (statusOf(csr).certificate) return { yes: false, why: 'already signed' };
  const conds = conditionsOf(csr);
  if (conds.some((c) => c.type === 'Denied')) return { yes: false, why: 'denied' };
  if (conds.some((c) => c.type === 'Failed')) return { yes: false, why: 'failed' };
  if (!conds.some((c) => c.type === 'Approved' && c.status === 'True')) return { yes: false, why: 'not approved' };
  return { yes: true };
}

/**
 * Certificate lifetime: `clusterSigningDuration`, or `spec.expirationSeconds` (raised to 600 s)
 * when shorter. Returned in milliseconds.
 */
export function signingTtlMs(expirationSeconds: unknown, clusterSigningDurationMs: number): number {
  if (typeof expirationSeconds !== 'number' || !Number.isFinite(expirationSeconds)) return clusterSigningDurationMs;
  return Math.min(clusterSigningDurationMs, Math.max(expirationSeconds * 1000, MIN_TTL_MS));
}

/**
 * Validity window. notBefore is backdated by 5 minutes for clock skew — but by at most a tenth of
 * the lifetime, so the very short certificates tests ask for (a 20 s cluster signing duration)
 * do not look 95 % expired on arrival (a deliberate deviation from upstream, which always backdates
 * 5 minutes and never issues below 10 minutes). notAfter = now + ttl (− backdate when ttl ≥ 8 h),
 * capped at the CA's notAfter.
 */
export function validityWindow(nowMs: number, ttlMs: number, caNotAfterMs: number): { notBefore: Date; notAfter: Date } {
  const backdate = Math.min(BACKDATE_MS, Math.floor(ttlMs / 10));
  const end = ttlMs >= SHORT_TTL_MS ? nowMs + ttlMs - backdate : nowMs + ttlMs;
  return { notBefore: new Date(nowMs - backdate), notAfter: new Date(Math.min(end, caNotAfterMs)) };
}

/**
 * Why a certificate with this subject must not be issued even though the CSR is approved; undefined
 * when it may. Defence in depth behind the approvers: internal identities and system:masters never,
 * and a CSR carrying OCM's cluster-name label only for the identity its labels name. CSRs without
 * OCM's labels (an admin minting a certificate for `alice`) are signed as kube-apiserver would.
 */
function subjectProblem(labels: Readonly<Record<string, string>> | undefined, subject: Pick<CsrSubject, 'commonNames' | 'organizations'>): string | undefined {
  const internal = [...subject.commonNames, ...subject.organizations].find((n) => n.startsWith(INTERNAL_IDENTITY_PREFIX));
  if (internal !== undefined) return `${internal} is reserved for the hub's own components`;
  if (subject.organizations.includes(MASTERS_GROUP)) return `use of ${KUBE_APISERVER_CLIENT_SIGNER} signer with ${MASTERS_GROUP} group is not allowed`;
  const ocm = labelledSubjectProblem(labels, subject);
  return ocm === undefined ? undefined : `the subject is not the identity named by the CSR's open-cluster-management.io labels: ${ocm}`;
}

/** The full decision for one CSR at `nowMs`. */
export function decideSigning(csr: KubeObject, nowMs: number, clusterSigningDurationMs: number, caNotAfterMs: number): SignDecision {
  const need = needsSigning(csr);
  if (!need.yes) return { action: 'ignore', why: need.why };
  const usages = Array.isArray(specOf(csr).usages) ? (specOf(csr).usages as unknown[]) : [];
  const keyUsages: KeyUsageName[] = [];
  const extKeyUsages: ExtKeyUsageName[] = [];
  for (const u of usages) {
    const s = String(u);
    if (KEY_USAGES[s]) keyUsages.push(KEY_USAGES[s]);
    else if (EXT_KEY_USAGES[s]) extKeyUsages.push(EXT_KEY_USAGES[s]);
    else return { action: 'fail', message: `invalid usage for client certificate: ${s}` };
  }
  if (!extKeyUsages.includes('clientAuth')) return { action: 'fail', message: 'missing required usage for client certificate: client auth' };
  if (caNotAfterMs <= nowMs) return { action: 'ignore', why: 'the signing CA has expired' };
  const decoded = decodeCsrRequest(specOf(csr).request);
  if (!decoded.ok) return { action: 'fail', message: `unable to parse csr: ${decoded.reason}` };
  const problem = subjectProblem(csr.metadata.labels, decoded.subject);
  if (problem !== undefined) return { action: 'fail', message: `refusing to sign: ${problem}` };
  const ttl = signingTtlMs(specOf(csr).expirationSeconds, clusterSigningDurationMs);
  return { action: 'sign', request: decoded.subject.parsed, keyUsages, extKeyUsages, ...validityWindow(nowMs, ttl, caNotAfterMs) };
}
