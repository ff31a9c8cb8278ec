// The RBAC the OCM hub creates (hub-controller.md §4), written here from the spec so the auth tests
// do not depend on the hub controllers: per-cluster ClusterRole/ClusterRoleBinding (accepted or
// denied variant), the registration and work RoleBindings, the two common ClusterRoles, and the
// bootstrap ClusterRole of §4.4.

import type { KubeObject } from '../../../src/api/meta.js';

const V = 'rbac.authorization.k8s.io/v1';
const G = 'rbac.authorization.k8s.io';
const MC = 'cluster.open-cluster-management.io';

const groups = (c: string): Array<Record<string, string>> => [
  { apiGroup: G, kind: 'Group', name: `system:open-cluster-management:${c}` },
  { apiGroup: G, kind: 'Group', name: `open-cluster-management:${c}` },
];
const labels = (c: string): Record<string, string> => ({ 'open-cluster-management.io/cluster-name': c });

export interface RbacObject {
  resource: 'clusterroles' | 'clusterrolebindings' | 'roles' | 'rolebindings';
  namespace?: string;
  object: KubeObject;
}

export function clusterRbac(c: string, accepted: boolean): RbacObject[] {
  const rules = accepted
    ? [
        { apiGroups: ['certificates.k8s.io'], resources: ['certificatesigningrequests'], verbs: ['create', 'get', 'list', 'watch'] },
        { apiGroups: ['register.open-cluster-management.io'], resources: ['managedclusters/clientcertificates'], verbs: ['renew'] },
        { apiGroups: [MC], resources: ['managedclusters'], resourceNames: [c], verbs: ['get', 'list', 'update', 'watch'] },
        { apiGroups: [MC], resources: ['managedclusters/status'], resourceNames: [c], verbs: ['patch', 'update'] },
      ]
    : [{ apiGroups: [MC], resources: ['managedclusters'], resourceNames: [c], verbs: ['get', 'list', 'watch'] }];
  const name = `open-cluster-management:managedcluster:${c}`;
  const out: RbacObject[] = [
    { resource: 'clusterroles', object: { apiVersion: V, kind: 'ClusterRole', metadata: { name, labels: labels(c) }, rules } },
    {
      resource: 'clusterrolebindings',
      object: { apiVersion: V, kind: 'ClusterRoleBinding', metadata: { name, labels: labels(c) }, roleRef: { apiGroup: G, kind: 'ClusterRole', name }, subjects: groups(c) },
    },
  ];
  if (accepted) {
    for (const [suffix, role] of [['registration', 'registration'], ['work', 'work']] as const) {
      out.push({
        resource: 'rolebindings',
        namespace: c,
        object: {
          apiVersion: V,
          kind: 'RoleBinding',
          metadata: { name: `${name}:${suffix}`, namespace: c, labels: labels(c) },
          roleRef: { apiGroup: G, kind: 'ClusterRole', name: `open-cluster-management:managedcluster:${role}` },
          subjects: groups(c),
        },
      });
    }
  }
  return out;
}

export function commonClusterRoles(): RbacObject[] {
  const l = { 'open-cluster-management.io/cluster-name': '' };
  return [
    {
      resource: 'clusterroles',
      object: {
        apiVersion: V, kind: 'ClusterRole', metadata: { name: 'open-cluster-management:managedcluster:registration', labels: l },
        rules: [
          { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'list', 'watch', 'update'] },
          { apiGroups: ['addon.open-cluster-management.io'], resources: ['managedclusteraddons'], verbs: ['get', 'list', 'watch'] },
          { apiGroups: ['addon.open-cluster-management.io'], resources: ['managedclusteraddons/status'], verbs: ['patch', 'update'] },
          { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create'] },
        ],
      },
    },
    {
      resource: 'clusterroles',
      object: {
        apiVersion: V, kind: 'ClusterRole', metadata: { name: 'open-cluster-management:managedcluster:work', labels: l },
        rules: [
          { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'update'] },
          { apiGroups: ['work.open-cluster-management.io'], resources: ['manifestworks'], verbs: ['get', 'list', 'watch', 'update', 'patch'] },
          { apiGroups: ['work.open-cluster-management.io'], resources: ['manifestworks/status'], verbs: ['patch', 'update'] },
        ],
      },
    },
  ];
}

/** §4.4: bootstrap ClusterRole bound to group system:bootstrappers:managedcluster. */
export function bootstrapRbac(): RbacObject[] {
  const name = 'open-cluster-management:bootstrap';
  return [
    {
      resource: 'clusterroles',
      object: {
        apiVersion: V, kind: 'ClusterRole', metadata: { name },
        rules: [
          { apiGroups: [''], resources: ['configmaps'], verbs: ['get'] },
          { apiGroups: ['certificates.k8s.io'], resources: ['certificatesigningrequests'], verbs: ['create', 'get', 'list', 'watch'] },
          { apiGroups: [MC], resources: ['managedclusters'], verbs: ['get', 'create', 'list', 'watch'] },
          { apiGroups: [MC], resources: ['managedclustersets/join'], verbs: ['create'] },
        ],
      },
    },
    {
      resource: 'clusterrolebindings',
      object: {
        apiVersion: V, kind: 'ClusterRoleBinding', metadata: { name },
        roleRef: { apiGroup: G, kind: 'ClusterRole', name },
        subjects: [{ apiGroup: G, kind: 'Group', name: 'system:bootstrappers:managedcluster' }],
      },
    },
  ];
}

/** API path of the collection an RBAC object is created in. */
export function rbacCollectionPath(o: RbacObject): string {
  return o.namespace ? `/apis/${G}/v1/namespaces/${o.namespace}/${o.resource}` : `/apis/${G}/v1/${o.resource}`;
}
