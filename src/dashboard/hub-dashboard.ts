// The dashboard of an `ocm-ts hub`: with an embedded API server it serves with that server's
// certificate, signs in the hub's client certificates (impersonated with the admin identity the hub
// already holds) and writes a token of a dashboard admin service account beside the admin
// kubeconfig; against an existing cluster it signs in bearer tokens only.

import { dirname, join } from 'node:path';
import type { ClusterRoleBinding } from '../api/core.js';
import { isAlreadyExists } from '../client/errors.js';
import { loadKubeconfigFile, type ClientConfig } from '../client/kubeconfig.js';
import { createKubeClient } from '../client/rest-client.js';
import { resourceTypes } from '../client/resource-types.js';
import type { KubeClient } from '../client/types.js';
import type { EmbeddedHub } from '../embedded/embedded-hub.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { writePrivateFile } from '../util/private-files.js';
import { startDashboard, type Dashboard } from './server.js';

const DASHBOARD_ADMIN_NAMESPACE = 'open-cluster-management-hub';
const DASHBOARD_ADMIN = 'ocm-dashboard-admin';
const TOKEN_SECONDS = 24 * 3600;

async function ignoreExists(p: Promise<unknown>): Promise<void> {
  try {
    await p;
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
}

/** A cluster-admin service account for people signing in with a token; returns a fresh token. */
async function dashboardAdminToken(admin: KubeClient, signal?: AbortSignal): Promise<string> {
  const opts = signal ? { signal } : {};
  await ignoreExists(admin.resource(resourceTypes.namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: DASHBOARD_ADMIN_NAMESPACE } }, opts));
  await ignoreExists(admin.resource(resourceTypes.serviceAccounts, DASHBOARD_ADMIN_NAMESPACE).create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: DASHBOARD_ADMIN, namespace: DASHBOARD_ADMIN_NAMESPACE } }, opts));
  await ignoreExists(admin.resource<ClusterRoleBinding>(resourceTypes.clusterRoleBindings).create({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: DASHBOARD_ADMIN },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
    subjects: [{ kind: 'ServiceAccount', name: DASHBOARD_ADMIN, namespace: DASHBOARD_ADMIN_NAMESPACE }],
  }, opts));
  const tr = await admin.request<{ status?: { token?: string } }>('POST', `/api/v1/namespaces/${DASHBOARD_ADMIN_NAMESPACE}/serviceaccounts/${DASHBOARD_ADMIN}/token`, {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    spec: { expirationSeconds: TOKEN_SECONDS },
  }, opts);
  if (!tr.status?.token) throw new Error('the API server returned no token for the dashboard admin');
  return tr.status.token;
}

export interface HubDashboard extends Dashboard {
  /** File holding a dashboard admin token (embedded hubs only). */
  tokenPath?: string;
}

export async function startEmbeddedHubDashboard(o: { hub: EmbeddedHub; listen: { host: string; port: number }; clock: Clock; log: Logger; signal?: AbortSignal }): Promise<HubDashboard> {
  const adminConfig = loadKubeconfigFile(o.hub.adminKubeconfigPath).config;
  const admin = createKubeClient(adminConfig);
  let token: string;
  try {
    token = await dashboardAdminToken(admin, o.signal);
  } finally {
    admin.close();
  }
  const tokenPath = join(dirname(o.hub.adminKubeconfigPath), 'dashboard.token');
  await writePrivateFile(tokenPath, `${token}\n`);
  const dashboard = await startDashboard({
    listen: o.listen,
    target: { server: o.hub.url, caPem: o.hub.pki.caPem },
    serving: { certPem: o.hub.pki.servingCertPem, keyPem: o.hub.pki.servingKeyPem },
    clientCaPem: o.hub.pki.clientCaPem,
    impersonator: adminConfig,
    clock: o.clock,
    log: o.log.child({ component: 'dashboard' }),
  });
  return { ...dashboard, caPem: o.hub.pki.caPem, tokenPath };
}

/** Against an existing hub (its kubeconfig or in-cluster config): bearer tokens only, a serving certificate made at start. */
export async function startExternalHubDashboard(o: { config: ClientConfig; listen: { host: string; port: number }; clock: Clock; log: Logger }): Promise<HubDashboard> {
  const c = o.config;
  return startDashboard({
    listen: o.listen,
    target: { server: c.server, ...(c.caPem ? { caPem: c.caPem } : {}), ...(c.tlsServerName ? { tlsServerName: c.tlsServerName } : {}), ...(c.insecureSkipTlsVerify ? { insecureSkipTlsVerify: true } : {}) },
    clock: o.clock,
    log: o.log.child({ component: 'dashboard' }),
  });
}
