import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ReviewInputError, decodeAdmissionReview, reviewResponse } from './admission-review.js';

const envelope = (request: unknown): unknown => ({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request });
const request = { uid: 'u1', operation: 'CREATE', resource: { group: 'g', version: 'v1', resource: 'r' }, userInfo: { username: 'bob', uid: 'id', groups: ['g1'], extra: { scopes: ['a'] } }, object: {} };

test('decodeAdmissionReview: a v1 review keeps what the rules read', () => {
  const r = decodeAdmissionReview(envelope(request));
  assert.deepEqual(r, {
    apiVersion: 'admission.k8s.io/v1', uid: 'u1', resource: { group: 'g', version: 'v1', resource: 'r' }, subResource: '', name: '', namespace: '', operation: 'CREATE',
    userInfo: { username: 'bob', uid: 'id', groups: ['g1'], extra: { scopes: ['a'] } }, object: {}, oldObject: undefined,
  });
});

test('decodeAdmissionReview: a v1beta1 review (what OCM\'s configurations make kube-apiserver send) is answered in v1beta1', () => {
  const r = decodeAdmissionReview({ apiVersion: 'admission.k8s.io/v1beta1', kind: 'AdmissionReview', request });
  assert.equal(r.apiVersion, 'admission.k8s.io/v1beta1');
  assert.equal(reviewResponse({ uid: r.uid, allowed: true }, r.apiVersion).apiVersion, 'admission.k8s.io/v1beta1');
});

test('decodeAdmissionReview: an unusable envelope is a ReviewInputError naming the problem', () => {
  const cases: Array<[unknown, RegExp]> = [
    [null, /must be a JSON object/],
    [[], /must be a JSON object/],
    [{ apiVersion: 'admission.k8s.io/v2', kind: 'AdmissionReview', request }, /expected apiVersion admission\.k8s\.io\/v1 or admission\.k8s\.io\/v1beta1/],
    [envelope(undefined), /request is missing/],
    [envelope({ ...request, uid: '' }), /request\.uid is required/],
    [envelope({ ...request, operation: 'PATCH' }), /request\.operation must be one of/],
    [envelope({ ...request, userInfo: 'root' }), /userInfo must be an object/],
    [envelope({ ...request, userInfo: { username: 'x', groups: [1] } }), /groups must be a list of strings/],
    [envelope({ ...request, userInfo: { username: 'x', extra: { a: 'b' } } }), /extra\["a"\] must be a list of strings/],
  ];
  for (const [body, message] of cases) assert.throws(() => decodeAdmissionReview(body), (e: unknown) => e instanceof ReviewInputError && message.test(e.message));
});
