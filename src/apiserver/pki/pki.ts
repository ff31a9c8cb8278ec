// The embedded server's PKI: one self-signed CA that signs the serving certificate, the admin
// client certificate and every certificate the CSR signer issues. The same CA is the client-CA
// bundle the x509 authenticator trusts, so issued certificates authenticate immediately, and it is
// the CA that goes into kubeconfigs as `certificate-authority-data`.
//
// Files in `dir` (created on first call, reused afterwards; the directory 0700 and every file in
// it 0600, re-tightened on each call):
//   ca.crt, ca.key                 the CA (10 years by default)
//   apiserver.crt, apiserver.key   serving certificate, SANs 127.0.0.1, ::1, localhost + extra names
//   sa.key                         ECDSA P-256 key signing service-account tokens (JWT ES256)
// The serving certificate is re-issued (same CA) when it is missing, expires within 30 days, or
// lacks one of the requested names.

import { readFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { join } from 'node:path';
import type { Clock } from '../../util/clock.js';
import { realClock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { nullLogger } from '../../util/logger.js';
import { tightenDataDir, writePrivateFile } from '../../util/private-files.js';
import {
  createSelfSignedCa,
  generateKeyPair,
  issueCertificate,
  keyMatchesCertificate,
  parseCertificate,
  type ExtKeyUsageName,
  type KeyAlgorithm,
  type SigningCa,
} from '../../util/x509.js';

const DAY_MS = 24 * 3600 * 1000;
/** Clock skew allowance: certificates start 5 minutes in the past (as kube-controller-manager does). */
const BACKDATE_MS = 5 * 60 * 1000;

export interface PkiOptions {
  /** Extra DNS names or IP addresses for the serving certificate. */
  extraSans?: string[];
  /** Key algorithm for the CA, serving and admin keys. Default ecdsa-p256. */
  keyAlgorithm?: KeyAlgorithm;
  /** Default 10 years. */
  caValidityMs?: number;
  /** Default 1 year. */
  servingValidityMs?: number;
  /** CA common name. Default `ocm-ts-ca@<unix seconds>`. */
  caCommonName?: string;
  clock?: Clock;
  log?: Logger;
}

interface IssueClientCertificateOptions {
  commonName: string;
  organizations?: string[];
  /** Default 1 year. */
  validityMs?: number;
  /** Default ecdsa-p256. */
  keyAlgorithm?: KeyAlgorithm;
}

interface IssuedCertificate {
  certPem: string;
  /** PKCS#8 PEM. Secret: never log. */
  keyPem: string;
}

export interface Pki {
  readonly dir: string;
  /** CA certificate (PEM): trust anchor for the serving certificate and client-CA bundle. */
  readonly caPem: string;
  /** Client-CA bundle the x509 authenticator trusts (the same CA). */
  readonly clientCaPem: string;
  readonly servingCertPem: string;
  /** Secret: never log. */
  readonly servingKeyPem: string;
  /** Names and addresses the serving certificate covers. */
  readonly servingSans: string[];
  /** CA certificate and key for the CSR signer. Secret: never log. */
  readonly signingCa: SigningCa;
  /** PKCS#8 PEM EC key for service-account token signatures. Secret: never log. */
  readonly serviceAccountKeyPem: string;
  issueClientCertificate(opts: IssueClientCertificateOptions): Promise<IssuedCertificate>;
}

const DEFAULT_SANS = ['127.0.0.1', '::1', 'localhost'];

/** Writes a file atomically with mode 0600 (the temp file is created 0600, then renamed). */
export async function writeSecretFile(path: string, content: string): Promise<void> {
  await writePrivateFile(path, content);
}

async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

function servingCertUsable(certPem: string, keyPem: string, ca: SigningCa, sans: string[], now: number): boolean {
  try {
    const c = parseCertificate(certPem);
    if (c.notAfter.getTime() - now < 30 * DAY_MS) return false;
    if (!keyMatchesCertificate(certPem, keyPem)) return false;
    if (c.issuer !== parseCertificate(ca.certPem).subject) return false;
    const have = new Set([...c.dnsNames, ...c.ipAddresses.map(normaliseIp)]);
    return sans.every((s) => have.has(isIP(s) ? normaliseIp(s) : s));
  } catch {
    return false;
  }
}

function normaliseIp(ip: string): string {
  if (isIP(ip) === 6) {
    // Expand to a canonical form so "::1" and "0:0:0:0:0:0:0:1" compare equal.
    const [head, tail] = ip.split('::') as [string, string | undefined];
    const h = head ? head.split(':') : [];
    const t = tail !== undefined && tail !== '' ? tail.split(':') : [];
    const fill = tail === undefined ? [] : new Array<string>(8 - h.length - t.length).fill('0');
    return [...h, ...fill, ...t].map((p) => parseInt(p, 16).toString(16)).join(':');
  }
  return ip;
}

/**
 * Creates (first call) or loads (later calls) the CA and serving certificate under `dir`.
 */
export async function ensurePki(dir: string, opts: PkiOptions = {}): Promise<Pki> {
  const clock = opts.clock ?? realClock;
  const log = opts.log ?? nullLogger();
  const keyAlgorithm = opts.keyAlgorithm ?? 'ecdsa-p256';
  // The whole directory is ours: keys, certificates and any temporary file left by a crash.
  await tightenDataDir(dir, () => true);
  const caCrtPath = join(dir, 'ca.crt');
  const caKeyPath = join(dir, 'ca.key');
  const srvCrtPath = join(dir, 'apiserver.crt');
  const srvKeyPath = join(dir, 'apiserver.key');

  let caCert = await readIfExists(caCrtPath);
  let caKey = await readIfExists(caKeyPath);
  if (!caCert || !caKey || !keyMatchesCertificate(caCert, caKey)) {
    const now = clock.now();
    const ca = await createSelfSignedCa({
      commonName: opts.caCommonName ?? `ocm-ts-ca@${Math.floor(now / 1000)}`,
      keyAlgorithm,
      notBefore: new Date(now - BACKDATE_MS),
      notAfter: new Date(now + (opts.caValidityMs ?? 3650 * DAY_MS)),
    });
    caCert = ca.certPem;
    caKey = ca.keyPem;
    await writeSecretFile(caKeyPath, caKey);
    await writeSecretFile(caCrtPath, caCert);
    log.info('created certificate authority', { path: caCrtPath });
  }
  const signingCa: SigningCa = { certPem: caCert, keyPem: caKey };

  const sans = [...new Set([...DEFAULT_SANS, ...(opts.extraSans ?? [])])];
  let srvCert = await readIfExists(srvCrtPath);
  let srvKey = await readIfExists(srvKeyPath);
  if (!srvCert || !srvKey || !servingCertUsable(srvCert, srvKey, signingCa, sans, clock.now())) {
    const now = clock.now();
    const key = await generateKeyPair(keyAlgorithm);
    srvCert = await issueCertificate({
      ca: signingCa,
      subject: { commonName: 'ocm-ts-apiserver' },
      publicKey: key.publicKeyPem,
      notBefore: new Date(now - BACKDATE_MS),
      notAfter: capAt(now + (opts.servingValidityMs ?? 365 * DAY_MS), caCert),
      keyUsages: keyAlgorithm === 'ecdsa-p256' ? ['digitalSignature'] : ['digitalSignature', 'keyEncipherment'],
      extKeyUsages: ['serverAuth'],
      dnsNames: sans.filter((s) => !isIP(s)),
      ipAddresses: sans.filter((s) => isIP(s)),
    });
    srvKey = key.privateKeyPem;
    await writeSecretFile(srvKeyPath, srvKey);
    await writeSecretFile(srvCrtPath, srvCert);
    log.info('issued serving certificate', { path: srvCrtPath, sans });
  }
  const servingCertPem = srvCert;
  const servingKeyPem = srvKey;

  const saKeyPath = join(dir, 'sa.key');
  let saKey = await readIfExists(saKeyPath);
  if (!saKey) {
    saKey = (await generateKeyPair('ecdsa-p256')).privateKeyPem;
    await writeSecretFile(saKeyPath, saKey);
  }
  const serviceAccountKeyPem = saKey;

  return Object.freeze({
    dir,
    caPem: caCert,
    clientCaPem: caCert,
    servingCertPem,
    servingKeyPem,
    servingSans: sans,
    signingCa,
    serviceAccountKeyPem,
    async issueClientCertificate(o: IssueClientCertificateOptions): Promise<IssuedCertificate> {
      const now = clock.now();
      const key = await generateKeyPair(o.keyAlgorithm ?? 'ecdsa-p256');
      const extKeyUsages: ExtKeyUsageName[] = ['clientAuth'];
      const certPem = await issueCertificate({
        ca: signingCa,
        subject: { commonName: o.commonName, organizations: o.organizations ?? [] },
        publicKey: key.publicKeyPem,
        notBefore: new Date(now - BACKDATE_MS),
        notAfter: capAt(now + (o.validityMs ?? 365 * DAY_MS), signingCa.certPem),
        keyUsages: key.algorithm === 'ecdsa-p256' ? ['digitalSignature'] : ['digitalSignature', 'keyEncipherment'],
        extKeyUsages,
      });
      return { certPem, keyPem: key.privateKeyPem };
    },
  });
}

/** Caps a notAfter (ms) at the CA's notAfter. */
function capAt(notAfterMs: number, caPem: string): Date {
  const caEnd = parseCertificate(caPem).notAfter.getTime();
  return new Date(Math.min(notAfterMs, caEnd));
}
