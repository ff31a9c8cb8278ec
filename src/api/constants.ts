// Well-known OCM names: labels, annotations, finalizers, condition types and reasons, fixed object
// names. Values are part of the wire contract with OCM's hub, agents and add-ons and must not change.

export const GROUP_CLUSTER = 'cluster.open-cluster-management.io';
export const GROUP_ADDON = 'addon.open-cluster-management.io';
export const GROUP_REGISTER = 'register.open-cluster-management.io';
export const GROUP_WORK = 'work.open-cluster-management.io';

export const labels = {
  clusterName: 'open-cluster-management.io/cluster-name',
  clusterSet: 'cluster.open-cluster-management.io/clusterset',
  addonName: 'open-cluster-management.io/addon-name',
  addonNamespace: 'open-cluster-management.io/addon-namespace',
  spokeOnly: 'open-cluster-management.io/spoke-only',
  /** Prefix of `feature.open-cluster-management.io/addon-<name>` labels on ManagedCluster. */
  addonFeaturePrefix: 'feature.open-cluster-management.io/addon-',
  /** Prefix of the spoke managed-namespace label `clusterset.open-cluster-management.io/<hubHash>`. */
  managedNamespacePrefix: 'clusterset.open-cluster-management.io/',
} as const;

export const annotations = {
  /** Only agent annotations with this prefix reach the ManagedCluster (no trailing slash). */
  agentPrefix: 'agent.open-cluster-management.io',
  autoAcceptedOn: 'open-cluster-management.io/automatically-accepted-on',
  skipClockSyncCheck: 'registration.open-cluster-management.io/skip-clock-sync-check',
  clusterSetAutoUpdate: 'cluster.open-cluster-management.io/autoupdate',
  cleanupPriority: 'open-cluster-management.io/cleanup-priority',
  imageRegistries: 'open-cluster-management.io/image-registries',
  csrUser: 'open-cluster-management.io/csr-user',
  addonInstallNamespace: 'addon.open-cluster-management.io/v1alpha1-install-namespace',
  addonHostingClusterName: 'addon.open-cluster-management.io/hosting-cluster-name',
} as const;

export const finalizers = {
  apiResourceCleanup: 'cluster.open-cluster-management.io/api-resource-cleanup',
  resourceCleanup: 'cluster.open-cluster-management.io/resource-cleanup',
  manifestWorkCleanup: 'cluster.open-cluster-management.io/manifest-work-cleanup',
} as const;

export const conditionTypes = {
  hubAccepted: 'HubAcceptedManagedCluster',
  hubDenied: 'HubDeniedManagedCluster',
  joined: 'ManagedClusterJoined',
  available: 'ManagedClusterConditionAvailable',
  clockSynced: 'ManagedClusterConditionClockSynced',
  deleting: 'Deleting',
  certificateRotated: 'ClusterCertificateRotated',
  namespaceAvailable: 'NamespaceAvailable',
  clusterSetEmpty: 'ClusterSetEmpty',
  bound: 'Bound',
  addonAvailable: 'Available',
  tokenRefreshed: 'TokenRefreshed',
  tokenInfrastructureReady: 'TokenInfrastructureReady',
} as const;

