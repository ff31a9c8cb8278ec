// What the ClusterProfiles of the hub should be. Pure: which clusters get a profile in a namespace
// (from its bound ManagedClusterSetBindings), and the labels and status a profile mirrors from its
// ManagedCluster.

import type { ManagedCluster, ManagedClusterSet, ManagedClusterSetBinding } from '../../api/cluster.js';
import {
  CLUSTER_MANAGER_LABEL,
  CLUSTER_SET_LABEL,
  CONTROL_PLANE_HEALTHY,
  OCM_CLUSTER_MANAGER,
  type ClusterProfile,
  type ClusterProfileStatus,
} from '../../api/cluster-profile.js';
import { findCondition, isConditionTrue, setCondition } from '../../api/conditions.js';
import { conditionTypes, labels as wellKnownLabels } from '../../api/constants.js';
import { setSelects } from '../managedclusterset/cluster-set-selector.js';

/**
 * Names of the clusters that should have a profile in the bindings' namespace: every cluster, not
 * being deleted, of every set whose binding there is Bound. A cluster in several bound sets is
 * counted once; a missing set or one with an unknown selector type contributes nothing.
 */
export function desiredProfileClusters(
  bindings: readonly ManagedClusterSetBinding[],
  setNamed: (name: string) => ManagedClusterSet | undefined,
  clusters: readonly ManagedCluster[],
): Set<string> {
  const out = new Set<string>();
  for (const binding of bindings) {
    if (!isConditionTrue(binding.status?.conditions, conditionTypes.bound)) continue;
    const set = setNamed(binding.spec?.clusterSet ?? '');
    if (!set) continue;
    for (const cluster of clusters) {
      if (cluster.metadata.deletionTimestamp) continue;
      let selected: boolean;
      try {
        selected = setSelects(set, cluster.metadata.labels);
      } catch {
        // An unknown selector type is reported on the set itself.
        break;
      }
      if (selected) out.add(cluster.metadata.name ?? '');
    }
  }
  out.delete('');
  return out;
}

/** The profile the hub creates for `cluster` in `namespace`; its status comes later from the cluster. */
export function newClusterProfile(namespace: string, cluster: string): ClusterProfile {
  return {
    apiVersion: 'multicluster.x-k8s.io/v1alpha1',
    kind: 'ClusterProfile',
    metadata: {
      name: cluster,
      namespace,
      labels: { [CLUSTER_MANAGER_LABEL]: OCM_CLUSTER_MANAGER, [wellKnownLabels.clusterName]: cluster },
    },
    spec: { displayName: cluster, clusterManager: { name: OCM_CLUSTER_MANAGER } },
  };
}

/** The cluster a profile describes: its cluster-name label, else its name. */
export function profileClusterName(profile: ClusterProfile): string {
  return profile.metadata.labels?.[wellKnownLabels.clusterName] ?? profile.metadata.name ?? '';
}

/** Whether the hub manages this profile (the lifecycle side looks at the label, the status side at the spec). */
export function isManagedProfile(profile: ClusterProfile): boolean {
  return profile.metadata.labels?.[CLUSTER_MANAGER_LABEL] === OCM_CLUSTER_MANAGER;
}

/**
 * Labels the profile must carry: the manager, the cluster's set (empty when it has none) and the
 * cluster name, over whatever else it has. Undefined when nothing changes.
 */
export function profileLabels(profile: ClusterProfile, cluster: ManagedCluster): Record<string, string> | undefined {
  const required: Record<string, string> = {
    [CLUSTER_MANAGER_LABEL]: OCM_CLUSTER_MANAGER,
    [CLUSTER_SET_LABEL]: cluster.metadata.labels?.[wellKnownLabels.clusterSet] ?? '',
    [wellKnownLabels.clusterName]: cluster.metadata.name ?? '',
  };
  const current = profile.metadata.labels ?? {};
  if (Object.entries(required).every(([k, v]) => current[k] === v)) return undefined;
  return { ...current, ...required };
}

/**
 * The profile status from the cluster: its Kubernetes version, its claims as properties, and its
 * Available and Joined conditions as ControlPlaneHealthy and Joined. Other status fields (access
 * providers written by someone else) are kept.
 */
export function profileStatus(current: ClusterProfileStatus | undefined, cluster: ManagedCluster, now: Date): ClusterProfileStatus {
  const kubernetes = cluster.status?.version?.kubernetes;
  // The ClusterProfile schema wants non-empty names and values: a claim without a value has no property.
  const properties = (cluster.status?.clusterClaims ?? [])
    .filter((c) => c.name !== '' && c.value !== '')
    .map((c) => ({ name: c.name, value: c.value }));
  let conditions = current?.conditions ?? [];
  const mirror: [string, string][] = [
    [conditionTypes.available, CONTROL_PLANE_HEALTHY],
    [conditionTypes.joined, 'Joined'],
  ];
  for (const [from, to] of mirror) {
    const c = findCondition(cluster.status?.conditions, from);
    if (c) conditions = setCondition(conditions, { type: to, status: c.status, reason: c.reason, message: c.message }, now);
  }
  return {
    ...(current ?? {}),
    version: kubernetes ? { kubernetes } : {},
    properties,
    ...(conditions.length > 0 ? { conditions } : {}),
  };
}
