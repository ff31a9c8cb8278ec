// The SIG-Multicluster ClusterProfile (multicluster.x-k8s.io/v1alpha1), as OCM's hub publishes one per
// cluster and consumer namespace.
import type { Condition, KubeObject } from './meta.js';

export interface ClusterProfile extends KubeObject {
  spec?: { displayName?: string; clusterManager: { name: string } };
  status?: ClusterProfileStatus;
}

export interface ClusterProfileStatus {
  conditions?: Condition[];
  version?: { kubernetes?: string };
  properties?: { name: string; value: string; lastObservedTime?: string }[];
  [field: string]: unknown;
}

/** Label naming the cluster manager that owns a profile; OCM's value is `open-cluster-management`. */
export const CLUSTER_MANAGER_LABEL = 'x-k8s.io/cluster-manager';
/** Label carrying the cluster set of the profile's cluster. */
export const CLUSTER_SET_LABEL = 'multicluster.x-k8s.io/clusterset';
export const OCM_CLUSTER_MANAGER = 'open-cluster-management';
/** The profile condition mirroring the ManagedCluster's Available condition. */
export const CONTROL_PLANE_HEALTHY = 'ControlPlaneHealthy';
