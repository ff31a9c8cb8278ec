// Hostile objects: built-ins are pruned of unknown fields like on kube-apiserver (warned, refused
// under fieldValidation=Strict, dropped silently under Ignore), oversized objects are refused with a
// 413 Status before they reach the store, and custom resources must name their kind. The scenario
// that stopped a hub: the bootstrap identity creating CSRs that carry a 2.9 MB unknown field.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApiServer, type TestApiServer } from '../helpers/embedded-server.js';
import { rawClient, type RawClient, type RawResponse } from '../helpers/raw-client.js';
import { waitFor } from '../helpers/wait-for.js';
import { identityClient, type IdentityClient } from './auth/identity-client.js';
import { createCsr, generateKeyPair } from '../../src/util/x509.js';

const CSRS = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
const CM = '/api/v1/namespaces/default/configmaps';
const LEASES = '/apis/coordination.k8s.io/v1/namespaces/default/leases';
const TOKEN = 'hostil.0123456789abcdef';
const THINGS = '/apis/example.com/v1/namespaces/default/things';
const b64 = (s: string): string => Buffer.from(s).toString('base64');

/** A base64 PEM certificate request (one key for the whole file: only the wrapping object varies). */
let pemRequest = '';

function csr(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name },
    spec: { request: pemRequest, signerName: 'kubernetes.io/kube-apiserver-client', usages: ['client auth'] },
    ...extra,
  };
}

function assertStatus(res: RawResponse | { status: number; json: unknown; text: string }, code: number, reason: string): Record<string, unknown> {
  assert.equal(res.status, code, res.text.slice(0, 500));
  const s = res.json as Record<string, unknown>;
  assert.equal(s.kind, 'Status');
  assert.equal(s.apiVersion, 'v1');
  assert.equal(s.status, 'Failure');
  assert.equal(s.reason, reason);
  assert.equal(s.code, code);
  return s;
}

