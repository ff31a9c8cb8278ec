// Default RBAC objects seeded at first start, the part of kube-apiserver's bootstrap policy the
// clients of this server need. The server creates each
// one that is missing; existing objects are left alone.

import type { KubeObject } from '../../api/meta.js';
import type { PolicyRule } from './rbac-rules.js';

const API_VERSION = 'rbac.authorization.k8s.io/v1';
const meta = (name: string): KubeObject['metadata'] => ({
  name,
  labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' },
  annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' },
});

function clusterRole(name: string, rules: PolicyRule[]): KubeObject {
  return { apiVersion: API_VERSION, kind: 'ClusterRole', metadata: meta(name), rules };
}

function binding(name: string, role: string, groups: string[]): KubeObject {
  return {
    apiVersion: API_VERSION,
    kind: 'ClusterRoleBinding',
    metadata: meta(name),
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
    subjects: groups.map((g) => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: g })),
  };
}

const PUBLIC_INFO = ['/healthz', '/livez', '/readyz', '/version', '/version/'];

/** ClusterRoles first, then ClusterRoleBindings. Each call returns fresh objects. */
export function bootstrapPolicyObjects(): KubeObject[] {
  return [
    clusterRole('cluster-admin', [
      { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
      { nonResourceURLs: ['*'], verbs: ['*'] },
    ]),
    clusterRole('system:discovery', [
      { nonResourceURLs: ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/'], verbs: ['get'] },
    ]),
    clusterRole('system:public-info-viewer', [{ nonResourceURLs: PUBLIC_INFO, verbs: ['get'] }]),
    clusterRole('system:basic-user', [
      { apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'], verbs: ['create'] },
      { apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'], verbs: ['create'] },
    ]),
    clusterRole('system:node-bootstrapper', [
      { apiGroups: ['certificates.k8s.io'], resources: ['certificatesigningrequests'], verbs: ['create', 'get', 'list', 'watch'] },
    ]),
    binding('cluster-admin', 'cluster-admin', ['system:masters']),
    binding('system:discovery', 'system:discovery', ['system:authenticated']),
    binding('system:public-info-viewer', 'system:public-info-viewer', ['system:authenticated', 'system:unauthenticated']),
    binding('system:basic-user', 'system:basic-user', ['system:authenticated']),
  ];
}