export const reasons = {
  hubClusterAdminAccepted: 'HubClusterAdminAccepted',
  hubClusterAdminDenied: 'HubClusterAdminDenied',
  error: 'Error',
  managedClusterJoined: 'ManagedClusterJoined',
  managedClusterAvailable: 'ManagedClusterAvailable',
  kubeAPIServerUnavailable: 'ManagedClusterKubeAPIServerUnavailable',
  leaseUpdateStopped: 'ManagedClusterLeaseUpdateStopped',
  clockSynced: 'ManagedClusterClockSynced',
  clockOutOfSync: 'ManagedClusterClockOutOfSync',
  resourceRemaining: 'ResourceRemaining',
  noResource: 'NoResource',
  deletingError: 'DeletingError',
  clientCertificateUpdated: 'ClientCertificateUpdated',
  clientCertificateUpdateFailed: 'ClientCertificateUpdateFailed',
  namespaceApplied: 'NamespaceApplied',
  namespaceApplyFailed: 'NamespaceApplyFailed',
  noClusterMatched: 'NoClusterMatched',
  clustersSelected: 'ClustersSelected',
  clusterSetBound: 'ClusterSetBound',
  clusterSetNotFound: 'ClusterSetNotFound',
  addonLeaseUpdated: 'ManagedClusterAddOnLeaseUpdated',
  addonLeaseUpdateStopped: 'ManagedClusterAddOnLeaseUpdateStopped',
  addonLeaseNotFound: 'ManagedClusterAddOnLeaseNotFound',
  autoApprovedByHub: 'AutoApprovedByHubCSRApprovingController',
} as const;

export const taints = {
  unavailable: 'cluster.open-cluster-management.io/unavailable',
  unreachable: 'cluster.open-cluster-management.io/unreachable',
} as const;

/** OCM's reserved ClusterClaim names, exactly four: reported first and never truncated. */
export const RESERVED_CLUSTER_CLAIM_NAMES: readonly string[] = [
  'id.k8s.io',
  'kubeversion.open-cluster-management.io',
  'platform.open-cluster-management.io',
  'product.open-cluster-management.io',
];

export const names = {
  clusterLease: 'managed-cluster-lease',
  agentNamespace: 'open-cluster-management-agent',
  addonInstallNamespace: 'open-cluster-management-agent-addon',
  bootstrapSecret: 'bootstrap-hub-kubeconfig',
  hubKubeconfigSecret: 'hub-kubeconfig-secret',
  hubKubeconfigDir: '/spoke/hub-kubeconfig',
  kubeconfigContext: 'default-context',
  kubeconfigUser: 'default-auth',
  kubeconfigNamespace: 'configuration',
  userPrefix: 'system:open-cluster-management:',
  managedClustersGroup: 'system:open-cluster-management:managed-clusters',
  defaultClusterSet: 'default',
  globalClusterSet: 'global',
  kubeApiserverClientSigner: 'kubernetes.io/kube-apiserver-client',
  /** OCM's signer of gRPC client certificates (signed by the hub with its gRPC CA). */
  grpcSigner: 'open-cluster-management.io/grpc',
} as const;

/** Keys of the hub kubeconfig secret (also the file names in the hub kubeconfig dir). */
export const hubSecretKeys = {
  kubeconfig: 'kubeconfig',
  tlsCert: 'tls.crt',
  tlsKey: 'tls.key',
  clusterName: 'cluster-name',
  agentName: 'agent-name',
} as const;

export const DEFAULT_LEASE_DURATION_SECONDS = 60;
/** The hub marks a cluster unknown after this many lease durations without renewal. */
export const LEASE_DURATION_TIMES = 5;

export function clusterRoleName(cluster: string): string {
  return `open-cluster-management:managedcluster:${cluster}`;
}
export function registrationRoleBindingName(cluster: string): string {
  return `open-cluster-management:managedcluster:${cluster}:registration`;
}
export function workRoleBindingName(cluster: string): string {
  return `open-cluster-management:managedcluster:${cluster}:work`;
}
export const REGISTRATION_CLUSTER_ROLE = 'open-cluster-management:managedcluster:registration';
export const WORK_CLUSTER_ROLE = 'open-cluster-management:managedcluster:work';

/** Agent CN: `system:open-cluster-management:<cluster>:<agentId>`. */
export function agentUserName(cluster: string, agentId: string): string {
  return `${names.userPrefix}${cluster}:${agentId}`;
}
/** Agent group: `system:open-cluster-management:<cluster>`. */
export function clusterGroupName(cluster: string): string {
  return `${names.userPrefix}${cluster}`;
}
