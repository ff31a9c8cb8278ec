// What the scenarios look at on a hub or spoke, in OCM's literal names (the contract, written out
// here rather than imported from the product so the suite checks the product against OCM).
import { X509Certificate } from 'node:crypto';
import type { KubeObject } from '../../../src/api/meta.js';
import type { KubeClient, ResourceType } from '../../../src/client/types.js';
import { waitUntil } from '../infra/wait-until.js';

export const MANAGED_CLUSTERS: ResourceType = { group: 'cluster.open-cluster-management.io', version: 'v1', resource: 'managedclusters', kind: 'ManagedCluster', namespaced: false };
export const CLUSTER_CLAIMS: ResourceType = { group: 'cluster.open-cluster-management.io', version: 'v1alpha1', resource: 'clusterclaims', kind: 'ClusterClaim', namespaced: false };
export const CSRS: ResourceType = { group: 'certificates.k8s.io', version: 'v1', resource: 'certificatesigningrequests', kind: 'CertificateSigningRequest', namespaced: false };
export const SECRETS: ResourceType = { group: '', version: 'v1', resource: 'secrets', kind: 'Secret', namespaced: true };
export const NAMESPACES: ResourceType = { group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', namespaced: false };
export const ROLE_BINDINGS: ResourceType = { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'rolebindings', kind: 'RoleBinding', namespaced: true };
export const CLUSTER_ROLE_BINDINGS: ResourceType = { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterrolebindings', kind: 'ClusterRoleBinding', namespaced: false };
export const CLUSTER_MANAGEMENT_ADDONS: ResourceType = { group: 'addon.open-cluster-management.io', version: 'v1alpha1', resource: 'clustermanagementaddons', kind: 'ClusterManagementAddOn', namespaced: false };
export const MANAGED_CLUSTER_ADDONS: ResourceType = { group: 'addon.open-cluster-management.io', version: 'v1alpha1', resource: 'managedclusteraddons', kind: 'ManagedClusterAddOn', namespaced: true };
export const MANAGED_CLUSTER_ADDONS_V1BETA1: ResourceType = { ...MANAGED_CLUSTER_ADDONS, version: 'v1beta1' };

export const JOINED = 'ManagedClusterJoined';
export const AVAILABLE = 'ManagedClusterConditionAvailable';
export const ACCEPTED = 'HubAcceptedManagedCluster';
export const CLOCK_SYNCED = 'ManagedClusterConditionClockSynced';

interface Condition {
  type: string;
  status: string;
  reason?: string;
}

export const conditionsOf = (o: KubeObject | undefined): Condition[] => ((o?.status as { conditions?: Condition[] } | undefined)?.conditions ?? []);

const isNotFound = (err: unknown): boolean => (err as { code?: number }).code === 404;

export async function getOrUndefined(client: KubeClient, type: ResourceType, name: string, namespace?: string): Promise<KubeObject | undefined> {
  try {
    return await client.resource(type, namespace).get(name);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

export async function waitCluster(hub: KubeClient, name: string, what: string, timeoutMs: number, ok: (mc: KubeObject) => boolean): Promise<KubeObject> {
  let last: KubeObject | undefined;
  try {
    return await waitUntil(`${name}: ${what}`, timeoutMs, async () => {
      last = await getOrUndefined(hub, MANAGED_CLUSTERS, name);
      return last && ok(last) ? last : undefined;
    }, 250);
  } catch (err) {
    const conds = conditionsOf(last).map((c) => `${c.type}=${c.status}${c.reason ? `(${c.reason})` : ''}`).join(' ');
    throw new Error(`${(err as Error).message}; conditions: ${last ? conds || 'none' : 'no ManagedCluster'}`, { cause: err });
  }
}

export const hasCondition = (type: string, status: string) => (mc: KubeObject): boolean => conditionsOf(mc).some((c) => c.type === type && c.status === status);

export const allOf = (...ps: Array<(mc: KubeObject) => boolean>) => (mc: KubeObject): boolean => ps.every((p) => p(mc));

/** The hub kubeconfig secret on the spoke, once it holds a certificate. */
export async function hubKubeconfigSecret(spoke: KubeClient, namespace: string): Promise<{ certPem: string; serial: string; notBefore: Date; notAfter: Date; kubeconfig: string } | undefined> {
  const s = await getOrUndefined(spoke, SECRETS, 'hub-kubeconfig-secret', namespace);
  const data = (s as { data?: Record<string, string> } | undefined)?.data;
  if (!data?.['tls.crt'] || !data.kubeconfig) return undefined;
  const certPem = Buffer.from(data['tls.crt'], 'base64').toString('utf8');
  const cert = new X509Certificate(certPem);
  return { certPem, serial: cert.serialNumber, notBefore: new Date(cert.validFrom), notAfter: new Date(cert.validTo), kubeconfig: Buffer.from(data.kubeconfig, 'base64').toString('utf8') };
}
