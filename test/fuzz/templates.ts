// Valid objects of the kinds the server serves, used to seed the store and as the starting point of
// generated bodies (which then mutate them). Pure builders.

import type { KubeObject } from '../../src/api/meta.js';

const FUZZ_GROUP = 'fuzz.example.com';
export const SEED_NAME = 'fuzz-obj';
/** Matched against the CRD's `pattern`; nested quantifiers backtrack exponentially in a JS RegExp. */
const BACKTRACKING_PATTERN = '^(a+)+$';

export interface TemplateContext {
  namespace: string;
  name: string;
  /** A PEM certificate request for CertificateSigningRequest bodies. */
  csrPem: string;
  cluster: string;
}

type Body = Record<string, unknown>;

const rbac = 'rbac.authorization.k8s.io';

/** The spec/data part of a valid object per kind (without apiVersion/kind/metadata). */
function content(kind: string, apiVersion: string, c: TemplateContext): Body {
  switch (kind) {
    case 'ConfigMap': return { data: { key: 'value', 'other.key': 'x'.repeat(16) } };
    case 'Secret': return { type: 'Opaque', stringData: { password: 'hunter2' } };
    case 'ServiceAccount': return {};
    case 'Namespace': return {};
    case 'Node': return { spec: { unschedulable: false }, status: { capacity: { cpu: '2', memory: '4Gi' } } };
    case 'Pod': return { spec: { containers: [{ name: 'c', image: 'busybox' }] } };
    case 'Service': return { spec: { ports: [{ port: 80, protocol: 'TCP' }] } };
    case 'Endpoints': return { subsets: [] };
    case 'Deployment': return { spec: { replicas: 1, selector: { matchLabels: { app: 'a' } }, template: { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } } };
    case 'Event': return apiVersion === 'v1'
      ? { involvedObject: { kind: 'ConfigMap', namespace: c.namespace, name: SEED_NAME }, reason: 'Fuzz', message: 'fuzz event', type: 'Normal', source: { component: 'fuzz' } }
      : {
        regarding: { kind: 'ConfigMap', namespace: c.namespace, name: SEED_NAME }, reason: 'Fuzz', note: 'fuzz event', type: 'Normal',
        reportingController: 'fuzz', reportingInstance: 'fuzz-1', action: 'Fuzzing', eventTime: '2024-01-01T00:00:00.000000Z',
      };
    case 'Lease': return { spec: { holderIdentity: 'fuzz', leaseDurationSeconds: 60, renewTime: '2024-01-01T00:00:00.000000Z' } };
    case 'CertificateSigningRequest': return {
      spec: {
        request: Buffer.from(c.csrPem).toString('base64'),
        signerName: 'kubernetes.io/kube-apiserver-client',
        usages: ['digital signature', 'key encipherment', 'client auth'],
        expirationSeconds: 3600,
      },
    };
    case 'Role': case 'ClusterRole': return { rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }] };
    case 'RoleBinding': return {
      roleRef: { apiGroup: rbac, kind: 'Role', name: SEED_NAME },
      subjects: [{ kind: 'User', apiGroup: rbac, name: 'fuzz-user' }],
    };
    case 'ClusterRoleBinding': return {
      roleRef: { apiGroup: rbac, kind: 'ClusterRole', name: SEED_NAME },
      subjects: [{ kind: 'Group', apiGroup: rbac, name: 'fuzz-team' }],
    };
    case 'ManagedCluster': return { spec: { hubAcceptsClient: true, leaseDurationSeconds: 60, managedClusterClientConfigs: [{ url: 'https://127.0.0.1:6443' }] } };
    case 'ManagedClusterSet': return { spec: { clusterSelector: { selectorType: 'ExclusiveClusterSetLabel' } } };
    case 'ManagedClusterSetBinding': return { spec: { clusterSet: SEED_NAME } };
    case 'ManagedClusterAddOn': return { spec: { installNamespace: 'open-cluster-management-agent-addon' } };
    case 'ClusterManagementAddOn': return { spec: { addOnMeta: { displayName: 'fuzz' } } };
    case 'Widget': return { spec: { code: 'aaa', size: 3, tags: ['a', 'b'], items: [{ name: 'one', value: '1' }], free: { any: { thing: [1, 2] } } } };
    case 'SubjectAccessReview': return { spec: { user: 'fuzz-user', resourceAttributes: { verb: 'get', resource: 'configmaps', namespace: c.namespace } } };
    case 'LocalSubjectAccessReview': return { spec: { user: 'fuzz-user', resourceAttributes: { verb: 'get', resource: 'configmaps', namespace: c.namespace } } };
    case 'SelfSubjectAccessReview': return { spec: { resourceAttributes: { verb: 'create', resource: 'secrets', namespace: c.namespace } } };
    case 'SelfSubjectRulesReview': return { spec: { namespace: c.namespace } };
    case 'TokenRequest': return { spec: { audiences: ['https://kubernetes.default.svc'], expirationSeconds: 600 } };
    default: return {};
  }
}

/** A valid object of `kind` served as `apiVersion`, named and namespaced as asked. */
export function templateFor(kind: string, apiVersion: string, c: TemplateContext, namespaced: boolean): KubeObject {
  const labels: Record<string, string> = kind === 'CertificateSigningRequest' || kind === 'ManagedCluster' ? { 'open-cluster-management.io/cluster-name': c.cluster } : { app: 'fuzz' };
  const metadata: Record<string, unknown> = { name: c.name, labels };
  if (namespaced) metadata.namespace = c.namespace;
  if (kind === 'CustomResourceDefinition') {
    // A CRD's name must be <plural>.<group>: derive a plural from the generated name.
    const crd = widgetCrd(`gadgets${c.name.replace(/[^a-z0-9]/g, '').slice(0, 20)}`);
    return { ...crd, apiVersion, metadata: { ...crd.metadata, labels } } as KubeObject;
  }
  return { apiVersion, kind, metadata, ...content(kind, apiVersion, c) } as KubeObject;
}

/**
 * The fuzz suite's own CRD: a structural schema with the validations the server implements
 * (pattern, maxLength, bounds, enum, list types, preserved unknown fields), a status subresource
 * and printer columns. `plural` lets generated CRD bodies name other resources of the group.
 */
export function widgetCrd(plural = 'widgets'): KubeObject & { spec: Body } {
  const kind = plural === 'widgets' ? 'Widget' : `G${plural.slice(1, 40)}`;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${FUZZ_GROUP}` },
    spec: {
      group: FUZZ_GROUP,
      scope: 'Namespaced',
      names: { plural, singular: plural.replace(/s$/, ''), kind, listKind: `${kind}List` },
      versions: [{
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        additionalPrinterColumns: [
          { name: 'Code', type: 'string', jsonPath: '.spec.code' },
          { name: 'Size', type: 'integer', jsonPath: '.spec.size' },
          { name: 'First', type: 'string', jsonPath: '.spec.items[0].name' },
        ],
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: {
                  code: { type: 'string', maxLength: 64, pattern: BACKTRACKING_PATTERN },
                  size: { type: 'integer', minimum: 0, maximum: 10 },
                  tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
                  items: {
                    type: 'array',
                    'x-kubernetes-list-type': 'map',
                    'x-kubernetes-list-map-keys': ['name'],
                    items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, value: { type: 'string' } } },
                  },
                  free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                },
              },
              status: { type: 'object', properties: { phase: { type: 'string', enum: ['A', 'B'] } } },
            },
          },
        },
      }],
    },
  };
}
