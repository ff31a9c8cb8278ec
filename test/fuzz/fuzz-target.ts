// The server under fuzz: the embedded API server over real HTTPS with the OCM hub pieces that cost
// nothing to run (OCM admission, hub CRDs, the bootstrap ClusterRole bound to a bootstrap token, the
// hub controller's ClusterRole, cluster1's per-cluster RBAC as the hub creates it), the fuzz suite's
// CRD, seed objects named `fuzz-obj` in a few namespaces, the identities, and the resource catalogue
// read from discovery. The hub controllers themselves are not run: the store stays quiet between
// requests, so a write can be attributed to the request that made it.

import 'reflect-metadata';
import { ocmAdmissionPlugins } from '../../src/apiserver/admission/index.js';
import { HUB_CRD_NAMES, loadCrds } from '../../src/api/crds.js';
import type { KubeObject } from '../../src/api/meta.js';
import { createKubeClient } from '../../src/client/index.js';
import type { KubeClient } from '../../src/client/types.js';
import { ensureBootstrapRbac, ensureBootstrapToken } from '../../src/embedded/embedded-hub.js';
import { installCrds } from '../../src/hub/install-crds.js';
import {
  clusterRoleBindings, clusterSpecificRbac, commonClusterRoles, HUB_CONTROLLER_CLUSTER_ROLE, HUB_CONTROLLER_USER, hubControllerClusterRole,
} from '../../src/hub/rbac-manifests.js';
import { realClock } from '../../src/util/clock.js';
import { createCsr, generateKeyPair } from '../../src/util/x509.js';
import { startTestApiServer, type TestApiServer } from '../helpers/embedded-server.js';
import { AGENT_GROUPS, AGENT_USER, CLUSTER, createIdentities, type Identity, type IdentityName } from './identities.js';
import { readGrants, superuserGrants, type Grant } from './grants.js';
import { SEED_NAME, templateFor, widgetCrd, type TemplateContext } from './templates.js';

export interface CatalogueEntry {
  group: string;
  version: string;
  resource: string;
  kind: string;
  namespaced: boolean;
  verbs: string[];
  subresources: string[];
}

export interface FuzzTarget {
  server: TestApiServer;
  host: string;
  port: number;
  identities: Record<IdentityName, Identity>;
  catalogue: CatalogueEntry[];
  /** Namespaces that exist at start (plus one that does not). */
  namespaces: string[];
  /** Names worth hitting: the seed objects' name and the well-known ones. */
  names: string[];
  csrPem: string;
  /** `spec.request` values: cluster1's agent, then subjects the signer must refuse and an ordinary user. */
  csrRequests: string[];
  /** Seeded CSRs for those subjects (odd ones labelled for cluster1), waiting for approval. */
  csrNames: string[];
  /** What each identity may do (superusers: everything served). */
  grants: Record<IdentityName, Grant[]>;
  /** Admin client for setup and for the access reviews of the rights check. */
  admin: KubeClient;
  stop(): Promise<void>;
}

export const SEED_NAMESPACES = ['default', CLUSTER, 'fuzz-ns'];

/** Resources whose objects are seeded (namespaced ones in each seed namespace). */
const SEEDED_KINDS = new Set([
  'ConfigMap', 'Secret', 'ServiceAccount', 'Lease', 'Role', 'RoleBinding', 'ClusterRole', 'ClusterRoleBinding', 'Node',
  'ManagedCluster', 'ManagedClusterSet', 'ManagedClusterSetBinding', 'ManagedClusterAddOn', 'ClusterManagementAddOn',
  'CertificateSigningRequest', 'Widget', 'Event', 'Namespace', 'Service', 'Endpoints',
]);

interface DiscoveryResource { name: string; kind: string; namespaced: boolean; verbs: string[] }

async function readCatalogue(admin: KubeClient): Promise<CatalogueEntry[]> {
  const groupVersions: { group: string; version: string; path: string }[] = [{ group: '', version: 'v1', path: '/api/v1' }];
  const groups = await admin.request<{ groups: { name: string; versions: { version: string }[] }[] }>('GET', '/apis');
  for (const g of groups.groups) for (const v of g.versions) groupVersions.push({ group: g.name, version: v.version, path: `/apis/${g.name}/${v.version}` });
  const out: CatalogueEntry[] = [];
  for (const gv of groupVersions) {
    const list = await admin.request<{ resources: DiscoveryResource[] }>('GET', gv.path);
    for (const r of list.resources) {
      if (r.name.includes('/')) continue;
      const subresources = list.resources.filter((s) => s.name.startsWith(`${r.name}/`)).map((s) => s.name.slice(r.name.length + 1));
      out.push({ group: gv.group, version: gv.version, resource: r.name, kind: r.kind, namespaced: r.namespaced, verbs: r.verbs, subresources });
    }
  }
  return out;
}

async function createAll(admin: KubeClient, objects: { path: string; body: KubeObject }[]): Promise<void> {
  for (const o of objects) await admin.request('POST', o.path, o.body);
}

function collectionPath(e: CatalogueEntry, namespace: string): string {
  const base = e.group ? `/apis/${e.group}/${e.version}` : `/api/${e.version}`;
  return e.namespaced ? `${base}/namespaces/${namespace}/${e.resource}` : `${base}/${e.resource}`;
}

