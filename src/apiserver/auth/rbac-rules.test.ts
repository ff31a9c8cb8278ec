import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ruleAllows, subjectKey, type PolicyRule } from './rbac-rules.js';
import type { RequestAttributes } from '../pipeline.js';

const user = { username: 'u', groups: [] };

function res(verb: string, apiGroup: string, resource: string, extra: Partial<RequestAttributes> = {}): RequestAttributes {
  return { user, verb, resourceRequest: true, path: '', apiGroup, apiVersion: 'v1', resource, subresource: '', namespace: '', name: '', ...extra };
}
function nonRes(verb: string, path: string): RequestAttributes {
  return { user, verb, resourceRequest: false, path, apiGroup: '', apiVersion: '', resource: '', subresource: '', namespace: '', name: '' };
}

const MC = 'cluster.open-cluster-management.io';

const cases: Array<{ name: string; rule: PolicyRule; attrs: RequestAttributes; expected: boolean }> = [
  { name: 'exact verb, group, resource', rule: { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, attrs: res('get', '', 'pods'), expected: true },
  { name: 'verb not listed', rule: { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, attrs: res('list', '', 'pods'), expected: false },
  { name: 'verb wildcard', rule: { verbs: ['*'], apiGroups: [''], resources: ['pods'] }, attrs: res('deletecollection', '', 'pods'), expected: true },
  { name: 'core group does not match another group', rule: { verbs: ['get'], apiGroups: [''], resources: ['events'] }, attrs: res('get', 'events.k8s.io', 'events'), expected: false },
  { name: 'group wildcard', rule: { verbs: ['get'], apiGroups: ['*'], resources: ['events'] }, attrs: res('get', 'events.k8s.io', 'events'), expected: true },
  { name: 'resource wildcard', rule: { verbs: ['get'], apiGroups: [MC], resources: ['*'] }, attrs: res('get', MC, 'managedclusters'), expected: true },
  { name: 'resource wildcard covers subresources', rule: { verbs: ['update'], apiGroups: [MC], resources: ['*'] }, attrs: res('update', MC, 'managedclusters', { subresource: 'status' }), expected: true },
  { name: 'main resource rule does not cover status', rule: { verbs: ['update', 'patch'], apiGroups: [MC], resources: ['managedclusters'] }, attrs: res('patch', MC, 'managedclusters', { subresource: 'status', name: 'c1' }), expected: false },
  { name: 'resource/subresource rule', rule: { verbs: ['patch'], apiGroups: [MC], resources: ['managedclusters/status'] }, attrs: res('patch', MC, 'managedclusters', { subresource: 'status', name: 'c1' }), expected: true },
  { name: 'status rule does not cover main resource', rule: { verbs: ['update'], apiGroups: [MC], resources: ['managedclusters/status'] }, attrs: res('update', MC, 'managedclusters', { name: 'c1' }), expected: false },
  { name: '*/subresource', rule: { verbs: ['get'], apiGroups: ['*'], resources: ['*/scale'] }, attrs: res('get', 'apps', 'deployments', { subresource: 'scale' }), expected: true },
  { name: '*/subresource does not cover main', rule: { verbs: ['get'], apiGroups: ['*'], resources: ['*/scale'] }, attrs: res('get', 'apps', 'deployments'), expected: false },
  { name: 'resourceNames match', rule: { verbs: ['get'], apiGroups: [MC], resources: ['managedclusters'], resourceNames: ['c1'] }, attrs: res('get', MC, 'managedclusters', { name: 'c1' }), expected: true },
  { name: 'resourceNames other name', rule: { verbs: ['get'], apiGroups: [MC], resources: ['managedclusters'], resourceNames: ['c1'] }, attrs: res('get', MC, 'managedclusters', { name: 'c2' }), expected: false },
  { name: 'resourceNames never match a request without a name (list)', rule: { verbs: ['list'], apiGroups: [MC], resources: ['managedclusters'], resourceNames: ['c1'] }, attrs: res('list', MC, 'managedclusters'), expected: false },
  { name: 'resourceNames: no prefix matching', rule: { verbs: ['get'], apiGroups: [MC], resources: ['managedclusters'], resourceNames: ['c1'] }, attrs: res('get', MC, 'managedclusters', { name: 'c1xyz' }), expected: false },
  { name: 'empty resourceNames allow any name', rule: { verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: [] }, attrs: res('get', '', 'secrets', { name: 'x' }), expected: true },
  { name: 'custom verb renew', rule: { verbs: ['renew'], apiGroups: ['register.open-cluster-management.io'], resources: ['managedclusters/clientcertificates'] }, attrs: res('renew', 'register.open-cluster-management.io', 'managedclusters', { subresource: 'clientcertificates' }), expected: true },
  { name: 'custom verb approve on signers with name', rule: { verbs: ['approve'], apiGroups: ['certificates.k8s.io'], resources: ['signers'], resourceNames: ['kubernetes.io/kube-apiserver-client'] }, attrs: res('approve', 'certificates.k8s.io', 'signers', { name: 'kubernetes.io/kube-apiserver-client' }), expected: true },
  { name: 'custom verb is not get', rule: { verbs: ['get'], apiGroups: ['certificates.k8s.io'], resources: ['signers'] }, attrs: res('approve', 'certificates.k8s.io', 'signers', { name: 'x' }), expected: false },
  { name: 'resource rule never matches non-resource', rule: { verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, attrs: nonRes('get', '/healthz'), expected: false },
  { name: 'non-resource exact', rule: { verbs: ['get'], nonResourceURLs: ['/healthz'] }, attrs: nonRes('get', '/healthz'), expected: true },
  { name: 'non-resource other path', rule: { verbs: ['get'], nonResourceURLs: ['/healthz'] }, attrs: nonRes('get', '/healthz/ping'), expected: false },
  { name: 'non-resource star suffix', rule: { verbs: ['get'], nonResourceURLs: ['/apis/*'] }, attrs: nonRes('get', '/apis/cluster.open-cluster-management.io/v1'), expected: true },
  { name: 'non-resource star suffix needs prefix', rule: { verbs: ['get'], nonResourceURLs: ['/apis/*'] }, attrs: nonRes('get', '/apis'), expected: false },
  { name: 'non-resource star', rule: { verbs: ['*'], nonResourceURLs: ['*'] }, attrs: nonRes('post', '/anything'), expected: true },
  { name: 'non-resource wrong verb', rule: { verbs: ['get'], nonResourceURLs: ['*'] }, attrs: nonRes('post', '/x'), expected: false },
  { name: 'non-resource rule never matches resources', rule: { verbs: ['*'], nonResourceURLs: ['*'] }, attrs: res('get', '', 'pods'), expected: false },
  { name: 'rule without verbs', rule: { apiGroups: ['*'], resources: ['*'] }, attrs: res('get', '', 'pods'), expected: false },
];

for (const c of cases) {
  test(`ruleAllows: ${c.name}`, () => {
    assert.equal(ruleAllows(c.rule, c.attrs), c.expected);
  });
}

test('subjectKey maps User, Group and ServiceAccount (namespace defaulted)', () => {
  assert.equal(subjectKey({ kind: 'User', name: 'alice' }, 'ns'), 'user:alice');
  assert.equal(subjectKey({ kind: 'Group', name: 'g' }, ''), 'group:g');
  assert.equal(subjectKey({ kind: 'ServiceAccount', name: 'sa', namespace: 'x' }, 'ns'), 'user:system:serviceaccount:x:sa');
  assert.equal(subjectKey({ kind: 'ServiceAccount', name: 'sa' }, 'ns'), 'user:system:serviceaccount:ns:sa');
  assert.equal(subjectKey({ kind: 'ServiceAccount', name: 'sa' }, ''), undefined);
  assert.equal(subjectKey({ kind: 'Other', name: 'x' }, ''), undefined);
});
