// The RBAC the hub creates for clusters: per-cluster ClusterRole/Binding, the two
// RoleBindings in the cluster namespace, and the two common ClusterRoles. Pure builders.

import {
  clusterGroupName,
  clusterRoleName,
  finalizers,
  GROUP_CLUSTER,
  GROUP_REGISTER,
  GROUP_ADDON,
  GROUP_WORK,
  labels as wellKnownLabels,
  REGISTRATION_CLUSTER_ROLE,
  registrationRoleBindingName,
  WORK_CLUSTER_ROLE,
  workRoleBindingName,
} from '../api/constants.js';
import type { ClusterRole, ClusterRoleBinding, PolicyRule, RbacSubject, RoleBinding } from '../api/core.js';
import { semanticEqual } from '../util/merge-patch.js';

const RBAC_GROUP = 'rbac.authorization.k8s.io';
const RBAC_API = 'rbac.authorization.k8s.io/v1';

export type RbacObject = ClusterRole | ClusterRoleBinding | RoleBinding;

/** Labels on every per-cluster object: `--labels` ∪ {cluster-name: <c>} (cluster-name wins). */
export function clusterLabels(cluster: string, extra: Readonly<Record<string, string>>): Record<string, string> {
  return { ...extra, [wellKnownLabels.clusterName]: cluster };
}

function clusterSubjects(cluster: string): RbacSubject[] {
  return [
    { kind: 'Group', apiGroup: RBAC_GROUP, name: clusterGroupName(cluster) },
    { kind: 'Group', apiGroup: RBAC_GROUP, name: `open-cluster-management:${cluster}` },
  ];
}

function clusterRoleRules(cluster: string, accepted: boolean): PolicyRule[] {
  if (!accepted) return [{ apiGroups: [GROUP_CLUSTER], resources: ['managedclusters'], resourceNames: [cluster], verbs: ['get', 'list', 'watch'] }];
  return [
    { apiGroups: ['certificates.k8s.io'], resources: ['certificatesigningrequests'], verbs: ['create', 'get', 'list', 'watch'] },
    { apiGroups: [GROUP_REGISTER], resources: ['managedclusters/clientcertificates'], verbs: ['renew'] },
    { apiGroups: [GROUP_CLUSTER], resources: ['managedclusters'], resourceNames: [cluster], verbs: ['get', 'list', 'update', 'watch'] },
    { apiGroups: [GROUP_CLUSTER], resources: ['managedclusters/status'], resourceNames: [cluster], verbs: ['patch', 'update'] },
  ];
}

/** ClusterRole then ClusterRoleBinding `open-cluster-management:managedcluster:<c>`, kept while the cluster exists. */
export function clusterSpecificRbac(cluster: string, accepted: boolean, extra: Readonly<Record<string, string>>): [ClusterRole, ClusterRoleBinding] {
  const name = clusterRoleName(cluster);
  return [
    { apiVersion: RBAC_API, kind: 'ClusterRole', metadata: { name, labels: clusterLabels(cluster, extra) }, rules: clusterRoleRules(cluster, accepted) },
    {
      apiVersion: RBAC_API,
      kind: 'ClusterRoleBinding',
      metadata: { name, labels: clusterLabels(cluster, extra) },
      roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name },
      subjects: clusterSubjects(cluster),
    },
  ];
}

/**
 * Registration then work RoleBinding in namespace <c>; they exist only while the cluster is accepted.
 * The work one carries the work finalizer.
 */
export function clusterRoleBindings(cluster: string, extra: Readonly<Record<string, string>>): [RoleBinding, RoleBinding] {
  return [
    {
      apiVersion: RBAC_API,
      kind: 'RoleBinding',
      metadata: { name: registrationRoleBindingName(cluster), namespace: cluster, labels: clusterLabels(cluster, extra) },
      roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: REGISTRATION_CLUSTER_ROLE },
      subjects: clusterSubjects(cluster),
    },
    {
      apiVersion: RBAC_API,
      kind: 'RoleBinding',
      metadata: {
        name: workRoleBindingName(cluster),
        namespace: cluster,
        labels: clusterLabels(cluster, extra),
        finalizers: [finalizers.manifestWorkCleanup],
      },
      roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: WORK_CLUSTER_ROLE },
      subjects: clusterSubjects(cluster),
    },
  ];
}

