// A hub for the auth integration tests: embedded server with OCM admission and the hub CRDs, two
// accepted clusters with the OCM RBAC of hub-controller.md §4 (created from the spec, no hub
// controllers), bootstrap tokens (one valid, one expired) and one client identity per row of the
// isolation matrix. Log lines are captured so tests can check that no secret leaks.

import 'reflect-metadata';
import { ocmAdmissionPlugins } from '../../../src/apiserver/admission/index.js';
import { HUB_CRD_NAMES, loadCrds } from '../../../src/api/crds.js';
import type { UserInfo } from '../../../src/apiserver/pipeline.js';
import { createCsr, generateKeyPair } from '../../../src/util/x509.js';
import { createLogger } from '../../../src/util/logger.js';
import { startTestApiServer, type TestApiServer } from '../../helpers/embedded-server.js';
import { waitFor } from '../../helpers/wait-for.js';
import { identityClient, type Identity, type IdentityClient } from './identity-client.js';
import { bootstrapRbac, clusterRbac, commonClusterRoles, rbacCollectionPath } from './ocm-rbac.js';

export const CLUSTER_A = 'cluster-a';
export const CLUSTER_B = 'cluster-b';
export const BOOTSTRAP_TOKEN = 'abcdef.0123456789abcdef';
const EXPIRED_TOKEN = 'zyxwvu.fedcba9876543210';

export type IdentityName = 'agentA' | 'agentB' | 'bootstrap' | 'expiredBootstrap' | 'anonymous' | 'admin';

export interface AuthHub {
  server: TestApiServer;
  admin: IdentityClient;
  clients: Record<IdentityName, IdentityClient>;
  /** The user each identity authenticates as (undefined: it cannot authenticate). */
  users: Record<IdentityName, UserInfo | undefined>;
  logLines: string[];
  /** A fresh base64 PEM CSR for `cn`/`orgs`. */
  csrRequest(cn: string, orgs: string[]): Promise<string>;
  stop(): Promise<void>;
}

const b64 = (s: string): string => Buffer.from(s).toString('base64');
const agentCn = (c: string): string => `system:open-cluster-management:${c}:agent-${c}`;
const agentGroups = (c: string): string[] => [`system:open-cluster-management:${c}`, 'system:open-cluster-management:managed-clusters'];

async function mustCreate(c: IdentityClient, path: string, body: unknown): Promise<void> {
  const r = await c.request('POST', path, body);
  if (r.status !== 201 && r.status !== 200) throw new Error(`create ${path}: ${r.status} ${r.text}`);
}

function bootstrapSecret(token: string, expiration: string): unknown {
  const [id, secret] = token.split('.') as [string, string];
  return {
    apiVersion: 'v1', kind: 'Secret', metadata: { name: `bootstrap-token-${id}`, namespace: 'kube-system' }, type: 'bootstrap.kubernetes.io/token',
    data: { 'token-id': b64(id), 'token-secret': b64(secret), 'usage-bootstrap-authentication': b64('true'), 'auth-extra-groups': b64('system:bootstrappers:managedcluster'), expiration: b64(expiration) },
  };
}

