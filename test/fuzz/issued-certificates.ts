// "The signer never issues a certificate it must not": every certificate that appears in a CSR's
// status is checked against the identities no approval may mint (the hub's own `ocm-ts:` identities,
// system:masters) and, for a CSR carrying OCM's cluster-name label, against that cluster's agent
// identity. An oracle of its own, independent of the server's signer policy.

import type { StoreEvent } from '../../src/apiserver/storage/types.js';
import { parseCertificate } from '../../src/util/x509.js';
import type { Violation } from './response-oracle.js';

const CLUSTER_LABEL = 'open-cluster-management.io/cluster-name';
const OCM_PREFIX = 'system:open-cluster-management:';

/** Why a certificate for this subject must not exist ([] when it may). */
export function certificateProblems(commonName: string, organizations: readonly string[], labels: Readonly<Record<string, string>>): string[] {
  const out: string[] = [];
  for (const n of [commonName, ...organizations]) if (n.startsWith('ocm-ts:')) out.push(`internal identity ${n}`);
  if (organizations.includes('system:masters')) out.push('group system:masters');
  const cluster = labels[CLUSTER_LABEL];
  if (cluster !== undefined) {
    const agent = commonName.startsWith(`${OCM_PREFIX}${cluster}:`) && !commonName.slice(`${OCM_PREFIX}${cluster}:`.length).includes(':');
    if (!agent) out.push(`CN ${commonName} is not an agent of cluster ${cluster}, whose label the CSR carries`);
    const allowed = new Set([`${OCM_PREFIX}${cluster}`, `${OCM_PREFIX}managed-clusters`]);
    for (const o of organizations) if (!allowed.has(o)) out.push(`group ${o} on cluster ${cluster}'s agent`);
  }
  return out;
}

/** Violations for certificates issued in these store events; `issued` counts the certificates seen. */
export function issuedCertificateViolations(events: readonly StoreEvent[], issued?: { count: number }): Violation[] {
  const out: Violation[] = [];
  for (const ev of events) {
    if (ev.type === 'DELETED' || !ev.key.startsWith('/certificates.k8s.io/certificatesigningrequests/')) continue;
    const cert = (ev.object as { status?: { certificate?: unknown } }).status?.certificate;
    const before = (ev.prevObject as { status?: { certificate?: unknown } } | undefined)?.status?.certificate;
    if (typeof cert !== 'string' || cert === '' || cert === before) continue;
    let parsed;
    try {
      parsed = parseCertificate(Buffer.from(cert, 'base64').toString('utf8'));
    } catch {
      continue; // not a certificate the server issued (a status written by a client)
    }
    if (issued) issued.count++;
    const problems = certificateProblems(parsed.commonName, parsed.organizations, ev.object.metadata.labels ?? {});
    if (problems.length > 0) out.push({ kind: 'forbidden-certificate-issued', detail: `${ev.key}: issued for ${parsed.subject}: ${problems.join('; ')}` });
  }
  return out;
}
