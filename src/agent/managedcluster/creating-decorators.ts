// Pure decorators of ManagedClusterCreatingController: keep only
// `--cluster-annotations` whose key starts with `agent.open-cluster-management.io`, and append one
// client config per external server URL not already listed.

import type { ManagedCluster } from '../../api/cluster.js';
import { annotations as annotationKeys } from '../../api/constants.js';

export interface DecorateInput {
  /** `--cluster-annotations`. */
  annotations?: Readonly<Record<string, string>>;
  /** `--spoke-external-server-urls`, in flag order. */
  externalServerUrls?: readonly string[];
  /** Spoke CA bundle, base64 (as `caBundle` is on the wire); omitted when empty. */
  caBundle?: string;
}

export interface DecorateResult {
  cluster: ManagedCluster;
  /** Annotation keys dropped for lacking the agent prefix (for the warning). */
  ignoredAnnotations: string[];
}

/** Returns a decorated deep copy. */
export function decorateCluster(input: ManagedCluster, d: DecorateInput): DecorateResult {
  const cluster = structuredClone(input);
  const ignoredAnnotations: string[] = [];
  const keep: Record<string, string> = {};
  for (const [k, v] of Object.entries(d.annotations ?? {})) {
    if (k.startsWith(annotationKeys.agentPrefix)) keep[k] = v;
    else ignoredAnnotations.push(k);
  }
  if (Object.keys(keep).length > 0) cluster.metadata.annotations = { ...(cluster.metadata.annotations ?? {}), ...keep };

  const spec = cluster.spec ?? { hubAcceptsClient: false };
  const configs = [...(spec.managedClusterClientConfigs ?? [])];
  for (const url of d.externalServerUrls ?? []) {
    if (configs.some((c) => c.url === url)) continue;
    configs.push({ url, ...(d.caBundle ? { caBundle: d.caBundle } : {}) });
  }
  if (configs.length > 0) spec.managedClusterClientConfigs = configs;
  cluster.spec = spec;
  return { cluster, ignoredAnnotations };
}

/** The object created when the hub has no ManagedCluster yet (before decoration). */
export function newHubCluster(name: string): ManagedCluster {
  return { apiVersion: 'cluster.open-cluster-management.io/v1', kind: 'ManagedCluster', metadata: { name }, spec: { hubAcceptsClient: false } };
}

export function clientConfigCount(c: ManagedCluster): number {
  return c.spec?.managedClusterClientConfigs?.length ?? 0;
}
