// `ocm-ts hub --data-dir`: the embedded API server (OCM admission, CSR signer) with the hub CRDs, OCM's
// bootstrap ClusterRole bound to a bootstrap token, and the hub controllers running against it over HTTPS.

import { join } from 'node:path';
import { HUB_CRD_NAMES, loadCrds } from '../api/crds.js';
import { rfc3339 } from '../api/conditions.js';
import type { ClusterRole, ClusterRoleBinding, Secret } from '../api/core.js';
import { ocmAdmissionPlugins } from '../apiserver/admission/index.js';
import { startEmbeddedApiServer, type ListenAddress } from '../apiserver/embedded.js';
import { writeKubeconfig, type Pki } from '../apiserver/pki/index.js';
import { createKubeClient, isAlreadyExists } from '../client/index.js';
import { resourceTypes } from '../client/resource-types.js';
import type { KubeClient } from '../client/types.js';
import type { Clock } from '../util/clock.js';
import type { ConnectionLimits } from '../apiserver/http/connection-limits.js';
import type { Logger } from '../util/logger.js';
import type { ServingTls } from '../util/secure-serving.js';
import { BOOTSTRAP_GROUP, bootstrapTokenSecret, HUB_TOKEN_LABEL, randomTokenPart, reusableToken } from '../hub/bootstrap-token.js';
import { startHubManager, type HubManager } from '../hub/hub-manager.js';
import { installCrds } from '../hub/install-crds.js';
import type { HubOptions } from '../hub/options.js';

/** Served only when the hub runs with the ClusterProfile gate. */
const CLUSTER_PROFILE_CRD = 'clusterprofiles.multicluster.x-k8s.io';
import { BOOTSTRAP_CLUSTER_ROLE, bootstrapClusterRole, HUB_CONTROLLER_CLUSTER_ROLE, HUB_CONTROLLER_USER, hubControllerClusterRole } from '../hub/rbac-manifests.js';
import type { InflightLimits } from '../apiserver/http/inflight-limit.js';

export interface EmbeddedHubOptions {
  dataDir: string;
  apiserverListen: ListenAddress;
  clusterSigningDurationMs?: number;
  /** The API server's connection limits where they differ from its defaults. */
  connectionLimits?: Partial<ConnectionLimits>;
  /** The API server's in-flight request limits where they differ from its defaults. */
  inflightLimits?: Partial<InflightLimits>;
  bootstrapTokenTtlMs: number;
  hubOptions: Readonly<HubOptions>;
  /** HOST:PORT for the controllers' /healthz and /metrics. */
  listen?: string;
  /** Serve those over HTTPS with these settings; omitted → plain HTTP. */
  tls?: ServingTls;
  log: Logger;
  clock: Clock;
  signal: AbortSignal;
}

export interface EmbeddedHub {
  url: string;
  adminKubeconfigPath: string;
  bootstrapKubeconfigPath: string;
  /** The controllers' own least-privilege identity (client certificate). */
  hubControllerKubeconfigPath: string;
  bootstrapTokenExpiresAt: string;
  /** The API server's CA, serving certificate and client CA (the dashboard serves with them). */
  pki: Pki;
  manager: HubManager;
  close(): Promise<void>;
}

async function createOrUpdate<T extends ClusterRole | ClusterRoleBinding>(client: KubeClient, obj: T, signal: AbortSignal): Promise<void> {
  const rc = client.resource<T>(obj.kind === 'ClusterRole' ? resourceTypes.clusterRoles : resourceTypes.clusterRoleBindings);
  try {
    await rc.create(obj, { signal });
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
    const cur = await rc.get(obj.metadata.name ?? '', { signal });
    await rc.update({ ...obj, metadata: { ...obj.metadata, resourceVersion: cur.metadata.resourceVersion } }, { signal });
  }
}

/** OCM's bootstrap ClusterRole bound to the bootstrap token group, nothing more. */
export async function ensureBootstrapRbac(client: KubeClient, signal: AbortSignal): Promise<void> {
  await createOrUpdate(client, bootstrapClusterRole(), signal);
  const binding: ClusterRoleBinding = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: BOOTSTRAP_CLUSTER_ROLE },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: BOOTSTRAP_CLUSTER_ROLE },
    subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: BOOTSTRAP_GROUP }],
  };
  await createOrUpdate(client, binding, signal);
}