/** The common ClusterRoles, registration then work; cluster-name label is empty. */
export function commonClusterRoles(extra: Readonly<Record<string, string>>): [ClusterRole, ClusterRole] {
  const lbl = { ...extra, [wellKnownLabels.clusterName]: '' };
  return [
    {
      apiVersion: RBAC_API,
      kind: 'ClusterRole',
      metadata: { name: REGISTRATION_CLUSTER_ROLE, labels: { ...lbl } },
      rules: [
        { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'list', 'watch', 'update'] },
        { apiGroups: [GROUP_ADDON], resources: ['managedclusteraddons'], verbs: ['get', 'list', 'watch'] },
        { apiGroups: [GROUP_ADDON], resources: ['managedclusteraddons/status'], verbs: ['patch', 'update'] },
        { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create'] },
      ],
    },
    {
      apiVersion: RBAC_API,
      kind: 'ClusterRole',
      metadata: { name: WORK_CLUSTER_ROLE, labels: { ...lbl } },
      rules: [
        { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'update'] },
        { apiGroups: [GROUP_WORK], resources: ['manifestworks'], verbs: ['get', 'list', 'watch', 'update', 'patch'] },
        { apiGroups: [GROUP_WORK], resources: ['manifestworks/status'], verbs: ['patch', 'update'] },
      ],
    },
  ];
}

/** OCM's bootstrap ClusterRole (deployment-provided; the embedded hub installs it). */
export const BOOTSTRAP_CLUSTER_ROLE = 'open-cluster-management:bootstrap';
export function bootstrapClusterRole(): ClusterRole {
  return {
    apiVersion: RBAC_API,
    kind: 'ClusterRole',
    metadata: { name: BOOTSTRAP_CLUSTER_ROLE },
    rules: [
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get'] },
      { apiGroups: ['certificates.k8s.io'], resources: ['certificatesigningrequests'], verbs: ['create', 'get', 'list', 'watch'] },
      { apiGroups: [GROUP_CLUSTER], resources: ['managedclusters'], verbs: ['get', 'create', 'list', 'watch'] },
      { apiGroups: [GROUP_CLUSTER], resources: ['managedclustersets/join'], verbs: ['create'] },
    ],
  };
}

/**
 * Merge required into existing as OCM's applier does: labels/annotations merged (extra keys
 * kept), content (rules, or subjects + roleRef) replaced. Returns the object to update, or undefined.
 */
export function mergeRbacForUpdate<T extends RbacObject>(existing: T, required: T): T | undefined {
  const exLabels = existing.metadata.labels ?? {};
  const exAnn = existing.metadata.annotations ?? {};
  const labels = { ...exLabels, ...(required.metadata.labels ?? {}) };
  const annotations = { ...exAnn, ...(required.metadata.annotations ?? {}) };
  const metaChanged = !sameMap(exLabels, labels) || !sameMap(exAnn, annotations);
  const isRole = required.kind === 'ClusterRole' || required.kind === 'Role';
  const contentChanged = isRole
    ? !semanticEqual((existing as ClusterRole).rules, (required as ClusterRole).rules)
    : !semanticEqual((existing as ClusterRoleBinding).subjects, (required as ClusterRoleBinding).subjects) ||
      !semanticEqual((existing as ClusterRoleBinding).roleRef, (required as ClusterRoleBinding).roleRef);
  // Every reconcile of every cluster compares its RBAC: the copy is made only for an update.
  if (!metaChanged && !contentChanged) return undefined;
  const out = structuredClone(existing) as T;
  out.metadata.labels = labels;
  if (Object.keys(annotations).length > 0) out.metadata.annotations = annotations;
  if (isRole) {
    (out as ClusterRole).rules = structuredClone((required as ClusterRole).rules ?? []);
  } else {
    const r = required as ClusterRoleBinding;
    (out as ClusterRoleBinding).subjects = structuredClone(r.subjects ?? []);
    (out as ClusterRoleBinding).roleRef = structuredClone(r.roleRef);
  }
  return out;
}

function sameMap(a: Record<string, string>, b: Record<string, string>): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => a[k] === b[k]);
}

/**
 * The embedded hub's own controller identity (ocm-ts; not an OCM object): what the controllers use.
 * The server refuses RBAC that grants more than its author holds, so besides what the controllers
 * do themselves this holds every permission of the per-cluster and common roles they write (CSR
 * create, renew, lease update, ManifestWork update), as OCM's registration controller role does. It
 * has neither `escalate` nor `bind`: it cannot grant anything beyond that.
 */
