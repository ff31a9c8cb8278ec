import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AuthorizationCheck } from '../../api/admission/managed-cluster-validating.js';
import type { ReviewRequest, ReviewResponse } from './admission-review.js';
import { REVIEW_HANDLERS, WEBHOOK_PATHS, type ReviewContext } from './review-handlers.js';

const NOW = '2026-12-02T12:00:00Z';
const GROUP = 'cluster.open-cluster-management.io';

function reviewOf(over: Partial<ReviewRequest> = {}): ReviewRequest {
  return {
    apiVersion: 'admission.k8s.io/v1', uid: 'u1', resource: { group: GROUP, version: 'v1', resource: 'managedclusters' }, subResource: '', name: 'c1', namespace: '',
    operation: 'CREATE', userInfo: { username: 'alice', groups: ['system:authenticated'] },
    object: { apiVersion: `${GROUP}/v1`, kind: 'ManagedCluster', metadata: { name: 'c1' }, spec: { hubAcceptsClient: false } },
    oldObject: undefined, ...over,
  };
}

function contextWith(grants: string[] = [], opts: { defaultClusterSet?: boolean; checks?: AuthorizationCheck[] } = {}): ReviewContext {
  return {
    answers: {
      authorize: (c) => {
        opts.checks?.push(c);
        return Promise.resolve(grants.includes(`${c.subresource}:${c.name}`));
      },
      namespacePhase: () => Promise.resolve(undefined),
    },
    nowRfc3339: NOW,
    defaultClusterSet: opts.defaultClusterSet ?? true,
  };
}

const patchOf = (r: ReviewResponse): unknown => (r.patch === undefined ? undefined : JSON.parse(Buffer.from(r.patch, 'base64').toString('utf8')));
const mutate = REVIEW_HANDLERS[WEBHOOK_PATHS.mutateManagedCluster]!;
const validateCluster = REVIEW_HANDLERS[WEBHOOK_PATHS.validateManagedCluster]!;
const validateBinding = REVIEW_HANDLERS[WEBHOOK_PATHS.validateClusterSetBinding]!;

test('mutate: without the DefaultClusterSet gate only the lease duration is defaulted', async () => {
  const r = await mutate(reviewOf(), contextWith([], { defaultClusterSet: false }));
  assert.equal(r.allowed, true);
  assert.equal(r.patchType, 'JSONPatch');
  assert.deepEqual(patchOf(r), [{ op: 'add', path: '/spec/leaseDurationSeconds', value: 60 }]);
});

test('mutate: nothing to change answers allowed without a patch', async () => {
  const object = { metadata: { name: 'c1', labels: { [`${GROUP}/clusterset`]: 'prod' } }, spec: { leaseDurationSeconds: 60 } };
  const r = await mutate(reviewOf({ object }), contextWith());
  assert.deepEqual(r, { uid: 'u1', allowed: true });
});

test('mutate: a client-set time on an unchanged taint is refused with 400 in the response', async () => {
  const taint = { key: 'k', value: '', effect: 'NoSelect', timeAdded: '2026-01-01T00:00:00Z' };
  const r = await mutate(reviewOf({
    operation: 'UPDATE',
    object: { metadata: { name: 'c1' }, spec: { taints: [{ ...taint, timeAdded: NOW }] } },
    oldObject: { metadata: { name: 'c1' }, spec: { taints: [taint] } },
  }), contextWith());
  assert.equal(r.allowed, false);
  assert.equal(r.status?.code, 400);
  assert.equal(r.status?.reason, 'BadRequest');
  assert.equal(r.status?.message, 'It is not allowed to set TimeAdded of Taint "k".');
});

test('deletes and subresources pass untouched, with no authorization asked', async () => {
  const checks: AuthorizationCheck[] = [];
  const accepted = { metadata: { name: 'c1' }, spec: { hubAcceptsClient: true } };
  for (const req of [reviewOf({ operation: 'DELETE', object: undefined, oldObject: accepted }), reviewOf({ subResource: 'status', object: accepted })]) {
    assert.equal((await validateCluster(req, contextWith([], { checks }))).allowed, true);
    assert.deepEqual(await mutate(req, contextWith([], { checks })), { uid: 'u1', allowed: true });
  }
  assert.deepEqual(checks, []);
});

test('a review of another resource or with a malformed object is refused with 400, not a crash', async () => {
  const cases: Array<{ req: ReviewRequest; message: RegExp }> = [
    { req: reviewOf({ resource: { group: '', version: 'v1', resource: 'configmaps' } }), message: /admits managedclusters\.cluster\.open-cluster-management\.io, not "configmaps"/ },
    { req: reviewOf({ object: 'a string' }), message: /request\.object must be a JSON object/ },
    { req: reviewOf({ object: { metadata: [] } }), message: /request\.object\.metadata must be an object/ },
    { req: reviewOf({ object: { metadata: { name: 'c1', labels: { a: 1 } } } }), message: /labels must map strings to strings/ },
    { req: reviewOf({ operation: 'UPDATE', oldObject: undefined }), message: /request\.oldObject must be a JSON object/ },
  ];
  for (const c of cases) {
    for (const handler of [mutate, validateCluster]) {
      const r = await handler(c.req, contextWith());
      assert.equal(r.allowed, false);
      assert.equal(r.status?.code, 400);
      assert.match(r.status?.message ?? '', c.message);
    }
  }
});

test('validate: the SubjectAccessReview asks about the requester and the accept subresource', async () => {
  const checks: AuthorizationCheck[] = [];
  const r = await validateCluster(reviewOf({ object: { metadata: { name: 'c1' }, spec: { hubAcceptsClient: true } } }), contextWith(['accept:c1'], { checks }));
  assert.deepEqual(r, { uid: 'u1', allowed: true, status: { metadata: {}, code: 200 } });
  assert.deepEqual(checks, [{
    user: { username: 'alice', groups: ['system:authenticated'] }, verb: 'update',
    group: 'register.open-cluster-management.io', resource: 'managedclusters', subresource: 'accept', name: 'c1',
  }]);
});

test('validate binding: an update only checks the name; a create also asks for bind', async () => {
  const binding = (name: string, set: string): unknown => ({ metadata: { name, namespace: 'ns1' }, spec: { clusterSet: set } });
  const resource = { group: GROUP, version: 'v1beta2', resource: 'managedclustersetbindings' };
  const update = reviewOf({ resource, operation: 'UPDATE', object: binding('s1', 's1'), oldObject: binding('s1', 's1') });
  assert.equal((await validateBinding(update, contextWith())).allowed, true);
  const create = await validateBinding(reviewOf({ resource, object: binding('s1', 's1') }), contextWith());
  assert.equal(create.status?.code, 403);
  assert.equal(create.status?.message, 'managedclustersets/bind.apps "s1" is forbidden: user "alice" is not allowed to bind cluster set "s1"');
  assert.equal((await validateBinding(reviewOf({ resource, object: binding('s1', 's1') }), contextWith(['bind:s1']))).allowed, true);
});
