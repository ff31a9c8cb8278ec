// The I/O of `ocm-ts doctor`: reads the hub (with the admin kubeconfig), the spoke (optional), the
// bootstrap kubeconfig and the agent's health endpoint, and returns what it found as DoctorFacts.
// Every probe is an HTTPS GET verifying the server with the kubeconfig's own CA, so a CA mismatch
// shows up as the TLS error it is. Nothing is written anywhere.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ManagedCluster } from '../api/cluster.js';
import type { CertificateSigningRequest, Lease, Secret } from '../api/core.js';
import { hubSecretKeys, labels, names } from '../api/constants.js';
import { isNotFound } from '../client/errors.js';
import { loadKubeconfigFile, type ClientConfig } from '../client/kubeconfig.js';
import { createKubeClient } from '../client/rest-client.js';
import { resourceTypes } from '../client/resource-types.js';
import type { KubeClient } from '../client/types.js';
import { errorMessage } from '../util/errors.js';
import { parseCertificate } from '../util/x509.js';
import type { BootstrapFacts, CertFacts, DoctorFacts, HttpsProbe, HubSecretFacts, SpokeFacts } from './facts.js';

export interface GatherOptions {
  cluster: string;
  hubKubeconfig: string;
  spokeKubeconfig?: string;
  /** A bootstrap kubeconfig file; else the spoke's bootstrap secret is used. */
  bootstrapKubeconfig?: string;
  /** Base URL of the agent's health server. */
  agentUrl?: string;
  timeoutMs: number;
  now: () => number;
}

/** Error codes of a server certificate that does not verify against the given CA. */
const TLS_VERIFY_CODES = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_SIGNATURE_FAILURE',
  'CERT_UNTRUSTED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** One GET with a kubeconfig's CA and credentials; never throws. */
