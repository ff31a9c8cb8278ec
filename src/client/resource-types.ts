// ResourceType constants for every kind the agent and hub address, with the group/version OCM uses.

import type { ResourceType } from './types.js';

function rt(group: string, version: string, resource: string, kind: string, namespaced: boolean): ResourceType {
  return Object.freeze({ group, version, resource, kind, namespaced });
}

const OCM_CLUSTER = 'cluster.open-cluster-management.io';
const OCM_ADDON = 'addon.open-cluster-management.io';

export const resourceTypes = Object.freeze({
  // Open Cluster Management
  managedClusters: rt(OCM_CLUSTER, 'v1', 'managedclusters', 'ManagedCluster', false),
  managedClusterSets: rt(OCM_CLUSTER, 'v1beta2', 'managedclustersets', 'ManagedClusterSet', false),
  managedClusterSetBindings: rt(OCM_CLUSTER, 'v1beta2', 'managedclustersetbindings', 'ManagedClusterSetBinding', true),
  clusterClaims: rt(OCM_CLUSTER, 'v1alpha1', 'clusterclaims', 'ClusterClaim', false),
  clusterProperties: rt('about.k8s.io', 'v1alpha1', 'clusterproperties', 'ClusterProperty', false),
  managedClusterAddOns: rt(OCM_ADDON, 'v1beta1', 'managedclusteraddons', 'ManagedClusterAddOn', true),
  managedClusterAddOnsV1alpha1: rt(OCM_ADDON, 'v1alpha1', 'managedclusteraddons', 'ManagedClusterAddOn', true),
  clusterManagementAddOns: rt(OCM_ADDON, 'v1beta1', 'clustermanagementaddons', 'ClusterManagementAddOn', false),
  clusterManagementAddOnsV1alpha1: rt(OCM_ADDON, 'v1alpha1', 'clustermanagementaddons', 'ClusterManagementAddOn', false),
  manifestWorks: rt('work.open-cluster-management.io', 'v1', 'manifestworks', 'ManifestWork', true),
  // SIG-Multicluster cluster inventory
  clusterProfiles: rt('multicluster.x-k8s.io', 'v1alpha1', 'clusterprofiles', 'ClusterProfile', true),
  // Kubernetes built-ins
  leases: rt('coordination.k8s.io', 'v1', 'leases', 'Lease', true),
  certificateSigningRequests: rt('certificates.k8s.io', 'v1', 'certificatesigningrequests', 'CertificateSigningRequest', false),
  certificateSigningRequestsV1beta1: rt('certificates.k8s.io', 'v1beta1', 'certificatesigningrequests', 'CertificateSigningRequest', false),
  secrets: rt('', 'v1', 'secrets', 'Secret', true),
  configMaps: rt('', 'v1', 'configmaps', 'ConfigMap', true),
  namespaces: rt('', 'v1', 'namespaces', 'Namespace', false),
  nodes: rt('', 'v1', 'nodes', 'Node', false),
  events: rt('', 'v1', 'events', 'Event', true),
  eventsV1: rt('events.k8s.io', 'v1', 'events', 'Event', true),
  serviceAccounts: rt('', 'v1', 'serviceaccounts', 'ServiceAccount', true),
  roles: rt('rbac.authorization.k8s.io', 'v1', 'roles', 'Role', true),
  clusterRoles: rt('rbac.authorization.k8s.io', 'v1', 'clusterroles', 'ClusterRole', false),
  roleBindings: rt('rbac.authorization.k8s.io', 'v1', 'rolebindings', 'RoleBinding', true),
  clusterRoleBindings: rt('rbac.authorization.k8s.io', 'v1', 'clusterrolebindings', 'ClusterRoleBinding', false),
  customResourceDefinitions: rt('apiextensions.k8s.io', 'v1', 'customresourcedefinitions', 'CustomResourceDefinition', false),
  subjectAccessReviews: rt('authorization.k8s.io', 'v1', 'subjectaccessreviews', 'SubjectAccessReview', false),
  selfSubjectAccessReviews: rt('authorization.k8s.io', 'v1', 'selfsubjectaccessreviews', 'SelfSubjectAccessReview', false),
} satisfies Record<string, ResourceType>);

