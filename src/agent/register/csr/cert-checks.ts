// Pure certificate and CSR decisions of the CSR driver and of the hub kubeconfig validity check.
// Inputs are PEM text, objects and times; nothing here reads files or calls a server.

import { labels, names } from '../../../api/constants.js';
import type { CertificateSigningRequest } from '../../../api/core.js';
import { formatGoDuration } from '../../../util/duration.js';
import { readCertificateInfo, type CertInfo } from '../../../util/native-cert.js';
import { splitPemBlocks } from '../../../util/pem.js';
import { errorMessage } from '../../../util/errors.js';
import { isoUtc } from '../../../util/utc-time.js';

class CertParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CertParseError';
  }
}

/**
 * The texts parsed last used: the agent reads the same certificate several times per sync
 * (validity, rotation window, the hub kubeconfig's verdict) and at every health check, and each
 * parse costs OpenSSL about a millisecond. One agent uses a few entries; a process running many
 * agents (`ocm-ts fleet`) has each of them read its own certificate within the same seconds, so the
 * table holds a few hundred (~1.5 KiB each) and drops the least recently used. Entries are frozen:
 * callers share them.
 */
const parsed = new Map<string, readonly CertInfo[]>();
const PARSED_KEPT = 256;

/** Every CERTIFICATE block of a PEM text; throws CertParseError when one does not parse. */
export function parseCertificates(pem: string): readonly CertInfo[] {
  const known = parsed.get(pem);
  if (known !== undefined) {
    parsed.delete(pem);
    parsed.set(pem, known);
    return known;
  }
  const out: CertInfo[] = [];
  for (const b of splitPemBlocks(pem)) {
    if (b.type !== 'CERTIFICATE') continue;
    try {
      const info = readCertificateInfo(b.der);
      Object.freeze(info.organizations);
      Object.freeze(info.organizationalUnits);
      if (info.extKeyUsageOids) Object.freeze(info.extKeyUsageOids);
      out.push(Object.freeze(info));
    } catch (err) {
      throw new CertParseError(`x509: malformed certificate: ${errorMessage(err)}`);
    }
  }
  if (parsed.size >= PARSED_KEPT) parsed.delete(parsed.keys().next().value!);
  parsed.set(pem, Object.freeze(out));
  return out;
}

export interface ExpectedSubject {
  commonName: string;
  organizations: string[];
  organizationalUnits?: string[];
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const sa = new Set(a);
  const sb = new Set(b);
  if (sa.size !== sb.size) return false;
  for (const v of sa) if (!sb.has(v)) return false;
  return true;
}

/**
 * The stored certificate chain is for the expected subject and none has expired; otherwise the
 * driver creates a CSR.
 * Throws CertParseError when the data is empty or does not parse (OCM logs and creates a CSR).
 */
export function isCertificateValid(pem: string, subject: ExpectedSubject, now: Date): boolean {
  const certs = parseCertificates(pem);
  if (certs.length === 0) throw new CertParseError('unable to parse TLS certificates: data does not contain any valid RSA or ECDSA certificates');
  for (const c of certs) {
    if (now > c.notAfter) return false;
  }
  const leaf = certs[0]!;
  if (leaf.commonName !== subject.commonName) return false;
  if (!sameSet(leaf.organizations, subject.organizations)) return false;
  if (!sameSet(leaf.organizationalUnits, subject.organizationalUnits ?? [])) return false;
  return true;
}

/** Latest NotBefore and earliest NotAfter of the chain (the rotation window); OCM's error messages. */
export function certValidityPeriod(pem: string | undefined, secretRef: string): { notBefore: Date; notAfter: Date } {
  if (pem === undefined || pem === '') throw new Error(`no client certificate found in secret ${JSON.stringify(secretRef)}`);
  let certs: readonly CertInfo[];
  try {
    certs = parseCertificates(pem);
  } catch {
    certs = [];
  }
  if (certs.length === 0) throw new Error('unable to parse TLS certificates: data does not contain any valid RSA or ECDSA certificates');
  let notBefore = certs[0]!.notBefore;
  let notAfter = certs[0]!.notAfter;
  for (const c of certs) {
    if (c.notBefore > notBefore) notBefore = c.notBefore;
    if (c.notAfter < notAfter) notAfter = c.notAfter;
  }
  return { notBefore, notAfter };
}

