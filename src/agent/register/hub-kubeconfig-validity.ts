// "Hub kubeconfig is valid", for the CSR driver: used to decide whether to
// bootstrap, to end the bootstrap wait, and by the health check. `false` = invalid (bootstrap),
// a thrown error = a broken kubeconfig file (start fails).
//
// The health check runs every few seconds; createHubKubeconfigValidity() keeps, per checker, what
// the files said last time (keyed by each file's inode, size, mtime and ctime) and only re-reads and
// re-parses them when one changed. Expiry is always re-evaluated against the given time.

import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { hubSecretKeys } from '../../api/constants.js';
import type { CertInfo } from '../../util/native-cert.js';
import { clusterAndAgentFromCerts, parseCertificates } from './csr/cert-checks.js';
import { loadCurrentCluster, sameHub } from './raw-kubeconfig.js';
import { errorMessage, toError } from '../../util/errors.js';

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

/**
 * What the files say, independent of the time: invalid, broken (throws), or valid until the
 * earliest NotAfter of the chain.
 */
type FileVerdict = { kind: 'invalid' } | { kind: 'error'; err: Error } | { kind: 'certs'; notAfters: Date[] };

function fileVerdict(opt: SecretOption): FileVerdict {
  try {
    if (opt.bootstrapKubeconfigFile !== '') {
      if (!existsSync(opt.hubKubeconfigFile)) return { kind: 'invalid' };
      const bootstrap = loadCurrentCluster(opt.bootstrapKubeconfigFile);
      const hub = loadCurrentCluster(opt.hubKubeconfigFile);
      if (!sameHub(bootstrap, hub)) return { kind: 'invalid' };
    }
    const certs = clientCertsOf(opt);
    return certs === undefined ? { kind: 'invalid' } : { kind: 'certs', notAfters: certs.map((c) => c.notAfter) };
  } catch (err) {
    return { kind: 'error', err: toError(err) };
  }
}

function verdictAt(v: FileVerdict, now: Date): boolean {
  if (v.kind === 'error') throw v.err;
  if (v.kind === 'invalid') return false;
  return v.notAfters.every((t) => now <= t);
}

export function isHubKubeconfigValid(opt: SecretOption, now: Date): boolean {
  return verdictAt(fileVerdict(opt), now);
}

/** One file's identity and version ('-' when absent). */
function fileStamp(path: string): string {
  if (path === '') return '';
  try {
    // Missing files are the rule while bootstrapping (checked every second): no exception for them,
    // whose stack trace cost ~10× the stat itself.
    const s = statSync(path, { bigint: true, throwIfNoEntry: false });
    return s === undefined ? '-' : `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
  } catch {
    return '-';
  }
}

/** A validity check for one SecretOption that re-reads the files only when one of them changed. */
export function createHubKubeconfigValidity(opt: SecretOption): (now: Date) => boolean {
  const files = [opt.bootstrapKubeconfigFile, opt.hubKubeconfigFile, join(opt.hubKubeconfigDir, hubSecretKeys.tlsKey), join(opt.hubKubeconfigDir, hubSecretKeys.tlsCert)];
  let last: { stamp: string; verdict: FileVerdict } | undefined;
  return (now) => {
    const stamp = files.map(fileStamp).join('|');
    if (last === undefined || last.stamp !== stamp) {
      const verdict = fileVerdict(opt);
      // A file changing while it is read leaves the stamp different: do not keep that verdict.
      last = stamp === files.map(fileStamp).join('|') ? { stamp, verdict } : undefined;
      return verdictAt(verdict, now);
    }
    return verdictAt(last.verdict, now);
  };
}

/** The stored chain when it is usable (key present, readable, for this cluster/agent); undefined = invalid; throws = broken. */
function clientCertsOf(opt: Pick<SecretOption, 'hubKubeconfigDir' | 'clusterName' | 'agentName'>): readonly CertInfo[] | undefined {
  try {
    statSync(join(opt.hubKubeconfigDir, hubSecretKeys.tlsKey));
  } catch {
    return undefined;
  }
  let pem: string;
  try {
    pem = readFileSync(join(opt.hubKubeconfigDir, hubSecretKeys.tlsCert), 'utf8');
  } catch {
    return undefined;
  }
  let certs: readonly CertInfo[];
  if (opt.clusterName !== '' && opt.agentName !== '') {
    try {
      certs = parseCertificates(pem);
    } catch {
      return undefined;
    }
    const { cluster, agent } = clusterAndAgentFromCerts(certs);
    if (cluster !== opt.clusterName || agent !== opt.agentName) return undefined;
  } else {
    try {
      certs = parseCertificates(pem);
    } catch (err) {
      throw new Error(`unable to parse certificate: ${errorMessage(err)}`);
    }
    if (certs.length === 0) throw new Error('no cert found in certificate');
  }
  return certs;
}