/** Reuses a hub bootstrap token with at least a tenth of its TTL left, else creates a new one. */
export async function ensureBootstrapToken(client: KubeClient, opts: { ttlMs: number; clock: Clock; signal: AbortSignal }): Promise<{ token: string; expiresAtMs: number; reused: boolean }> {
  try {
    await client.resource(resourceTypes.namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kube-system' } }, { signal: opts.signal });
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
  const secrets = client.resource<Secret>(resourceTypes.secrets, 'kube-system');
  const now = opts.clock.now();
  const existing = await secrets.list({ labelSelector: `${HUB_TOKEN_LABEL}=true`, signal: opts.signal });
  for (const s of existing.items) {
    const r = reusableToken(s, now, opts.ttlMs / 10);
    if (r) return { ...r, reused: true };
  }
  const id = randomTokenPart(6);
  const secret = randomTokenPart(16);
  const expiresAtMs = now + opts.ttlMs;
  await secrets.create(bootstrapTokenSecret(id, secret, expiresAtMs), { signal: opts.signal });
  return { token: `${id}.${secret}`, expiresAtMs, reused: false };
}

export async function startEmbeddedHub(opts: EmbeddedHubOptions): Promise<EmbeddedHub> {
  const log = opts.log;
  const server = await startEmbeddedApiServer({
    dataDir: opts.dataDir,
    listen: opts.apiserverListen,
    log: log.child({ component: 'apiserver' }),
    admission: ocmAdmissionPlugins({ featureGates: { ...opts.hubOptions.featureGates }, clock: opts.clock }),
    clock: opts.clock,
    ...(opts.clusterSigningDurationMs !== undefined ? { clusterSigningDurationMs: opts.clusterSigningDurationMs } : {}),
    ...(opts.connectionLimits ? { connectionLimits: opts.connectionLimits } : {}),
    ...(opts.inflightLimits ? { inflightLimits: opts.inflightLimits } : {}),
  });
  const client = createKubeClient({ kubeconfigPath: server.adminKubeconfigPath }, { log });
  let hubClient: KubeClient | undefined;
  try {
    const crds = opts.hubOptions.featureGates['ClusterProfile'] ? [...HUB_CRD_NAMES, CLUSTER_PROFILE_CRD] : HUB_CRD_NAMES;
    await installCrds(client, loadCrds(crds), { clock: opts.clock, signal: opts.signal });
    await ensureBootstrapRbac(client, opts.signal);
    const tok = await ensureBootstrapToken(client, { ttlMs: opts.bootstrapTokenTtlMs, clock: opts.clock, signal: opts.signal });
    const bootstrapKubeconfigPath = join(opts.dataDir, 'bootstrap.kubeconfig');
    await writeKubeconfig({ path: bootstrapKubeconfigPath, server: server.url, caPem: server.pki.caPem, user: { token: tok.token }, contextName: 'bootstrap' });
    const expires = rfc3339(new Date(tok.expiresAtMs));
    log.info(tok.reused ? 'reusing bootstrap token' : 'created bootstrap token', { expiresAt: expires, path: bootstrapKubeconfigPath });
    // The controllers run as their own identity with only the permissions they use.
    const importer = opts.hubOptions.featureGates['ClusterImporter'] ? { clusterImporter: { bootstrapServiceAccount: opts.hubOptions.importer.bootstrapServiceAccount.name } } : {};
    const grpc = opts.hubOptions.grpc !== undefined ? { grpc: true } : {};
    await createOrUpdate(client, hubControllerClusterRole({ ...importer, ...grpc }), opts.signal);
    await createOrUpdate(client, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: HUB_CONTROLLER_CLUSTER_ROLE },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: HUB_CONTROLLER_CLUSTER_ROLE },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: HUB_CONTROLLER_USER }],
    } satisfies ClusterRoleBinding, opts.signal);
    const cert = await server.pki.issueClientCertificate({ commonName: HUB_CONTROLLER_USER });
    const hubControllerKubeconfigPath = join(opts.dataDir, 'hub-controller.kubeconfig');
    await writeKubeconfig({ path: hubControllerKubeconfigPath, server: server.url, caPem: server.pki.caPem, user: { certPem: cert.certPem, keyPem: cert.keyPem }, contextName: 'hub-controller' });
    hubClient = createKubeClient({ kubeconfigPath: hubControllerKubeconfigPath }, { log });
    const manager = await startHubManager({ client: hubClient, options: opts.hubOptions, log, clock: opts.clock, signal: opts.signal, ...(opts.listen !== undefined ? { listen: opts.listen } : {}), ...(opts.tls ? { tls: opts.tls } : {}) });
    return {
      url: server.url,
      adminKubeconfigPath: server.adminKubeconfigPath,
      bootstrapKubeconfigPath,
      hubControllerKubeconfigPath,
      bootstrapTokenExpiresAt: expires,
      pki: server.pki,
      manager,
      async close() {
        await manager.done;
        hubClient?.close();
        client.close();
        await server.close();
      },
    };
  } catch (err) {
    hubClient?.close();
    client.close();
    await server.close();
    throw err;
  }
}
