// "Hub kubeconfig is valid" (spoke-agent.md §4.2), for the CSR driver: used to decide whether to
// bootstrap, to end the bootstrap wait, and by the health check. `false` = invalid (bootstrap),
// a thrown error = a broken kubeconfig file (start fails).

import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { hubSecretKeys } from '../../api/constants.js';
import { clusterAndAgentFromCerts, parseCertificates, type CertInfo } from './csr/cert-checks.js';
import { loadCurrentCluster, sameHub } from './raw-kubeconfig.js';

export interface SecretOption {
  secretNamespace: string;
  secretName: string;
  clusterName: string;
  agentName: string;
  hubKubeconfigFile: string;
  hubKubeconfigDir: string;
  /** Path of the current bootstrap kubeconfig ('' when none). */
  bootstrapKubeconfigFile: string;
}

export function isHubKubeconfigValid(opt: SecretOption, now: Date): boolean {
  if (opt.bootstrapKubeconfigFile !== '') {
    if (!existsSync(opt.hubKubeconfigFile)) return false;
    const bootstrap = loadCurrentCluster(opt.bootstrapKubeconfigFile);
    const hub = loadCurrentCluster(opt.hubKubeconfigFile);
    if (!sameHub(bootstrap, hub)) return false;
  }
  return isClientCertValid(opt, now);
}

/** The CSR driver's part: key present, certificate readable, for this cluster/agent, not expired. */
export function isClientCertValid(opt: Pick<SecretOption, 'hubKubeconfigDir' | 'clusterName' | 'agentName'>, now: Date): boolean {
  try {
    statSync(join(opt.hubKubeconfigDir, hubSecretKeys.tlsKey));
  } catch {
    return false;
  }
  let pem: string;
  try {
    pem = readFileSync(join(opt.hubKubeconfigDir, hubSecretKeys.tlsCert), 'utf8');
  } catch {
    return false;
  }
  let certs: CertInfo[];
  if (opt.clusterName !== '' && opt.agentName !== '') {
    try {
      certs = parseCertificates(pem);
    } catch {
      return false;
    }
    const { cluster, agent } = clusterAndAgentFromCerts(certs);
    if (cluster !== opt.clusterName || agent !== opt.agentName) return false;
  } else {
    try {
      certs = parseCertificates(pem);
    } catch (err) {
      throw new Error(`unable to parse certificate: ${(err as Error).message}`);
    }
    if (certs.length === 0) throw new Error('no cert found in certificate');
  }
  return certs.every((c) => now <= c.notAfter);
}
