// Bad requests: each must get the same Status (code, reason, message, causes) as from kube-apiserver.
import type { Step } from '../types.js';
import { del, get, itemNames, patch, post, put } from './build.js';

const NS = 'diff-crud';
const CMS = `/api/v1/namespaces/${NS}/configmaps`;
const cm = (name: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, ...extra });

export function errorSteps(): Step[] {
  return [
    post('error: setup configmap', CMS, cm('err-cm', { data: { a: '1' } })),
    post('error: invalid name (Invalid, causes)', CMS, cm('Bad_Name')),
    post('error: name too long (Invalid)', CMS, cm('x'.repeat(254))),
    post('error: no name (Invalid)', CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} }),
    post('error: generateName', CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'gen-' } }),
    post('error: invalid data key (Invalid)', CMS, cm('bad-key', { data: { 'a b': '1' } })),
    post('error: invalid label value (Invalid)', CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bad-label', labels: { a: 'b c' } } }),
    post('error: invalid annotation key (Invalid)', CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bad-annotation', annotations: { 'a/b/c': 'x' } } }),
    post('error: malformed JSON (BadRequest)', CMS, '{"apiVersion":"v1","kind":'),
    post('error: body is not an object (BadRequest)', CMS, '[1,2]'),
    post('error: wrong kind in body (BadRequest)', CMS, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'wrong-kind' } }),
    post('error: wrong apiVersion in body (BadRequest)', CMS, { apiVersion: 'apps/v1', kind: 'ConfigMap', metadata: { name: 'wrong-version' } }),
    post('error: no kind in body', CMS, { apiVersion: 'v1', metadata: { name: 'no-kind' } }),
    post('error: namespace in body differs (BadRequest)', CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'other-ns', namespace: 'elsewhere' } }),
    post('error: wrong field type (BadRequest)', CMS, cm('bad-type', { data: { a: 1 } })),
    post('error: unknown field, strict (BadRequest)', `${CMS}?fieldValidation=Strict`, cm('unknown-field', { nonsense: true })),
    post('error: unknown field, warn', `${CMS}?fieldValidation=Warn`, cm('unknown-field', { nonsense: true })),
    post('error: create in a missing namespace (NotFound)', '/api/v1/namespaces/nowhere/configmaps', cm('x')),
    post('error: unsupported media type (UnsupportedMediaType)', CMS, 'a: b', { contentType: 'text/plain' }),
    put('error: update with a different name in the body (BadRequest)', `${CMS}/err-cm`, cm('not-err-cm')),
    put('error: update a missing object (NotFound)', `${CMS}/missing`, cm('missing', { metadata: { name: 'missing', resourceVersion: '1' } })),
    put('error: update without resourceVersion is allowed for configmaps', `${CMS}/err-cm`, cm('err-cm', { data: { a: '2' } })),
    put('error: update with an unparseable resourceVersion', `${CMS}/err-cm`, cm('err-cm', { metadata: { name: 'err-cm', resourceVersion: 'abc' } })),
    patch('error: json patch test fails (UnprocessableEntity)', `${CMS}/err-cm`, 'json', [{ op: 'test', path: '/data/a', value: 'nope' }]),
    patch('error: json patch on a missing path', `${CMS}/err-cm`, 'json', [{ op: 'replace', path: '/data/missing', value: 'x' }]),
    patch('error: undo the json patch on a missing path', `${CMS}/err-cm`, 'merge', { data: { missing: null } }),
    patch('error: json patch that is not a list (BadRequest)', `${CMS}/err-cm`, 'json', { op: 'add' }),
    patch('error: merge patch that changes the name (BadRequest)', `${CMS}/err-cm`, 'merge', { metadata: { name: 'renamed' } }),
    patch('error: merge patch of a missing object (NotFound)', `${CMS}/missing`, 'merge', { data: { a: 'b' } }),
    patch('error: apply without fieldManager (BadRequest)', `${CMS}/err-cm`, 'apply', cm('err-cm', { data: { a: '3' } })),
    patch('error: apply creates', `${CMS}/applied-new?fieldManager=diff`, 'apply', cm('applied-new', { data: { a: '3' } })),
    patch('error: apply with a wrong name (BadRequest)', `${CMS}/err-cm?fieldManager=diff`, 'apply', cm('other-name')),
    patch('error: patch with an unknown content type (UnsupportedMediaType)', `${CMS}/err-cm`, 'merge', { data: {} }, { contentType: 'application/xml' }),
    patch('error: dry-run patch', `${CMS}/err-cm?dryRun=All`, 'merge', { data: { dry: 'run' } }),
    get('error: dry-run changed nothing', `${CMS}/err-cm`),
    post('error: dry-run create', `${CMS}?dryRun=All`, cm('dry')),
    get('error: dry-run created nothing (NotFound)', `${CMS}/dry`),
    post('error: invalid dryRun value (BadRequest)', `${CMS}?dryRun=Some`, cm('dry')),
    get('error: get missing (NotFound)', `${CMS}/missing`),
    get('error: get in a missing namespace (NotFound)', '/api/v1/namespaces/nowhere/configmaps/x'),
    get('error: unknown resource (NotFound)', `/api/v1/namespaces/${NS}/nothings`),
    get('error: unknown group (NotFound)', '/apis/nope.example.com/v1/things'),
    get('error: unknown version (NotFound)', '/api/v2/namespaces'),
    get('error: invalid limit', `${CMS}?limit=-1`, { normalise: itemNames }),
    get('error: invalid timeoutSeconds', `${CMS}?watch=1&timeoutSeconds=abc`),
    del('error: delete with a wrong uid precondition (Conflict)', `${CMS}/err-cm`, { body: { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { uid: '00000000-0000-0000-0000-000000000000' } } }),
    del('error: delete with a stale resourceVersion precondition (Conflict)', `${CMS}/err-cm`, { body: { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { resourceVersion: '1' } } }),
    del('error: delete with an invalid propagation policy (BadRequest)', `${CMS}/err-cm?propagationPolicy=Sideways`),
    del('error: delete collection by label', `${CMS}?labelSelector=nothing-matches`),
    post('error: immutable configmap', CMS, cm('frozen', { data: { a: '1' }, immutable: true })),
    patch('error: change an immutable configmap (Invalid)', `${CMS}/frozen`, 'merge', { data: { a: '2' } }),
    post('error: rolebinding to change', `/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/rolebindings`, {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'err-rb' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'a' },
    }),
    patch('error: change roleRef (Invalid)', `/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/rolebindings/err-rb`, 'merge', { roleRef: { name: 'x' } }),
    post('error: rolebinding without roleRef (Invalid)', `/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/rolebindings`, {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'no-ref' }, subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'a' }],
    }),
    post('error: role with an empty rule (Invalid)', `/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/roles`, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'empty-rule' }, rules: [{}] }),
    post('error: lease with a negative duration (Invalid)', `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases`, {
      apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'neg' }, spec: { leaseDurationSeconds: -1 },
    }),
    post('error: secret with an invalid type change', `/api/v1/namespaces/${NS}/secrets`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'typed' }, type: 'kubernetes.io/tls', data: {} }),
    post('error: namespace with an invalid name (Invalid)', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'Bad.Namespace' } }),
    post('error: POST to a named object (MethodNotAllowed)', `${CMS}/err-cm`, cm('err-cm')),
  ];
}
