// Answers that differed from kube-apiserver's in the differential test (test/compat/differential),
// pinned here over real HTTPS: each case is what kube-apiserver answers to the same request.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { protobufEnvelope } from '../helpers/protobuf-encode.js';
import { type RawClient } from '../helpers/raw-client.js';
import { useRawServer } from '../helpers/raw-server.js';

const NS = '/api/v1/namespaces/default';

describe('answers as kube-apiserver gives them', () => {
  let raw: RawClient;
  useRawServer((_s, r) => {
    raw = r;
  });

  it('answers POST to a named object with 405 MethodNotAllowed, not a create', async () => {
    await raw.request('POST', `${NS}/configmaps`, { body: { metadata: { name: 'p405' } } });
    const res = await raw.request('POST', `${NS}/configmaps/p405`, { body: { metadata: { name: 'p405' } } });
    assert.equal(res.status, 405);
    assert.equal(res.json.reason, 'MethodNotAllowed');
    assert.equal(res.json.message, 'the server does not allow this method on the requested resource');
  });

  it('answers a delete with a success Status that has no code', async () => {
    await raw.request('POST', `${NS}/configmaps`, { body: { metadata: { name: 'del-status' } } });
    const res = await raw.request('DELETE', `${NS}/configmaps/del-status`);
    assert.equal(res.status, 200);
    assert.equal(res.json.kind, 'Status');
    assert.equal(res.json.status, 'Success');
    assert.equal('code' in res.json, false);
  });

  it('answers a ServiceAccount delete with the deleted ServiceAccount', async () => {
    await raw.request('POST', `${NS}/serviceaccounts`, { body: { metadata: { name: 'gone' } } });
    const res = await raw.request('DELETE', `${NS}/serviceaccounts/gone`);
    assert.equal(res.status, 200);
    assert.equal(res.json.kind, 'ServiceAccount');
    assert.equal(res.json.metadata.name, 'gone');
  });

  it('refuses an unknown dryRun value with 422 naming the options kind of the verb', async () => {
    const create = await raw.request('POST', `${NS}/configmaps?dryRun=Some`, { body: { metadata: { name: 'dry' } } });
    assert.equal(create.status, 422);
    assert.equal(create.json.message, 'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["Some"]: supported values: "All"');
    assert.deepEqual(create.json.details, {
      group: 'meta.k8s.io', kind: 'CreateOptions',
      causes: [{ field: 'dryRun', reason: 'FieldValueNotSupported', message: 'Unsupported value: ["Some"]: supported values: "All"' }],
    });
    const patch = await raw.request('PATCH', `${NS}/configmaps/x?dryRun=Some`, { body: {}, headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(patch.status, 422);
    assert.equal(patch.json.details.kind, 'PatchOptions');
    // A read has no dryRun option: ignored.
    assert.equal((await raw.request('GET', `${NS}/configmaps?dryRun=Some`)).status, 200);
  });

  it('lists nil among the supported propagation policies', async () => {
    const res = await raw.request('DELETE', `${NS}/configmaps/x?propagationPolicy=Sideways`);
    assert.equal(res.status, 422);
    assert.equal(res.json.details.causes[0].message, 'Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"');
  });

  it('replaces (does not merge) a ServiceAccount imagePullSecrets in a strategic merge patch', async () => {
    await raw.request('POST', `${NS}/serviceaccounts`, { body: { metadata: { name: 'pulls' }, imagePullSecrets: [{ name: 'a' }], secrets: [{ name: 's1' }] } });
    const res = await raw.request('PATCH', `${NS}/serviceaccounts/pulls`, {
      body: { imagePullSecrets: [{ name: 'b' }], secrets: [{ name: 's2' }] },
      headers: { 'content-type': 'application/strategic-merge-patch+json' },
    });
    assert.equal(res.status, 200);
    assert.deepEqual(res.json.imagePullSecrets, [{ name: 'b' }]);
    assert.deepEqual(res.json.secrets, [{ name: 's1' }, { name: 's2' }]);
  });

  it('stamps a SelfSubjectReview and gives the certificate fingerprint in lower case', async () => {
    const res = await raw.request('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' } });
    assert.equal(res.status, 201);
    assert.match(res.json.metadata.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const [id] = res.json.status.userInfo.extra['authentication.kubernetes.io/credential-id'] as string[];
    assert.match(id ?? '', /^X509SHA256=[0-9a-f]{64}$/);
  });

  it('refuses a Lease of zero seconds', async () => {
    const res = await raw.request('POST', '/apis/coordination.k8s.io/v1/namespaces/default/leases', {
      body: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'zero' }, spec: { leaseDurationSeconds: 0 } },
    });
    assert.equal(res.status, 422);
    assert.equal(res.json.details.causes[0].message, 'Invalid value: 0: must be greater than 0');
  });

  it('words an unknown field selector on a metadata-only kind as kube-apiserver does', async () => {
    const res = await raw.request('GET', `${NS}/configmaps?fieldSelector=data.name%3Dx`);
    assert.equal(res.status, 400);
    assert.equal(res.json.message, '"data.name" is not a known field selector: only "metadata.name", "metadata.namespace"');
    const events = await raw.request('GET', `${NS}/events?fieldSelector=data.name%3Dx`);
    assert.equal(events.json.message, 'field label not supported: data.name');
  });

  it('quotes a bad CSR request as sent', async () => {
    const request = Buffer.from('not a pem').toString('base64');
    const res = await raw.request('POST', '/apis/certificates.k8s.io/v1/certificatesigningrequests', {
      body: { apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'bad' }, spec: { request, signerName: 'kubernetes.io/kube-apiserver-client', usages: ['client auth'] } },
    });
    assert.equal(res.status, 422);
    assert.equal(res.json.details.causes[0].message, `Invalid value: "${request}": PEM block type must be CERTIFICATE REQUEST`);
  });

  it('writes the unset time and reporting fields of a core Event as kube-apiserver does', async () => {
    const created = await raw.request('POST', `${NS}/events`, {
      body: { metadata: { name: 'ev1' }, involvedObject: { kind: 'ConfigMap', namespace: 'default', name: 'x' }, reason: 'R', message: 'm' },
    });
    assert.equal(created.status, 201);
    for (const res of [created, await raw.request('GET', `${NS}/events/ev1`)]) {
      const { eventTime, firstTimestamp, lastTimestamp, reportingComponent, reportingInstance } = res.json;
      assert.deepEqual({ eventTime, firstTimestamp, lastTimestamp, reportingComponent, reportingInstance }, {
        eventTime: null, firstTimestamp: null, lastTimestamp: null, reportingComponent: '', reportingInstance: '',
      });
    }
    const listed = await raw.request('GET', `${NS}/events`);
    assert.equal(listed.json.items[0].reportingInstance, '');
  });

  it('answers the write that removes the last finalizer of a deleting object with the object as written', async () => {
    await raw.request('POST', `${NS}/configmaps`, { body: { metadata: { name: 'held', finalizers: ['example.com/hold'] } } });
    assert.equal((await raw.request('DELETE', `${NS}/configmaps/held`)).status, 200);
    const res = await raw.request('PATCH', `${NS}/configmaps/held`, { body: { metadata: { finalizers: null } }, headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(res.status, 200);
    assert.equal(res.json.metadata.finalizers, undefined);
    assert.ok(res.json.metadata.deletionTimestamp);
    assert.equal((await raw.request('GET', `${NS}/configmaps/held`)).status, 404);
  });

  it('refuses a TLS Secret without its certificate and key', async () => {
    const res = await raw.request('POST', `${NS}/secrets`, { body: { metadata: { name: 'tls' }, type: 'kubernetes.io/tls', data: {} } });
    assert.equal(res.status, 422);
    assert.equal(res.json.message, 'Secret "tls" is invalid: [data[tls.crt]: Required value, data[tls.key]: Required value]');
  });

  it('validates RBAC rules and bindings as kube-apiserver does', async () => {
    const rbac = '/apis/rbac.authorization.k8s.io/v1/namespaces/default';
    const role = await raw.request('POST', `${rbac}/roles`, { body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'empty' }, rules: [{}] } });
    assert.equal(role.status, 422);
    assert.deepEqual(role.json.details.causes.map((c: { field: string }) => c.field), ['rules[0].verbs', 'rules[0].apiGroups', 'rules[0].resources']);
    const binding = await raw.request('POST', `${rbac}/rolebindings`, { body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'no-ref' } } });
    assert.equal(binding.status, 422);
    assert.deepEqual(binding.json.details.causes.map((c: { field: string }) => c.field), ['roleRef.kind', 'roleRef.name']);
  });

  it('prints the columns kube-apiserver prints for built-in kinds', async () => {
    const table = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };
    await raw.request('POST', `${NS}/configmaps`, { body: { metadata: { name: 'printed', labels: { printed: 'yes' } }, data: { a: '1', b: '2' }, binaryData: { c: 'AA==' } } });
    const cms = await raw.request('GET', `${NS}/configmaps?labelSelector=printed`, { headers: table });
    assert.deepEqual(cms.json.columnDefinitions.map((c: { name: string }) => c.name), ['Name', 'Data', 'Age']);
    assert.deepEqual(cms.json.rows[0].cells.slice(0, 2), ['printed', 3]);
    assert.match(cms.json.rows[0].cells[2], /^\d+s$/);
    const ns = await raw.request('GET', '/api/v1/namespaces/default', { headers: table });
    assert.deepEqual(ns.json.columnDefinitions.map((c: { name: string }) => c.name), ['Name', 'Status', 'Age']);
    assert.equal(ns.json.rows[0].cells[1], 'Active');
  });

  it('lists built-in items without apiVersion and kind, as kube-apiserver encodes typed lists', async () => {
    await raw.request('POST', `${NS}/configmaps`, { body: { metadata: { name: 'typed', labels: { typed: 'yes' } } } });
    const list = await raw.request('GET', `${NS}/configmaps?labelSelector=typed`);
    assert.equal(list.json.kind, 'ConfigMapList');
    assert.equal(list.json.items[0].metadata.name, 'typed');
    assert.equal('kind' in list.json.items[0], false);
    assert.equal('apiVersion' in list.json.items[0], false);
  });

  it('accepts request bodies in protobuf, as kubectl 1.34 sends them for built-in kinds', async () => {
    const proto = { 'content-type': 'application/vnd.kubernetes.protobuf', accept: 'application/vnd.kubernetes.protobuf,application/json' };
    const ns = await raw.request('POST', '/api/v1/namespaces', { body: protobufEnvelope('v1', 'Namespace', [[1, [[1, 'from-proto']]], [2, []], [3, []]]), headers: proto });
    assert.equal(ns.status, 201);
    assert.equal(ns.json.metadata.name, 'from-proto');
    assert.equal(ns.json.status.phase, 'Active');
    const review = await raw.request('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
      body: protobufEnvelope('authorization.k8s.io/v1', 'SelfSubjectAccessReview', [[1, []], [2, [[1, [[1, 'default'], [2, 'create'], [5, 'configmaps']]]]]]),
      headers: proto,
    });
    assert.equal(review.status, 201);
    assert.equal(review.json.status.allowed, true);
    const unknown = await raw.request('POST', `${NS}/pods`, { body: protobufEnvelope('v1', 'Pod', [[1, [[1, 'p']]]]), headers: proto });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.json.message, 'the object provided is unrecognized (unable to decode protobuf: no protobuf decoding for v1 Pod)');
  });

  it('takes DeleteOptions in protobuf, as library-go controllers (OCM\'s hub) send them', async () => {
    const proto = { 'content-type': 'application/vnd.kubernetes.protobuf', accept: 'application/vnd.kubernetes.protobuf,application/json' };
    const created = await raw.request('POST', `${NS}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'proto-delete' } } });
    assert.equal(created.status, 201);
    const wrongUid = await raw.request('DELETE', `${NS}/configmaps/proto-delete`, { body: protobufEnvelope('v1', 'DeleteOptions', [[2, [[1, 'not-the-uid']]]]), headers: proto });
    assert.equal(wrongUid.status, 409, 'the precondition inside the protobuf body is honoured');
    const ok = await raw.request('DELETE', `${NS}/configmaps/proto-delete`, { body: protobufEnvelope('v1', 'DeleteOptions', [[4, 'Background']]), headers: proto });
    assert.equal(ok.status, 200);
  });
});
