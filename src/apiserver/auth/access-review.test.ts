import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Authorizer, RequestAttributes } from '../pipeline.js';
import { ApiError } from '../http/errors.js';
import { handleAccessReview, handleSelfSubjectReview } from './access-review.js';

const seen: RequestAttributes[] = [];
const authz: Authorizer = {
  authorize(a) {
    seen.push(a);
    return a.verb === 'get' ? { decision: 'allow', reason: 'because' } : { decision: 'noOpinion', reason: '' };
  },
};
const requester = { username: 'me', groups: ['system:authenticated'], uid: 'u1' };

test('SubjectAccessReview evaluates the spec user and echoes the spec', () => {
  const r = handleAccessReview('SubjectAccessReview', {
    apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', metadata: {},
    spec: { user: 'alice', groups: ['g'], uid: 'x', extra: { k: ['v'] }, resourceAttributes: { verb: 'get', group: 'apps', resource: 'deployments', subresource: 'scale', namespace: 'ns', name: 'd' } },
  }, requester, authz);
  assert.deepEqual(r.status, { allowed: true, reason: 'because' });
  const a = seen.at(-1)!;
  assert.deepEqual(a.user, { username: 'alice', groups: ['g'], uid: 'x', extra: { k: ['v'] } });
  assert.equal(a.resource, 'deployments');
  assert.equal(a.subresource, 'scale');
  assert.equal(a.namespace, 'ns');
  assert.equal(a.name, 'd');
  assert.equal((r.spec as { user: string }).user, 'alice');
});

test('SelfSubjectAccessReview uses the requester; non-resource attributes work', () => {
  const r = handleAccessReview('SelfSubjectAccessReview', { metadata: {}, spec: { nonResourceAttributes: { path: '/healthz', verb: 'post' } } }, requester, authz);
  assert.deepEqual(r.status, { allowed: false });
  assert.equal(seen.at(-1)!.user, requester);
  assert.equal(seen.at(-1)!.resourceRequest, false);
  assert.equal(seen.at(-1)!.path, '/healthz');
});

test('review validation: exactly one attribute kind, a subject, matching namespace', () => {
  const is = (code: number, re: RegExp) => (e: unknown) => e instanceof ApiError && e.code === code && re.test(e.message);
  assert.throws(() => handleAccessReview('SubjectAccessReview', { metadata: {}, spec: { user: 'a' } }, requester, authz), is(422, /exactly one of nonResourceAttributes or resourceAttributes must be specified/));
  assert.throws(() => handleAccessReview('SubjectAccessReview', { metadata: {}, spec: { resourceAttributes: { verb: 'get' } } }, requester, authz), is(422, /at least one of user or group must be specified/));
  assert.throws(() => handleAccessReview('LocalSubjectAccessReview', { metadata: {}, spec: { user: 'a', resourceAttributes: { verb: 'get', namespace: 'other' } } }, requester, authz, 'ns'), is(400, /spec.resourceAttributes.namespace must match namespace: ns/));
  const ok = handleAccessReview('LocalSubjectAccessReview', { metadata: {}, spec: { user: 'a', resourceAttributes: { verb: 'get', namespace: 'ns' } } }, requester, authz, 'ns');
  assert.equal(ok.metadata.namespace, 'ns');
});

test('SelfSubjectReview reports the requester as the server sees it', () => {
  const r = handleSelfSubjectReview({ metadata: {} }, { username: 'a', groups: ['g', 'system:authenticated'], uid: 'u', extra: { k: ['v'] } });
  assert.equal(r.apiVersion, 'authentication.k8s.io/v1');
  assert.equal(r.kind, 'SelfSubjectReview');
  assert.deepEqual(r.status, { userInfo: { username: 'a', uid: 'u', groups: ['g', 'system:authenticated'], extra: { k: ['v'] } } });
  assert.deepEqual(handleSelfSubjectReview({ metadata: {} }, { username: 'b', groups: [] }).status, { userInfo: { username: 'b', groups: [] } });
});
