// Kubeconfig files for the embedded server: a standard `kind: Config` document with one cluster,
// one user and one context (client-node applies TLS options only when the context has a user).
// Files are written atomically with mode 0600 because they carry a private key or a token.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseCertificate, keyMatchesCertificate, verifyCertificateChain } from '../../util/x509.js';
import type { Clock } from '../../util/clock.js';
import { realClock } from '../../util/clock.js';
import { parseYaml, toYaml } from '../../util/yaml.js';
import { writeSecretFile, type Pki } from './pki.js';

type KubeconfigUser = { certPem: string; keyPem: string } | { token: string };

export interface KubeconfigOptions {
  path: string;
  server: string;
  caPem: string;
  user: KubeconfigUser;
  /** Default `ocm-ts`. Also names the cluster and user entries unless they are given. */
  contextName?: string;
  clusterName?: string;
  userName?: string;
}

const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');

/** Builds the kubeconfig document (a plain object ready for YAML). */
function buildKubeconfig(opts: Omit<KubeconfigOptions, 'path'>): Record<string, unknown> {
  const context = opts.contextName ?? 'ocm-ts';
  const cluster = opts.clusterName ?? context;
  const user = opts.userName ?? context;
  const userEntry = 'token' in opts.user
    ? { token: opts.user.token }
    : { 'client-certificate-data': b64(opts.user.certPem), 'client-key-data': b64(opts.user.keyPem) };
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: cluster, cluster: { server: opts.server, 'certificate-authority-data': b64(opts.caPem) } }],
    users: [{ name: user, user: userEntry }],
    contexts: [{ name: context, context: { cluster, user } }],
    'current-context': context,
    preferences: {},
  };
}

/** Writes a kubeconfig YAML file with mode 0600. */
export async function writeKubeconfig(opts: KubeconfigOptions): Promise<void> {
  await writeSecretFile(opts.path, toYaml(buildKubeconfig(opts)));
}

const ADMIN_COMMON_NAME = 'ocm-ts:admin';
const ADMIN_GROUP = 'system:masters';
const RENEW_BEFORE_MS = 30 * 24 * 3600 * 1000;

interface ExistingAdmin {
  certPem: string;
  keyPem: string;
  server: string;
}

function readAdmin(doc: unknown): ExistingAdmin | undefined {
  if (typeof doc !== 'object' || doc === null) return undefined;
  const d = doc as { users?: Array<{ user?: Record<string, unknown> }>; clusters?: Array<{ cluster?: Record<string, unknown> }> };
  const u = d.users?.[0]?.user;
  const c = d.clusters?.[0]?.cluster;
  const cert = u?.['client-certificate-data'];
  const key = u?.['client-key-data'];
  const server = c?.server;
  if (typeof cert !== 'string' || typeof key !== 'string' || typeof server !== 'string') return undefined;
  return { certPem: Buffer.from(cert, 'base64').toString('utf8'), keyPem: Buffer.from(key, 'base64').toString('utf8'), server };
}

export interface AdminKubeconfigOptions {
  clock?: Clock;
  /** Default `admin.kubeconfig`. */
  fileName?: string;
}

/**
 * Ensures `<dataDir>/admin.kubeconfig` holds a client certificate (CN `ocm-ts:admin`, O
 * `system:masters`) from this PKI and points at `serverUrl`. The certificate is kept across starts
 * (only the server URL is rewritten) unless it is from another CA, unreadable, or near expiry.
 * Returns the path.
 */
export async function ensureAdminKubeconfig(dataDir: string, serverUrl: string, pki: Pki, opts: AdminKubeconfigOptions = {}): Promise<string> {
  const clock = opts.clock ?? realClock;
  const path = join(dataDir, opts.fileName ?? 'admin.kubeconfig');
  let existing: ExistingAdmin | undefined;
  try {
    existing = readAdmin(parseYaml(await readFile(path, 'utf8')));
  } catch {
    existing = undefined;
  }
  const now = clock.now();
  const reusable =
    existing !== undefined &&
    verifyCertificateChain(existing.certPem, pki.clientCaPem, new Date(now)) &&
    keyMatchesCertificate(existing.certPem, existing.keyPem) &&
    parseCertificate(existing.certPem).notAfter.getTime() - now > RENEW_BEFORE_MS &&
    parseCertificate(existing.certPem).organizations.includes(ADMIN_GROUP);
  if (reusable && existing && existing.server === serverUrl) return path;
  const user = reusable && existing
    ? { certPem: existing.certPem, keyPem: existing.keyPem }
    : await pki.issueClientCertificate({ commonName: ADMIN_COMMON_NAME, organizations: [ADMIN_GROUP] });
  await writeKubeconfig({ path, server: serverUrl, caPem: pki.caPem, user, contextName: 'ocm-ts-admin' });
  return path;
}
