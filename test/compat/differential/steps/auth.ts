// Certificates and authorization: a client certificate earned through a CSR (create, approve through
// /approval, signed by the kube-apiserver-client signer), access reviews, and what a user without
// rights gets.
import { createCsr, generateKeyPair } from '../../../../src/util/x509.js';
import type { HttpAnswer, NormalisedAnswer, Step } from '../types.js';
import { field, get, itemNames, only, post, put, rootCaPublished, saveMeta } from './build.js';

const CSRS = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
const AUTHZ = '/apis/authorization.k8s.io/v1';
const RBAC = '/apis/rbac.authorization.k8s.io/v1/namespaces/diff-auth';
const alice = { user: 'alice' };
const signed = (a: HttpAnswer): boolean => typeof field(a.body, 'status.certificate') === 'string';

function csr(name: string, request: string, extra: Record<string, unknown> = {}): unknown {
  return {
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name },
    spec: { request: Buffer.from(request).toString('base64'), signerName: 'kubernetes.io/kube-apiserver-client', usages: ['client auth'], expirationSeconds: 3600, ...extra },
  };
}

const approval = (name: string, type = 'Approved') => (v: Record<string, string>): unknown => ({
  apiVersion: 'certificates.k8s.io/v1',
  kind: 'CertificateSigningRequest',
  metadata: { name, resourceVersion: v[`${name}_rv`] },
  status: { conditions: [{ type, status: 'True', reason: 'DiffTest', message: 'by the differential test' }] },
});

function sar(user: string, groups: string[], verb: string, resource: string, namespace = 'diff-crud'): unknown {
  return {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SubjectAccessReview',
    spec: { user, groups, resourceAttributes: { namespace, verb, resource } },
  };
}

/** A PEM certificate request for CN diff-user, O diff-group. */
export async function diffUserCsr(): Promise<string> {
  const key = await generateKeyPair('ecdsa-p256');
  return createCsr({ privateKeyPem: key.privateKeyPem, commonName: 'diff-user', organizations: ['diff-group'] });
}

export function authSteps(request: string): Step[] {
  const verdict = only('status.allowed', 'status.denied');
  return [
    post('auth: namespace', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'diff-auth' } }),
    rootCaPublished('auth: namespace root CA published', 'diff-auth'),
    post('auth: role', `${RBAC}/roles`, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'reader' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }] }),
    post('auth: binding to alice', `${RBAC}/rolebindings`, {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'alice-reads' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' }, subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' }],
    }),
    get('forbidden: alice lists configmaps', '/api/v1/namespaces/diff-auth/configmaps', { as: alice, normalise: itemNames }),
    get('forbidden: alice reads secrets (Forbidden)', '/api/v1/namespaces/diff-auth/secrets', { as: alice }),
    get('forbidden: alice reads a named secret (Forbidden)', '/api/v1/namespaces/diff-auth/secrets/x', { as: alice }),
    post('forbidden: alice creates a configmap (Forbidden)', '/api/v1/namespaces/diff-auth/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }, { as: alice }),
    get('forbidden: alice lists namespaces (Forbidden)', '/api/v1/namespaces', { as: alice }),
    get('forbidden: alice lists CRD objects (Forbidden)', '/apis/diff.example.com/v1/widgets', { as: alice }),
    get('forbidden: alice reads an unknown resource', '/api/v1/namespaces/diff-auth/nothings', { as: alice }),
    post('forbidden: alice binds cluster-admin (Forbidden)', `${RBAC}/rolebindings`, {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'escalate' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' }, subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' }],
    }, { as: alice }),
    post('csr: create', CSRS, csr('diff-csr', request), { save: saveMeta('diff-csr_rv'), normalise: sameAdmin }),
    get('csr: pending', `${CSRS}/diff-csr`, { normalise: sameAdmin }),
    put('csr: approve through /approval', `${CSRS}/diff-csr/approval`, undefined, { bodyFrom: approval('diff-csr'), normalise: sameAdmin }),
    get('csr: signed', `${CSRS}/diff-csr`, { until: signed, timeoutMs: 30_000, normalise: sameAdmin }),
    put('csr: approve through the main resource is ignored', `${CSRS}/diff-csr`, undefined, { bodyFrom: approval('diff-csr'), normalise: sameAdmin }),
    post('csr: second', CSRS, csr('diff-csr-denied', request), { save: saveMeta('diff-csr-denied_rv'), normalise: sameAdmin }),
    put('csr: deny through /approval', `${CSRS}/diff-csr-denied/approval`, undefined, { bodyFrom: approval('diff-csr-denied', 'Denied'), normalise: sameAdmin }),
    get('csr: denied stays unsigned', `${CSRS}/diff-csr-denied`, { normalise: sameAdmin }),
    post('csr: garbage request (Invalid)', CSRS, { ...(csr('diff-csr-bad', 'not a pem') as object) }),
    post('csr: unknown usage (Invalid)', CSRS, csr('diff-csr-usage', request, { usages: ['client auth', 'flying'] })),
    post('csr: short expiration (Invalid)', CSRS, csr('diff-csr-short', request, { expirationSeconds: 10 })),
    post('sar: admin group may', `${AUTHZ}/subjectaccessreviews`, sar('root', ['system:masters'], 'delete', 'secrets'), { normalise: verdict }),
    post('sar: alice may not', `${AUTHZ}/subjectaccessreviews`, sar('alice', [], 'get', 'secrets'), { normalise: verdict }),
    post('sar: alice may read configmaps through a role', `${AUTHZ}/subjectaccessreviews`, sar('alice', [], 'get', 'configmaps', 'diff-auth'), { normalise: verdict }),
    post('sar: no user nor group (Invalid)', `${AUTHZ}/subjectaccessreviews`, { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { resourceAttributes: { verb: 'get', resource: 'pods' } } }),
    post('ssar: admin', `${AUTHZ}/selfsubjectaccessreviews`, { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { verb: 'create', resource: 'namespaces' } } }, { normalise: verdict }),
    post('ssar: alice', `${AUTHZ}/selfsubjectaccessreviews`, { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { verb: 'create', resource: 'namespaces' } } }, { as: alice, normalise: verdict }),
    post('ssr: alice with a group', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }, { as: { user: 'alice', groups: ['diff-group', 'other'] } }),
    post('ssrr: rules of alice', `${AUTHZ}/selfsubjectrulesreviews`, { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace: 'diff-auth' } }, {
      as: alice,
      normalise: (n) => ({ status: n.status, body: aliceRules(n.body) }),
    }),
  ];
}

/** The requester of a CSR is each server's own admin certificate: its name differs by design. */
function sameAdmin(n: NormalisedAnswer): NormalisedAnswer {
  const spec = field(n.body, 'spec');
  if (typeof spec === 'object' && spec !== null && 'username' in spec) (spec as Record<string, unknown>).username = '<admin>';
  return n;
}

/** The rules that come from the test's own role (the server's default discovery rules differ by design). */
function aliceRules(body: unknown): unknown {
  const rules = field(body, 'status.resourceRules');
  return Array.isArray(rules) ? rules.filter((r) => JSON.stringify(r).includes('configmaps')) : body;
}