async function seedObjects(admin: KubeClient, catalogue: CatalogueEntry[], csrPem: string): Promise<void> {
  const ctx = (namespace: string): TemplateContext => ({ namespace, name: SEED_NAME, csrPem, cluster: CLUSTER });
  const seen = new Set<string>();
  for (const e of catalogue) {
    // One seed per stored resource: events are served by two groups.
    if (!SEEDED_KINDS.has(e.kind) || !e.verbs.includes('create') || seen.has(e.kind)) continue;
    seen.add(e.kind);
    const apiVersion = e.group ? `${e.group}/${e.version}` : e.version;
    for (const ns of e.namespaced ? SEED_NAMESPACES : ['']) {
      await admin.request('POST', collectionPath(e, ns), templateFor(e.kind, apiVersion, ctx(ns), e.namespaced));
    }
  }
}

export async function startFuzzTarget(): Promise<FuzzTarget> {
  const server = await startTestApiServer({
    admission: ocmAdmissionPlugins({ featureGates: { DefaultClusterSet: true } }),
    // Reads at a future resourceVersion wait this long before their 504: keep it short.
    timings: { futureWaitMs: 100 },
    // Compact often and keep little, so that old resourceVersions and continue tokens expire (410)
    // and compaction itself runs while requests are served.
    compactIntervalMs: 1000,
    retention: { minRevisions: 200, minAgeMs: 2000 },
  });
  const admin = createKubeClient({ kubeconfigPath: server.adminKubeconfigPath });
  try {
    const signal = new AbortController().signal;
    await installCrds(admin, [...loadCrds(HUB_CRD_NAMES), widgetCrd()], { clock: realClock, signal });
    await ensureBootstrapRbac(admin, signal);
    const token = await ensureBootstrapToken(admin, { ttlMs: 24 * 3600_000, clock: realClock, signal });
    const rbac: KubeObject[] = [
      hubControllerClusterRole(),
      {
        apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: HUB_CONTROLLER_CLUSTER_ROLE },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: HUB_CONTROLLER_CLUSTER_ROLE },
        subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: HUB_CONTROLLER_USER }],
      } as KubeObject,
      ...commonClusterRoles({}),
      ...clusterSpecificRbac(CLUSTER, true, {}),
    ];
    for (const ns of SEED_NAMESPACES.filter((n) => n !== 'default')) {
      await admin.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    }
    await createAll(admin, rbac.map((body) => ({
      path: `/apis/rbac.authorization.k8s.io/v1/${body.kind === 'ClusterRole' ? 'clusterroles' : 'clusterrolebindings'}`, body,
    })));
    await createAll(admin, clusterRoleBindings(CLUSTER, {}).map((body) => ({ path: `/apis/rbac.authorization.k8s.io/v1/namespaces/${CLUSTER}/rolebindings`, body })));
    await admin.request('POST', '/apis/cluster.open-cluster-management.io/v1/managedclusters', templateFor('ManagedCluster', 'cluster.open-cluster-management.io/v1', {
      namespace: '', name: CLUSTER, csrPem: '', cluster: CLUSTER,
    }, false));
    const key = await generateKeyPair();
    const csrPem = await createCsr({ commonName: AGENT_USER, organizations: AGENT_GROUPS, privateKeyPem: key.privateKeyPem });
    // Requests no approval may turn into a certificate (and the valid one), for CSR bodies.
    const subjects: [string, string[]][] = [
      ['fuzz-root', ['system:masters']], [HUB_CONTROLLER_USER, []], ['system:open-cluster-management:cluster2:agent1', ['system:open-cluster-management:cluster2']],
      [AGENT_USER, [...AGENT_GROUPS, 'system:masters']], ['alice', ['fuzz-team']],
    ];
    const csrRequests = [Buffer.from(csrPem).toString('base64')];
    for (const [cn, orgs] of subjects) csrRequests.push(Buffer.from(await createCsr({ commonName: cn, organizations: orgs, privateKeyPem: key.privateKeyPem })).toString('base64'));
    const catalogue = await readCatalogue(admin);
    await seedObjects(admin, catalogue, csrPem);
    const csrNames: string[] = [];
    for (const [i, request] of csrRequests.entries()) {
      if (i === 0) continue; // the seed CSR already asks for cluster1's agent
      const name = `fuzz-csr-${i}`;
      const labels = i % 2 === 1 ? { 'open-cluster-management.io/cluster-name': CLUSTER } : {};
      try {
        await admin.request('POST', '/apis/certificates.k8s.io/v1/certificatesigningrequests', {
          apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name, labels },
          spec: { request, signerName: 'kubernetes.io/kube-apiserver-client', usages: ['digital signature', 'client auth'] },
        });
        csrNames.push(name);
      } catch {
        // Refused at creation already (system:masters, as kube-apiserver does): nothing to approve.
      }
    }
    const identities = await createIdentities({ pki: server.server.pki, bootstrapToken: token.token, hubControllerUser: HUB_CONTROLLER_USER });
    const url = new URL(server.url);
    const endpoint = { host: url.hostname, port: Number(url.port) };
    const grants = {} as Record<IdentityName, Grant[]>;
    for (const id of Object.values(identities)) {
      grants[id.name] = id.superuser ? superuserGrants(catalogue, SEED_NAMESPACES) : await readGrants(endpoint, id, catalogue, SEED_NAMESPACES);
    }
    return {
      server,
      ...endpoint,
      identities,
      grants,
      catalogue,
      namespaces: [...SEED_NAMESPACES, 'kube-system', 'kube-public', 'no-such-ns'],
      names: [SEED_NAME, CLUSTER, 'kube-root-ca.crt', 'default', 'managed-cluster-lease', 'open-cluster-management:bootstrap', 'cluster-admin', 'no-such-name'],
      csrPem,
      csrRequests,
      csrNames,
      admin,
      async stop() {
        for (const id of Object.values(identities)) id.agent.destroy();
        admin.close();
        await server.stop();
      },
    };
  } catch (err) {
    admin.close();
    await server.stop();
    throw err;
  }
}
