// What `ocm-ts join --print-manifests` emits for a real managed cluster: the agent namespace, the
// bootstrap secret, the agent's service account and RBAC and its Deployment. Everything but the
// secret matches deploy/agent/agent.yaml with its CLUSTER_NAME and IMAGE filled in (a test holds
// the two together). Pure.
import type { KubeObject } from '../api/meta.js';
import { names } from '../api/constants.js';

const NS = names.agentNamespace;
const SA = 'klusterlet-registration-sa';
const RBAC_NAME = 'open-cluster-management:klusterlet-registration:agent';
const APP = 'klusterlet-registration-agent';
const RBAC_GROUP = 'rbac.authorization.k8s.io';
const RBAC_V1 = `${RBAC_GROUP}/v1`;

export interface JoinManifestInput {
  clusterName: string;
  image: string;
  /** The bootstrap kubeconfig's text, stored in the bootstrap secret. */
  bootstrapKubeconfig: string;
}

/** The bootstrap secret the agent reads its hub from (key `kubeconfig`). */
export function bootstrapSecret(bootstrapKubeconfig: string): KubeObject & { type: string; data: Record<string, string> } {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: names.bootstrapSecret, namespace: NS },
    type: 'Opaque',
    data: { kubeconfig: Buffer.from(bootstrapKubeconfig).toString('base64') },
  };
}

const subjects = [{ kind: 'ServiceAccount', name: SA, namespace: NS }];
const healthProbe = { httpGet: { path: '/healthz', port: 8443, scheme: 'HTTPS' }, initialDelaySeconds: 2 };

/** The agent's objects in apply order (the namespace first, the Deployment last). */
export function joinManifests(i: JoinManifestInput): KubeObject[] {
  return [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
    bootstrapSecret(i.bootstrapKubeconfig),
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: SA, namespace: NS } },
    {
      apiVersion: RBAC_V1,
      kind: 'Role',
      metadata: { name: RBAC_NAME, namespace: NS },
      rules: [
        { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch'] },
        { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'list', 'watch', 'create', 'update'] },
        { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'update'] },
      ],
    },
    { apiVersion: RBAC_V1, kind: 'RoleBinding', metadata: { name: RBAC_NAME, namespace: NS }, roleRef: { apiGroup: RBAC_GROUP, kind: 'Role', name: RBAC_NAME }, subjects },
    {
      apiVersion: RBAC_V1,
      kind: 'ClusterRole',
      metadata: { name: RBAC_NAME },
      rules: [
        { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'watch'] },
        { apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch'] },
        { apiGroups: ['cluster.open-cluster-management.io'], resources: ['clusterclaims'], verbs: ['get', 'list', 'watch'] },
        { apiGroups: ['about.k8s.io'], resources: ['clusterproperties'], verbs: ['get', 'list', 'watch'] },
        { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'list', 'watch'] },
        { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list', 'watch', 'create', 'update', 'delete'] },
        { nonResourceURLs: ['/livez', '/healthz', '/version'], verbs: ['get'] },
        { apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'], verbs: ['create'] },
        { apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'], verbs: ['create'] },
      ],
    },
    { apiVersion: RBAC_V1, kind: 'ClusterRoleBinding', metadata: { name: RBAC_NAME }, roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: RBAC_NAME }, subjects },
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: APP, namespace: NS },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: APP } },
        template: {
          metadata: { labels: { app: APP } },
          spec: {
            serviceAccountName: SA,
            containers: [
              {
                name: 'registration',
                image: i.image,
                args: ['agent', `--spoke-cluster-name=${i.clusterName}`, '--bootstrap-kubeconfig=/spoke/bootstrap/kubeconfig'],
                livenessProbe: { ...healthProbe, periodSeconds: 10 },
                readinessProbe: healthProbe,
                volumeMounts: [
                  { name: 'bootstrap-secret', mountPath: '/spoke/bootstrap', readOnly: true },
                  { name: 'hub-kubeconfig', mountPath: '/spoke/hub-kubeconfig' },
                ],
                securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, runAsNonRoot: true },
              },
            ],
            volumes: [
              { name: 'bootstrap-secret', secret: { secretName: names.bootstrapSecret } },
              { name: 'hub-kubeconfig', emptyDir: { medium: 'Memory' } },
            ],
          },
        },
      },
    },
  ] as KubeObject[];
}