export async function startAuthHub(): Promise<AuthHub> {
  const logLines: string[] = [];
  const server = await startTestApiServer({
    admission: ocmAdmissionPlugins({ featureGates: { DefaultClusterSet: true } }),
    clusterSigningDurationMs: 3_600_000,
    log: createLogger({ level: 'debug', write: (l) => logLines.push(l) }),
  });
  const { pki, url } = server.server;
  const adminCert = await pki.issueClientCertificate({ commonName: 'test-admin', organizations: ['system:masters'] });
  const admin = identityClient(url, pki.caPem, adminCert);

  for (const crd of loadCrds(HUB_CRD_NAMES)) await mustCreate(admin, '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
  for (const p of ['/apis/cluster.open-cluster-management.io/v1/managedclusters', '/apis/addon.open-cluster-management.io/v1alpha1/managedclusteraddons']) {
    await waitFor(async () => (await admin.request('GET', p)).status === 200, 10_000, { message: `CRD serving ${p}` });
  }
  for (const c of [CLUSTER_A, CLUSTER_B]) {
    await mustCreate(admin, '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: c } });
    await mustCreate(admin, '/apis/cluster.open-cluster-management.io/v1/managedclusters', {
      apiVersion: 'cluster.open-cluster-management.io/v1', kind: 'ManagedCluster', metadata: { name: c }, spec: { hubAcceptsClient: true, leaseDurationSeconds: 60 },
    });
    await mustCreate(admin, `/apis/coordination.k8s.io/v1/namespaces/${c}/leases`, {
      apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'managed-cluster-lease', namespace: c }, spec: { renewTime: '2026-12-02T12:00:00.000000Z' },
    });
    await mustCreate(admin, `/apis/addon.open-cluster-management.io/v1alpha1/namespaces/${c}/managedclusteraddons`, {
      apiVersion: 'addon.open-cluster-management.io/v1alpha1', kind: 'ManagedClusterAddOn', metadata: { name: 'addon1', namespace: c }, spec: {},
    });
    await mustCreate(admin, `/api/v1/namespaces/${c}/secrets`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'hub-secret', namespace: c }, stringData: { k: 'v' } });
    for (const o of clusterRbac(c, true)) await mustCreate(admin, rbacCollectionPath(o), o.object);
  }
  for (const o of [...commonClusterRoles(), ...bootstrapRbac()]) await mustCreate(admin, rbacCollectionPath(o), o.object);
  await mustCreate(admin, '/api/v1/namespaces/kube-system/secrets', bootstrapSecret(BOOTSTRAP_TOKEN, new Date(Date.now() + 3_600_000).toISOString()));
  await mustCreate(admin, '/api/v1/namespaces/kube-system/secrets', bootstrapSecret(EXPIRED_TOKEN, new Date(Date.now() - 60_000).toISOString()));

  const certA = await pki.issueClientCertificate({ commonName: agentCn(CLUSTER_A), organizations: agentGroups(CLUSTER_A) });
  const certB = await pki.issueClientCertificate({ commonName: agentCn(CLUSTER_B), organizations: agentGroups(CLUSTER_B) });
  const ids: Record<IdentityName, Identity> = {
    agentA: certA,
    agentB: certB,
    bootstrap: { token: BOOTSTRAP_TOKEN },
    expiredBootstrap: { token: EXPIRED_TOKEN },
    anonymous: { anonymous: true },
    admin: adminCert,
  };
  const clients = Object.fromEntries(Object.entries(ids).map(([k, id]) => [k, identityClient(url, pki.caPem, id)])) as Record<IdentityName, IdentityClient>;
  const authd = (g: string[]): string[] => [...g, 'system:authenticated'];
  const users: Record<IdentityName, UserInfo | undefined> = {
    agentA: { username: agentCn(CLUSTER_A), groups: authd(agentGroups(CLUSTER_A)) },
    agentB: { username: agentCn(CLUSTER_B), groups: authd(agentGroups(CLUSTER_B)) },
    bootstrap: { username: 'system:bootstrap:abcdef', groups: authd(['system:bootstrappers', 'system:bootstrappers:managedcluster']) },
    expiredBootstrap: undefined,
    anonymous: { username: 'system:anonymous', groups: ['system:unauthenticated'] },
    admin: { username: 'test-admin', groups: authd(['system:masters']) },
  };

  // RBAC changes reach the authorizer through the store's watch: wait until agent A can read its cluster.
  await waitFor(async () => (await clients.agentA.request('GET', `/apis/cluster.open-cluster-management.io/v1/managedclusters/${CLUSTER_A}`)).status === 200, 5000, { message: 'RBAC effective' });

  return {
    server,
    admin,
    clients,
    users,
    logLines,
    async csrRequest(cn, orgs) {
      const key = await generateKeyPair('ecdsa-p256');
      return b64(await createCsr({ commonName: cn, organizations: orgs, privateKeyPem: key.privateKeyPem }));
    },
    async stop() {
      for (const c of Object.values(clients)) c.close();
      admin.close();
      await server.stop();
    },
  };
}
