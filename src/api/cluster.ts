// Typed shapes of the cluster.open-cluster-management.io and about.k8s.io objects registration uses.
import type { Condition, KubeObject } from './meta.js';

interface ClientConfig {
  url: string;
  caBundle?: string;
}

export interface Taint {
  key: string;
  value?: string;
  effect: 'NoSelect' | 'PreferNoSelect' | 'NoSelectIfNew';
  timeAdded?: string | null;
}

interface ManagedClusterSpec {
  hubAcceptsClient: boolean;
  managedClusterClientConfigs?: ClientConfig[];
  leaseDurationSeconds?: number;
  taints?: Taint[];
}

export interface ManagedNamespaceConfig {
  name: string;
  clusterSet: string;
  conditions?: Condition[];
}

interface ManagedClusterStatus {
  conditions?: Condition[];
  capacity?: Record<string, string>;
  allocatable?: Record<string, string>;
  version?: { kubernetes?: string };
  clusterClaims?: { name: string; value: string }[];
  managedNamespaces?: ManagedNamespaceConfig[];
}

export interface ManagedCluster extends KubeObject {
  spec?: ManagedClusterSpec;
  status?: ManagedClusterStatus;
}

interface LabelSelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  values?: string[];
}

interface LabelSelectorObject {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

export interface ManagedClusterSet extends KubeObject {
  spec?: {
    clusterSelector?: { selectorType?: 'ExclusiveClusterSetLabel' | 'LabelSelector' | ''; labelSelector?: LabelSelectorObject };
    managedNamespaces?: { name: string }[];
  };
  status?: { conditions?: Condition[] };
}

export interface ManagedClusterSetBinding extends KubeObject {
  spec?: { clusterSet: string };
  status?: { conditions?: Condition[] };
}

export interface ClusterClaim extends KubeObject {
  spec?: { value?: string };
}

export interface ClusterProperty extends KubeObject {
  spec?: { value: string };
}