describe('apiserver hostile objects', () => {
  let srv: TestApiServer;
  let raw: RawClient;
  let bootstrap: IdentityClient;
  before(async () => {
    srv = await startTestApiServer();
    raw = rawClient(srv.kubeConfig);
    const key = await generateKeyPair('ecdsa-p256');
    pemRequest = b64(await createCsr({ commonName: 'someone', organizations: [], privateKeyPem: key.privateKeyPem }));
    const [id, secret] = TOKEN.split('.') as [string, string];
    const mustCreate = async (path: string, body: object): Promise<void> => {
      const r = await raw.request('POST', path, { body });
      assert.equal(r.status, 201, r.text);
    };
    await mustCreate('/api/v1/namespaces/kube-system/secrets', {
      metadata: { name: `bootstrap-token-${id}` }, type: 'bootstrap.kubernetes.io/token',
      data: { 'token-id': b64(id), 'token-secret': b64(secret), 'usage-bootstrap-authentication': b64('true'), expiration: b64(new Date(Date.now() + 3_600_000).toISOString()) },
    });
    await mustCreate('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
      metadata: { name: 'bootstrappers-csr' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:node-bootstrapper' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:bootstrappers' }],
    });
    const { pki, url } = srv.server;
    bootstrap = identityClient(url, pki.caPem, { token: TOKEN });
    await waitFor(async () => (await bootstrap.request('GET', CSRS)).status === 200, 5000, { message: 'bootstrap RBAC effective' });
  });
  after(async () => {
    bootstrap.close();
    raw.close();
    await srv.stop();
  });

  const storedCsr = (name: string): Record<string, unknown> | undefined =>
    srv.store.get(`/certificates.k8s.io/certificatesigningrequests//${name}`)?.object as Record<string, unknown> | undefined;

  it('should drop a 2.9 MB unknown top-level field from CSRs of the bootstrap identity, and keep listing them', async () => {
    const padding = 'x'.repeat(2_900_000);
    for (let i = 0; i < 5; i++) {
      const res = await bootstrap.request('POST', CSRS, csr(`padded-${i}`, { padding }));
      assert.equal(res.status, 201, res.text.slice(0, 300));
      assert.equal((res.json as Record<string, unknown>).padding, undefined);
      const stored = storedCsr(`padded-${i}`);
      assert.ok(stored, 'created');
      assert.equal(stored.padding, undefined, 'the store never holds the field');
      assert.ok(JSON.stringify(stored).length < 4096);
    }
    const list = await raw.request('GET', CSRS);
    assert.equal(list.status, 200);
    assert.ok(list.text.length < 64 * 1024, `list of ${list.text.length} bytes`);
    assert.equal(list.json.items.filter((i: { metadata: { name: string } }) => i.metadata.name.startsWith('padded-')).length, 5);
  });

  it('should warn about each unknown field by default, as kubectl shows it', async () => {
    const res = await raw.request('POST', CSRS, { body: csr('warned', { padding: 1, status: { bogus: true } }) });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.headers.warning, '299 - "unknown field \\"padding\\"", 299 - "unknown field \\"status.bogus\\""');
  });

  it('should refuse unknown fields under fieldValidation=Strict with kube-apiserver\'s message, storing nothing', async () => {
    const body = csr('strict', { padding: 'x'.repeat(100_000) });
    (body.spec as Record<string, unknown>).foo = 1;
    const res = await bootstrap.request('POST', `${CSRS}?fieldValidation=Strict`, body);
    const s = assertStatus(res, 400, 'BadRequest');
    assert.equal(s.message, 'strict decoding error: unknown field "spec.foo", unknown field "padding"');
    assert.equal(storedCsr('strict'), undefined);
  });

  it('should drop unknown fields silently under fieldValidation=Ignore', async () => {
    const res = await raw.request('POST', `${LEASES}?fieldValidation=Ignore`, { body: { metadata: { name: 'ignored' }, spec: { holderIdentity: 'a', foo: 'x' } } });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.headers.warning, undefined);
    assert.deepEqual(res.json.spec, { holderIdentity: 'a' });
  });

  it('should prune updates, patches and status writes the same way', async () => {
    const put = await raw.request('PUT', `${LEASES}/ignored`, { body: { metadata: { name: 'ignored' }, spec: { holderIdentity: 'b', bar: 1 } } });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.headers.warning, '299 - "unknown field \\"spec.bar\\""');
    assert.deepEqual(put.json.spec, { holderIdentity: 'b' });
    const patch = await raw.request('PATCH', `${LEASES}/ignored?fieldValidation=Strict`, { body: { spec: { baz: 1 } }, headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(assertStatus(patch, 400, 'BadRequest').message, 'strict decoding error: unknown field "spec.baz"');
    const node = await raw.request('POST', '/api/v1/nodes', { body: { metadata: { name: 'n1' } } });
    assert.equal(node.status, 201, node.text);
    const status = await raw.request('PUT', '/api/v1/nodes/n1/status', { body: { metadata: { name: 'n1' }, status: { phase: 'Running', junk: 1 } } });
    assert.equal(status.status, 200, status.text);
    assert.equal(status.headers.warning, '299 - "unknown field \\"status.junk\\""');
    assert.deepEqual(status.json.status, { phase: 'Running' });
  });

  it('should prune the create-only reviews', async () => {
    const review = { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { verb: 'get', resource: 'pods' } }, padding: 'x' };
    const warned = await raw.request('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', { body: review });
    assert.equal(warned.status, 201, warned.text);
    assert.equal(warned.headers.warning, '299 - "unknown field \\"padding\\""');
    assert.equal(warned.json.padding, undefined);
    const strict = await raw.request('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews?fieldValidation=Strict', { body: review });
    assertStatus(strict, 400, 'BadRequest');
  });

  it('should refuse a 2 MiB ConfigMap with a 413 Status that states the limit', async () => {
    const res = await raw.request('POST', CM, { body: { metadata: { name: 'big' }, data: { a: 'x'.repeat(2 * 1024 * 1024) } } });
    const s = assertStatus(res, 413, 'RequestEntityTooLarge');
    assert.match(s.message as string, /^Request entity too large: configmaps "big" is \d+ bytes once encoded, limit is 1572864$/);
    assert.equal(srv.store.get('/core/configmaps/default/big'), undefined);
    assert.equal((await raw.request('GET', '/livez')).status, 200);
  });

  it('should refuse growing an object past the limit by update, patch and status write', async () => {
    assert.equal((await raw.request('POST', CM, { body: { metadata: { name: 'grows' }, data: { a: 'small' } } })).status, 201);
    const big = 'x'.repeat(1600 * 1024);
    assertStatus(await raw.request('PUT', `${CM}/grows`, { body: { metadata: { name: 'grows' }, data: { a: big } } }), 413, 'RequestEntityTooLarge');
    assertStatus(await raw.request('PATCH', `${CM}/grows`, { body: { data: { a: big } }, headers: { 'content-type': 'application/merge-patch+json' } }), 413, 'RequestEntityTooLarge');
    assert.equal((srv.store.get('/core/configmaps/default/grows')?.object as unknown as { data: { a: string } }).data.a, 'small');
    const status = await raw.request('PUT', '/api/v1/nodes/n1/status', { body: { metadata: { name: 'n1' }, status: { capacity: { huge: big } } } });
    assertStatus(status, 413, 'RequestEntityTooLarge');
  });

  it('should hold CSRs and Leases to the small size they need', async () => {
    const big = csr('huge');
    (big.spec as Record<string, unknown>).request = 'A'.repeat(100 * 1024);
    const s = assertStatus(await bootstrap.request('POST', CSRS, big), 413, 'RequestEntityTooLarge');
    assert.match(s.message as string, /certificatesigningrequests.certificates.k8s.io "huge" is \d+ bytes once encoded, limit is 65536$/);
    assert.equal(storedCsr('huge'), undefined);
    const annotated = csr('annotated');
    (annotated.metadata as Record<string, unknown>).annotations = { a: 'x'.repeat(70 * 1024) };
    assertStatus(await bootstrap.request('POST', CSRS, annotated), 413, 'RequestEntityTooLarge');
    const lease = await raw.request('POST', LEASES, { body: { metadata: { name: 'fat', annotations: { a: 'x'.repeat(40 * 1024) } }, spec: {} } });
    assertStatus(lease, 413, 'RequestEntityTooLarge');
  });

  describe('custom resources without a kind or apiVersion', () => {
    before(async () => {
      const crd = {
        apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'things.example.com' },
        spec: {
          group: 'example.com', scope: 'Namespaced', names: { plural: 'things', kind: 'Thing' },
          versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } } } }],
        },
      };
      assert.equal((await raw.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd })).status, 201);
      await waitFor(async () => (await raw.request('GET', THINGS)).status === 200, 5000, { message: 'CRD served' });
    });

    it('should refuse a body without kind, as kube-apiserver\'s unstructured decoder does', async () => {
      const body = { apiVersion: 'example.com/v1', metadata: { name: 'a' } };
      const s = assertStatus(await raw.request('POST', THINGS, { body }), 400, 'BadRequest');
      assert.equal(s.message, `Thing in version "v1" cannot be handled as a Thing: Object 'Kind' is missing in '${JSON.stringify(body)}'`);
    });

    it('should refuse a body without apiVersion', async () => {
      const s = assertStatus(await raw.request('POST', THINGS, { body: { kind: 'Thing', metadata: { name: 'a' } } }), 400, 'BadRequest');
      assert.equal(s.message, 'the API version in the data () does not match the expected API version (example.com/v1)');
    });

    it('should accept the same object with both, and built-ins without either', async () => {
      assert.equal((await raw.request('POST', THINGS, { body: { apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name: 'a' } } })).status, 201);
      assert.equal((await raw.request('POST', CM, { body: { metadata: { name: 'typeless' } } })).status, 201);
    });
  });
});