function probe(cfg: ClientConfig, path: string, timeoutMs: number, insecure = false): Promise<HttpsProbe & { body?: string }> {
  return new Promise((resolve) => {
    let url: URL;
    try {
      url = new URL(path, cfg.server);
    } catch (err) {
      resolve({ error: errorMessage(err) });
      return;
    }
    const req = request(
      url,
      {
        method: 'GET',
        agent: false,
        timeout: timeoutMs,
        headers: { accept: 'application/json', ...(cfg.token ? { authorization: `Bearer ${cfg.token}` } : {}) },
        ...(cfg.caPem ? { ca: cfg.caPem } : {}),
        ...(cfg.certPem && cfg.keyPem ? { cert: cfg.certPem, key: cfg.keyPem } : {}),
        ...(cfg.tlsServerName ? { servername: cfg.tlsServerName } : {}),
        rejectUnauthorized: !(insecure || cfg.insecureSkipTlsVerify),
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => {
          if (body.length < 64 * 1024) body += d;
        });
        res.on('end', () => {
          const date = res.headers.date ? Date.parse(res.headers.date) : NaN;
          resolve({ status: res.statusCode ?? 0, body, ...(Number.isFinite(date) ? { serverTimeMs: date } : {}) });
        });
        res.on('error', (err) => resolve({ error: errorMessage(err) }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', (err: NodeJS.ErrnoException) => {
      const code = err.code ?? '';
      resolve({ error: code && TLS_VERIFY_CODES.has(code) ? `${code}: ${err.message}` : errorMessage(err), ...(TLS_VERIFY_CODES.has(code) ? { tlsVerifyFailed: true } : {}) });
    });
    req.end();
  });
}

const dec = (v: string | undefined): string | undefined => (v === undefined ? undefined : Buffer.from(v, 'base64').toString('utf8'));

function certFacts(pem: string): CertFacts {
  const c = parseCertificate(pem);
  return { commonName: c.commonName, notBeforeMs: c.notBefore.getTime(), notAfterMs: c.notAfter.getTime() };
}

/** Loads a kubeconfig held in a secret (its key files beside it) through a private temp dir. */
async function kubeconfigFromSecret(data: Record<string, string>): Promise<ClientConfig> {
  const dir = await mkdtemp(join(tmpdir(), 'ocm-ts-doctor-'));
  try {
    for (const [k, v] of Object.entries(data)) {
      if (/^[A-Za-z0-9._-]+$/.test(k) && k !== '.' && k !== '..') await writeFile(join(dir, k), Buffer.from(v, 'base64'), { mode: 0o600 });
    }
    return loadKubeconfigFile(join(dir, hubSecretKeys.kubeconfig)).config;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function getOrNull<T>(p: Promise<T>): Promise<T | null> {
  try {
    return await p;
  } catch (err) {
    if (isNotFound(err)) return null;
    throw err;
  }
}

function clusterPath(cluster: string): string {
  return `/apis/cluster.open-cluster-management.io/v1/managedclusters/${encodeURIComponent(cluster)}`;
}

async function bootstrapFacts(source: string, cfg: ClientConfig, o: GatherOptions, hub: KubeClient | undefined): Promise<BootstrapFacts> {
  const facts: BootstrapFacts = { source, server: cfg.server, probe: await probe(cfg, clusterPath(o.cluster), o.timeoutMs) };
  delete (facts.probe as { body?: string }).body;
  const m = /^([a-z0-9]{6})\.[a-z0-9]{16}$/.exec(cfg.token ?? '');
  if (m) {
    facts.tokenId = m[1]!;
    if (hub) {
      const secret = await getOrNull(hub.resource<Secret>(resourceTypes.secrets, 'kube-system').get(`bootstrap-token-${m[1]}`)).catch(() => undefined);
      if (secret !== undefined) {
        const exp = secret ? Date.parse(dec(secret.data?.['expiration']) ?? '') : NaN;
        facts.tokenSecret = { found: secret !== null, ...(Number.isFinite(exp) ? { expiresAtMs: exp } : {}) };
      }
    }
  }
  return facts;
}

async function hubSecretFacts(secret: Secret | null, o: GatherOptions): Promise<HubSecretFacts> {
  if (!secret) return { present: false };
  const data = secret.data ?? {};
  const facts: HubSecretFacts = { present: true };
  const cluster = dec(data[hubSecretKeys.clusterName]);
  const agent = dec(data[hubSecretKeys.agentName]);
  if (cluster !== undefined) facts.clusterName = cluster;
  if (agent !== undefined) facts.agentName = agent;
  try {
    const crt = dec(data[hubSecretKeys.tlsCert]);
    if (crt === undefined) throw new Error(`no ${hubSecretKeys.tlsCert}`);
    if (data[hubSecretKeys.kubeconfig] === undefined) throw new Error(`no ${hubSecretKeys.kubeconfig}`);
    facts.cert = certFacts(crt);
    const cfg = await kubeconfigFromSecret(data);
    facts.server = cfg.server;
    const p = await probe(cfg, clusterPath(o.cluster), o.timeoutMs);
    delete p.body;
    facts.probe = p;
  } catch (err) {
    facts.unreadable = errorMessage(err);
  }
  return facts;
}

async function spokeFacts(o: GatherOptions & { spokeKubeconfig: string }): Promise<{ spoke: SpokeFacts; bootstrap?: { source: string; cfg: ClientConfig } }> {
  const cfg = loadKubeconfigFile(o.spokeKubeconfig).config;
  const p = await probe(cfg, '/version', o.timeoutMs);
  delete p.body;
  const spoke: SpokeFacts = { server: cfg.server, probe: p };
  if (p.status === undefined) return { spoke };
  const client = createKubeClient(cfg, { timeoutMs: o.timeoutMs });
  try {
    const secrets = client.resource<Secret>(resourceTypes.secrets, names.agentNamespace);
    const [boot, hub] = await Promise.all([getOrNull(secrets.get(names.bootstrapSecret)), getOrNull(secrets.get(names.hubKubeconfigSecret))]);
    spoke.bootstrapSecretPresent = boot !== null;
    spoke.hubSecret = await hubSecretFacts(hub, o);
    const bootData = boot?.data?.['kubeconfig'];
    if (bootData === undefined) return { spoke };
    try {
      return { spoke, bootstrap: { source: `secret ${names.agentNamespace}/${names.bootstrapSecret} on the spoke`, cfg: await kubeconfigFromSecret(boot!.data!) } };
    } catch {
      return { spoke };
    }
  } finally {
    client.close();
  }
}

export async function gatherFacts(o: GatherOptions): Promise<DoctorFacts> {
  const hubCfg = loadKubeconfigFile(o.hubKubeconfig).config;
  const hubProbe = await probe(hubCfg, '/version', o.timeoutMs);
  let version: string | undefined;
  try {
    version = hubProbe.body ? (JSON.parse(hubProbe.body) as { gitVersion?: string }).gitVersion : undefined;
  } catch {
    version = undefined;
  }
  delete hubProbe.body;
  const facts: DoctorFacts = { cluster: o.cluster, nowMs: o.now(), hub: { server: hubCfg.server, probe: hubProbe, ...(version ? { version } : {}) }, csrs: [] };
  const hub = hubProbe.status === 200 ? createKubeClient(hubCfg, { timeoutMs: o.timeoutMs }) : undefined;
  try {
    if (hub) {
      facts.managedCluster = await getOrNull(hub.resource<ManagedCluster>(resourceTypes.managedClusters).get(o.cluster));
      const csrs = await hub.resource<CertificateSigningRequest>(resourceTypes.certificateSigningRequests).list({ labelSelector: `${labels.clusterName}=${o.cluster},!${labels.addonName}` });
      facts.csrs = csrs.items;
      const issued = [...csrs.items].filter((c) => c.status?.certificate).sort((a, b) => (Date.parse(b.metadata.creationTimestamp ?? '') || 0) - (Date.parse(a.metadata.creationTimestamp ?? '') || 0))[0];
      if (issued?.status?.certificate) {
        try {
          facts.issuedCert = { ...certFacts(Buffer.from(issued.status.certificate, 'base64').toString('utf8')), csr: issued.metadata.name ?? '' };
        } catch {
          // An unparsable certificate is the signer's problem; the CSR check reports what it can.
        }
      }
      if (facts.managedCluster) facts.lease = await getOrNull(hub.resource<Lease>(resourceTypes.leases, o.cluster).get(names.clusterLease));
    }
    let bootstrap: { source: string; cfg: ClientConfig } | undefined;
    if (o.spokeKubeconfig) {
      const s = await spokeFacts({ ...o, spokeKubeconfig: o.spokeKubeconfig });
      facts.spoke = s.spoke;
      bootstrap = s.bootstrap;
    }
    if (o.bootstrapKubeconfig) bootstrap = { source: o.bootstrapKubeconfig, cfg: loadKubeconfigFile(o.bootstrapKubeconfig).config };
    if (bootstrap) facts.bootstrap = await bootstrapFacts(bootstrap.source, bootstrap.cfg, o, hub);
    if (o.agentUrl) {
      const base = o.agentUrl.replace(/\/+$/, '');
      // The agent's serving certificate is made at start and signed by nobody: checked like a kubelet probe, without verification.
      const p = await probe({ server: base, contextName: '' }, `${base}/healthz?verbose`, o.timeoutMs, true);
      const body = p.body;
      delete p.body;
      facts.agentHealth = { url: base, probe: p, ...(body && p.status !== 200 ? { body } : {}) };
    }
  } finally {
    hub?.close();
  }
  return facts;
}
