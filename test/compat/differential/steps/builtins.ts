// CRUD on built-in kinds, in a namespace of their own.
import type { Step } from '../types.js';
import { get, post, rootCaPublished } from './build.js';
import { crudSteps } from './crud.js';

const NS = 'diff-crud';
const core = (resource: string): string => `/api/v1/namespaces/${NS}/${resource}`;
const rbac = (resource: string): string => `/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/${resource}`;
const rule = (resource: string, ...verbs: string[]): Record<string, unknown> => ({ apiGroups: [''], resources: [resource], verbs });
const user = (name: string): Record<string, unknown> => ({ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name });
const roleRef = { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'diff-role' };
const b64 = (s: string): string => Buffer.from(s).toString('base64');

export function builtinSteps(): Step[] {
  return [
    post('namespace: create', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS, labels: { diff: 'crud' } } }),
    rootCaPublished('namespace: root CA published', NS),
    get('namespace: get', `/api/v1/namespaces/${NS}`),
    ...crudSteps({
      label: 'configmap', apiVersion: 'v1', kind: 'ConfigMap', collection: core('configmaps'), name: 'diff-cm', namespace: NS,
      fields: { data: { a: '1' } }, updated: { data: { a: '1', b: '2' } },
      merge: { data: { c: '3' } }, json: [{ op: 'add', path: '/data/d', value: '4' }], strategic: { data: { e: '5' } },
      applied: { data: { x: '1' } }, conflicting: { data: { x: '2' } },
    }),
    ...crudSteps({
      label: 'secret', apiVersion: 'v1', kind: 'Secret', collection: core('secrets'), name: 'diff-secret', namespace: NS,
      fields: { type: 'Opaque', stringData: { a: '1' } }, updated: { type: 'Opaque', data: { a: b64('1'), b: b64('2') } },
      merge: { stringData: { c: '3' } }, json: [{ op: 'add', path: '/data/d', value: b64('4') }], strategic: { data: { e: b64('5') } },
      applied: { data: { x: b64('1') } }, conflicting: { data: { x: b64('2') } },
    }),
    ...crudSteps({
      label: 'serviceaccount', apiVersion: 'v1', kind: 'ServiceAccount', collection: core('serviceaccounts'), name: 'diff-sa', namespace: NS,
      fields: { automountServiceAccountToken: false }, updated: { automountServiceAccountToken: true },
      merge: { imagePullSecrets: [{ name: 'a' }] }, json: [{ op: 'add', path: '/secrets', value: [{ name: 's1' }] }], strategic: { imagePullSecrets: [{ name: 'b' }] },
      applied: { automountServiceAccountToken: true }, conflicting: { automountServiceAccountToken: false },
    }),
    ...crudSteps({
      label: 'role', apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', collection: rbac('roles'), name: 'diff-role', namespace: NS,
      fields: { rules: [rule('configmaps', 'get')] }, updated: { rules: [rule('configmaps', 'get', 'list')] },
      merge: { rules: [rule('secrets', 'get')] }, json: [{ op: 'add', path: '/rules/-', value: rule('pods', 'get') }], strategic: { rules: [rule('leases', 'get')] },
      applied: { rules: [rule('configmaps', 'watch')] }, conflicting: { rules: [rule('configmaps', 'delete')] },
    }),
    ...crudSteps({
      label: 'rolebinding', apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', collection: rbac('rolebindings'), name: 'diff-rb', namespace: NS,
      fields: { roleRef, subjects: [user('alice')] }, updated: { roleRef, subjects: [user('alice'), user('bob')] },
      merge: { subjects: [user('carol')] }, json: [{ op: 'add', path: '/subjects/-', value: user('dave') }], strategic: { subjects: [user('erin')] },
      applied: { roleRef, subjects: [user('frank')] }, conflicting: { roleRef, subjects: [user('grace')] },
    }),
    ...crudSteps({
      label: 'clusterrole', apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', collection: '/apis/rbac.authorization.k8s.io/v1/clusterroles', name: 'diff-clusterrole',
      fields: { rules: [rule('configmaps', 'get')] }, updated: { rules: [rule('configmaps', 'get', 'list')] },
      merge: { rules: [rule('secrets', 'get')] }, json: [{ op: 'add', path: '/rules/-', value: rule('pods', 'get') }], strategic: { aggregationRule: null },
      applied: { rules: [rule('configmaps', 'watch')] }, conflicting: { rules: [rule('configmaps', 'delete')] },
    }),
    ...crudSteps({
      label: 'lease', apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', collection: `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases`, name: 'diff-lease', namespace: NS,
      fields: { spec: { holderIdentity: 'a', leaseDurationSeconds: 10 } }, updated: { spec: { holderIdentity: 'b', leaseDurationSeconds: 10 } },
      merge: { spec: { leaseDurationSeconds: 20 } }, json: [{ op: 'replace', path: '/spec/holderIdentity', value: 'c' }], strategic: { spec: { leaseTransitions: 1 } },
      applied: { spec: { holderIdentity: 'd' } }, conflicting: { spec: { holderIdentity: 'e' } },
    }),
    ...crudSteps({
      label: 'event', apiVersion: 'v1', kind: 'Event', collection: core('events'), name: 'diff-event', namespace: NS,
      fields: { involvedObject: { apiVersion: 'v1', kind: 'ConfigMap', namespace: NS, name: 'diff-cm' }, reason: 'Tested', message: 'hello', type: 'Normal', source: { component: 'diff' }, count: 1 },
      updated: { involvedObject: { apiVersion: 'v1', kind: 'ConfigMap', namespace: NS, name: 'diff-cm' }, reason: 'Tested', message: 'hello again', type: 'Normal', source: { component: 'diff' }, count: 2 },
      merge: { count: 3 }, json: [{ op: 'replace', path: '/message', value: 'patched' }], strategic: { reason: 'Retested' },
      applied: { message: 'applied' }, conflicting: { message: 'conflicting' },
    }),
  ];
}