export const HUB_CONTROLLER_CLUSTER_ROLE = 'open-cluster-management:ocm-ts:hub-controller';
export const HUB_CONTROLLER_USER = 'ocm-ts:hub-controller';
export function hubControllerClusterRole(opts: { clusterImporter?: { bootstrapServiceAccount: string }; grpc?: boolean } = {}): ClusterRole {
  const rw = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];
  // The importer (gate ClusterImporter) reads Cluster API Clusters and their kubeconfig Secrets (in
  // any namespace: Cluster API chooses it), hub ConfigMaps and pull Secret, and mints bootstrap tokens.
  const importer: PolicyRule[] = opts.clusterImporter
    ? [
        { apiGroups: ['cluster.x-k8s.io'], resources: ['clusters'], verbs: ['get', 'list', 'watch'] },
        { apiGroups: [''], resources: ['secrets', 'configmaps'], verbs: ['get'] },
        { apiGroups: [''], resources: ['serviceaccounts/token'], resourceNames: [opts.clusterImporter.bootstrapServiceAccount], verbs: ['create'] },
      ]
    : [];
  // The gRPC driver (as OCM's gRPC server role and grpc signer rules): it writes for agents, reviews
  // their tokens and access, and approves and signs CSRs of OCM's gRPC signer.
  const grpc: PolicyRule[] = opts.grpc
    ? [
        { apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews', 'selfsubjectreviews'], verbs: ['create'] },
        { apiGroups: ['certificates.k8s.io'], resources: ['certificatesigningrequests/status'], verbs: ['update'] },
        { apiGroups: ['certificates.k8s.io'], resources: ['signers'], resourceNames: ['open-cluster-management.io/grpc'], verbs: ['approve', 'sign'] },
        { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['get'] },
        { apiGroups: [''], resources: ['serviceaccounts/token'], verbs: ['create'] },
        // The agents' ManagedClusters are created by the hub: admission checks that the creator may
        // join the cluster to its set (the default set), as for the bootstrap identity.
        { apiGroups: [GROUP_CLUSTER], resources: ['managedclustersets/join'], verbs: ['create'] },
      ]
    : [];
  return {
    apiVersion: RBAC_API,
    kind: 'ClusterRole',
    metadata: { name: HUB_CONTROLLER_CLUSTER_ROLE },
    rules: [
      { apiGroups: [GROUP_CLUSTER], resources: ['managedclusters', 'managedclustersets'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch'] },
      { apiGroups: [GROUP_CLUSTER], resources: ['managedclustersetbindings'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: [GROUP_CLUSTER], resources: ['managedclusters/status', 'managedclustersets/status', 'managedclustersetbindings/status'], verbs: ['patch', 'update'] },
      // Auto-accept (ManagedClusterAutoApproval) sets spec.hubAcceptsClient, which admission guards with this virtual subresource.
      { apiGroups: [GROUP_REGISTER], resources: ['managedclusters/accept'], verbs: ['update'] },
      // Granted to every accepted cluster's agent by its ClusterRole.
      { apiGroups: [GROUP_REGISTER], resources: ['managedclusters/clientcertificates'], verbs: ['renew'] },
      { apiGroups: [GROUP_ADDON], resources: ['managedclusteraddons'], verbs: ['get', 'list', 'watch', 'delete'] },
      { apiGroups: [GROUP_ADDON], resources: ['managedclusteraddons/status'], verbs: ['patch', 'update'] },
      { apiGroups: [GROUP_WORK], resources: ['manifestworks'], verbs: ['get', 'list', 'watch', 'update', 'patch', 'delete'] },
      { apiGroups: [GROUP_WORK], resources: ['manifestworks/status'], verbs: ['patch', 'update'] },
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'list', 'watch', 'create', 'update'] },
      { apiGroups: ['certificates.k8s.io'], resources: ['certificatesigningrequests'], verbs: ['get', 'list', 'watch', 'create'] },
      { apiGroups: ['certificates.k8s.io'], resources: ['certificatesigningrequests/approval'], verbs: ['update'] },
      { apiGroups: ['certificates.k8s.io'], resources: ['signers'], resourceNames: ['kubernetes.io/kube-apiserver-client'], verbs: ['approve'] },
      { apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'], verbs: ['create'] },
      { apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles', 'clusterrolebindings', 'roles', 'rolebindings'], verbs: rw },
      { apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list', 'watch', 'create', 'update'] },
      { apiGroups: ['events.k8s.io', ''], resources: ['events'], verbs: ['create', 'patch', 'update'] },
      // ClusterProfiles (gate ClusterProfile): one per cluster and consumer namespace.
      { apiGroups: ['multicluster.x-k8s.io'], resources: ['clusterprofiles'], verbs: rw },
      { apiGroups: ['multicluster.x-k8s.io'], resources: ['clusterprofiles/status'], verbs: ['patch', 'update'] },
      ...importer,
      ...grpc,
    ],
  };
}