/**
 * Rotate once remaining/total ≤ threshold, threshold = 0.2 + 0.2 × u × 0.25 (u ∈ [0,1)),
 * i.e. when 20–25 % of the lifetime is left. `dueInMs` says when that point comes (0 when it has),
 * so the caller can look again then instead of waiting for its next resync, which may come after
 * a short-lived certificate has already expired.
 */
export function rotationDue(period: { notBefore: Date; notAfter: Date }, now: Date, u: number): { rotate: boolean; remainingMs: number; dueInMs: number } {
  const total = period.notAfter.getTime() - period.notBefore.getTime();
  const remainingMs = period.notAfter.getTime() - now.getTime();
  const threshold = 0.2 + 0.2 * u * 0.25;
  if (total > 0 && remainingMs / total > threshold) return { rotate: false, remainingMs, dueInMs: Math.ceil(remainingMs - threshold * total) };
  return { rotate: true, remainingMs, dueInMs: 0 };
}

/** `The current client certificate … expires in <d>` uses the remaining time rounded to seconds. */
export function formatRemaining(ms: number): string {
  return formatGoDuration(Math.round(ms / 1000) * 1000);
}

/** Approved = at least one Approved condition and no Denied one (a denied CSR is waited on, as OCM does). */
export function isCsrApproved(csr: CertificateSigningRequest): boolean {
  const conds = csr.status?.conditions ?? [];
  let approved = false;
  for (const c of conds) {
    if (c.type === 'Denied') return false;
    if (c.type === 'Approved') approved = true;
  }
  return approved;
}

/** Hub CSR events that concern this cluster's own CSRs: cluster label, no addon label, name `<cluster>-…`. */
export function isClusterCsr(csr: CertificateSigningRequest, cluster: string): boolean {
  const l = csr.metadata.labels ?? {};
  return l[labels.clusterName] === cluster && !(labels.addonName in l) && (csr.metadata.name ?? '').startsWith(`${cluster}-`);
}

/** Index "by cluster" of the CSR cache, as OCM's: the cluster label of CSRs without an addon label. */
export function clusterIndexOf(csr: CertificateSigningRequest): string[] {
  const l = csr.metadata.labels ?? {};
  const c = l[labels.clusterName];
  if (c === undefined || labels.addonName in l) return [];
  return [c];
}

export const CSR_HALT_LIMIT = 10;

/**
 * CSR creation halts when the cache holds ≥ 10 CSRs indexed under the cluster, so that an agent whose
 * CSRs are never approved does not flood the hub with new ones.
 */
export function csrCreationHalted(cached: readonly CertificateSigningRequest[], cluster: string): boolean {
  let n = 0;
  for (const csr of cached) if (clusterIndexOf(csr).includes(cluster)) n++;
  return n >= CSR_HALT_LIMIT;
}

/** Go's default time.Time format for UTC times: `2006-01-02 15:04:05 +0000 UTC`. */
export function goTimeString(d: Date): string {
  const iso = isoUtc(d.getTime());
  const frac = iso.slice(20, 23).replace(/0+$/, '');
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${frac ? `.${frac}` : ''} +0000 UTC`;
}

/**
 * (cluster, agent) from the first CN of the form `system:open-cluster-management:<c>:<a>`; the hub
 * kubeconfig validity check compares them with the expected names.
 */
export function clusterAndAgentFromCerts(certs: readonly CertInfo[]): { cluster: string; agent: string } {
  for (const c of certs) {
    if (!c.commonName.startsWith(names.userPrefix)) continue;
    const parts = c.commonName.slice(names.userPrefix.length).split(':');
    if (parts.length === 2) return { cluster: parts[0]!, agent: parts[1]! };
  }
  return { cluster: '', agent: '' };
}
