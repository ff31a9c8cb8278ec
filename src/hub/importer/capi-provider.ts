// Cluster API as the importer's provider: a ManagedCluster belongs to the CAPI `Cluster` named by its
// `cluster.x-k8s.io/cluster` annotation (`<namespace>/<name>`), else the one named like the cluster
// in the namespace of that name. Once that Cluster is Provisioned, its kubeconfig is the `value` key
// of the Secret `<name>-kubeconfig` beside it (Cluster API's convention).

import type { ManagedCluster } from '../../api/cluster.js';
import type { Secret } from '../../api/core.js';
import type { KubeObject } from '../../api/meta.js';
import { isNotFound } from '../../client/errors.js';
import { resourceTypes } from '../../client/resource-types.js';
import type { ClientConfig } from '../../client/kubeconfig.js';
import type { KubeClient, Lister, ResourceType } from '../../client/types.js';
import { parseRemoteKubeconfig } from './remote-kubeconfig.js';

export const CAPI_CLUSTERS: ResourceType = Object.freeze({ group: 'cluster.x-k8s.io', version: 'v1beta1', resource: 'clusters', kind: 'Cluster', namespaced: true });
const CAPI_ANNOTATION = 'cluster.x-k8s.io/cluster';

export interface CapiKey {
  namespace: string;
  name: string;
}

/** The CAPI Cluster a ManagedCluster names; undefined when the annotation is not `ns/name` (owned by nobody). */
export function capiKey(cluster: ManagedCluster): CapiKey | undefined {
  const name = cluster.metadata.name ?? '';
  const key = cluster.metadata.annotations?.[CAPI_ANNOTATION] ?? `${name}/${name}`;
  const parts = key.split('/');
  // A bare name would be a cluster-scoped Cluster, which Cluster API does not have.
  if (parts.length !== 2 || parts[0] === '' || parts[1] === '') return undefined;
  return { namespace: parts[0]!, name: parts[1]! };
}

export const sameKey = (a: CapiKey, b: CapiKey): boolean => a.namespace === b.namespace && a.name === b.name;

/** Raised when the kubeconfig Secret is missing: it is not watched, so the importer looks again later. */
export class KubeconfigSecretMissing extends Error {
  constructor(namespace: string, name: string) {
    super(`kubeconfig secret ${namespace}/${name} is not found`);
    this.name = 'KubeconfigSecretMissing';
  }
}

/**
 * The imported cluster's client config; undefined while its CAPI Cluster is gone or not yet
 * Provisioned (the Cluster's next update brings the ManagedCluster back). Throws when the Secret is
 * missing (KubeconfigSecretMissing) or its kubeconfig is unusable.
 */
export async function capiClusterConfig(hub: KubeClient, clusters: Lister<KubeObject>, key: CapiKey, signal: AbortSignal): Promise<ClientConfig | undefined> {
  const capi = clusters.get(key.name, key.namespace);
  if (!capi) return undefined;
  const status = capi['status'];
  const phase = typeof status === 'object' && status !== null ? (status as { phase?: unknown }).phase : undefined;
  if (phase !== 'Provisioned') return undefined;
  const secretName = `${key.name}-kubeconfig`;
  let secret: Secret;
  try {
    secret = await hub.resource<Secret>(resourceTypes.secrets, key.namespace).get(secretName, { signal });
  } catch (err) {
    if (isNotFound(err)) throw new KubeconfigSecretMissing(key.namespace, secretName);
    throw err;
  }
  const value = secret.data?.['value'];
  if (value === undefined || value === '') throw new Error(`missing key "value" in secret ${key.namespace}/${secretName}`);
  return parseRemoteKubeconfig(Buffer.from(value, 'base64').toString('utf8'));
}
