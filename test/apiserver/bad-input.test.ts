// Malformed and refused requests get the right Status code and reason, and the server keeps serving.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { type TestApiServer } from '../helpers/embedded-server.js';
import { rawClient, type RawClient } from '../helpers/raw-client.js';
import { useRawServer } from '../helpers/raw-server.js';

/** A ConfigMap-shaped document whose data nests `depth` objects deep. */
function deepJson(depth: number, name: string): string {
  return `{"metadata":{"name":"${name}"},"data":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`;
}

/** A continue token in the server's encoding, with forged contents. */
function token(contents: object): string {
  return encodeURIComponent(Buffer.from(JSON.stringify(contents)).toString('base64url'));
}

describe('apiserver bad input', () => {
  let srv: TestApiServer;
  let raw: RawClient;
  useRawServer((s, r) => {
    srv = s;
    raw = r;
  });

  const CM = '/api/v1/namespaces/default/configmaps';
  const cases: { name: string; method: string; path: string; body?: string | object; headers?: Record<string, string>; code: number; reason: string; message?: RegExp }[] = [
    { name: 'malformed JSON', method: 'POST', path: CM, body: '{"metadata":', code: 400, reason: 'BadRequest' },
    { name: 'malformed YAML', method: 'POST', path: CM, body: 'a: [b', headers: { 'content-type': 'application/yaml' }, code: 400, reason: 'BadRequest' },
    { name: 'garbage protobuf body', method: 'POST', path: CM, body: 'x', headers: { 'content-type': 'application/vnd.kubernetes.protobuf' }, code: 400, reason: 'BadRequest' },
    { name: 'unknown resource', method: 'GET', path: '/api/v1/widgets', code: 404, reason: 'NotFound', message: /^the server could not find the requested resource$/ },
    { name: 'unknown group', method: 'GET', path: '/apis/nope.example.com/v1', code: 404, reason: 'NotFound' },
    { name: 'bad name', method: 'POST', path: CM, body: { metadata: { name: 'Bad_Name' } }, code: 422, reason: 'Invalid', message: /^ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/ },
    { name: 'bad label', method: 'POST', path: CM, body: { metadata: { name: 'ok', labels: { 'a b': 'x' } } }, code: 422, reason: 'Invalid' },
    { name: 'missing name', method: 'POST', path: CM, body: { metadata: {} }, code: 422, reason: 'Invalid', message: /metadata.name: Required value/ },
    { name: 'apiVersion mismatch', method: 'POST', path: CM, body: { apiVersion: 'v2', kind: 'ConfigMap', metadata: { name: 'x' } }, code: 400, reason: 'BadRequest', message: /^the API version in the data \(v2\) does not match the expected API version \(v1\)$/ },
    { name: 'kind mismatch', method: 'POST', path: CM, body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' } }, code: 400, reason: 'BadRequest' },
    { name: 'namespace mismatch', method: 'POST', path: CM, body: { metadata: { name: 'x', namespace: 'kube-system' } }, code: 400, reason: 'BadRequest', message: /^the namespace of the provided object does not match the namespace sent on the request$/ },
    { name: 'resourceVersion on create', method: 'POST', path: CM, body: { metadata: { name: 'x', resourceVersion: '5' } }, code: 500, reason: 'InternalError', message: /resourceVersion should not be set on objects to be created/ },
    { name: 'invalid label selector', method: 'GET', path: `${CM}?labelSelector=a%20in%20(`, code: 400, reason: 'BadRequest' },
    { name: 'unsupported field selector', method: 'GET', path: `${CM}?fieldSelector=spec.foo%3Dx`, code: 400, reason: 'BadRequest', message: /^"spec.foo" is not a known field selector: only "metadata.name", "metadata.namespace"$/ },
    { name: 'bad continue token', method: 'GET', path: `${CM}?limit=1&continue=garbage`, code: 400, reason: 'BadRequest' },
    { name: 'bad resourceVersionMatch', method: 'GET', path: `${CM}?resourceVersion=1&resourceVersionMatch=Sometimes`, code: 422, reason: 'Invalid' },
    { name: 'unsupported patch type', method: 'PATCH', path: `${CM}/kube-root-ca.crt`, body: '{}', headers: { 'content-type': 'application/xml' }, code: 415, reason: 'UnsupportedMediaType' },
    { name: 'JSON patch not an array', method: 'PATCH', path: `${CM}/kube-root-ca.crt`, body: '{}', headers: { 'content-type': 'application/json-patch+json' }, code: 400, reason: 'BadRequest' },
    { name: 'apply without fieldManager', method: 'PATCH', path: `${CM}/kube-root-ca.crt`, body: '{}', headers: { 'content-type': 'application/apply-patch+yaml' }, code: 422, reason: 'Invalid' },
    { name: 'verb not supported', method: 'DELETE', path: '/api/v1/namespaces', code: 405, reason: 'MethodNotAllowed' },
    { name: 'protobuf only Accept', method: 'GET', path: CM, headers: { accept: 'application/vnd.kubernetes.protobuf' }, code: 406, reason: 'NotAcceptable' },
    { name: 'bad dryRun', method: 'POST', path: `${CM}?dryRun=Some`, body: { metadata: { name: 'x' } }, code: 422, reason: 'Invalid' },
    { name: 'name mismatch on update', method: 'PUT', path: `${CM}/kube-root-ca.crt`, body: { metadata: { name: 'other' } }, code: 400, reason: 'BadRequest', message: /^the name of the object \(other\) does not match the name on the URL \(kube-root-ca.crt\)$/ },
    { name: 'sendInitialEvents on list', method: 'GET', path: `${CM}?sendInitialEvents=true`, code: 422, reason: 'Invalid' },
    // Hostile requests: each was a 500 (or a 200) before.
    { name: 'JSON nested 1,900 deep', method: 'POST', path: CM, body: deepJson(1900, 'deep'), code: 400, reason: 'BadRequest', message: /exceeded max depth of 512/ },
    { name: 'JSON arrays nested 5,000 deep', method: 'POST', path: CM, body: `{"metadata":{"name":"deep"},"x":${'['.repeat(5000)}${']'.repeat(5000)}}`, code: 400, reason: 'BadRequest', message: /exceeded max depth/ },
    { name: 'YAML nested 1,900 deep', method: 'POST', path: CM, body: `metadata: {name: deep}\nx: ${'['.repeat(1900)}${']'.repeat(1900)}\n`, headers: { 'content-type': 'application/yaml' }, code: 400, reason: 'BadRequest' },
    { name: 'merge patch nested 1,900 deep', method: 'PATCH', path: `${CM}/kube-root-ca.crt`, body: deepJson(1900, 'kube-root-ca.crt'), headers: { 'content-type': 'application/merge-patch+json' }, code: 400, reason: 'BadRequest' },
    { name: 'JSON patch value nested 1,900 deep', method: 'PATCH', path: `${CM}/kube-root-ca.crt`, body: `[{"op":"add","path":"/x","value":${'{"a":'.repeat(1900)}1${'}'.repeat(1900)}}]`, headers: { 'content-type': 'application/json-patch+json' }, code: 400, reason: 'BadRequest' },
    { name: 'apply nested 1,900 deep', method: 'PATCH', path: `${CM}/kube-root-ca.crt?fieldManager=m`, body: deepJson(1900, 'kube-root-ca.crt'), headers: { 'content-type': 'application/apply-patch+yaml' }, code: 400, reason: 'BadRequest' },
    { name: 'bytes that are not UTF-8 in an object name', method: 'GET', path: `${CM}/%ff%fe`, code: 404, reason: 'NotFound' },
    { name: 'a malformed escape in the path', method: 'GET', path: '/api/v1/namespaces/%zz/configmaps', code: 400, reason: 'BadRequest', message: /^invalid URL escape "%zz"$/ },
    { name: 'a limit beyond int64', method: 'GET', path: `${CM}?limit=99999999999999999999`, code: 400, reason: 'BadRequest', message: /limit.*out of range/ },
    { name: 'a timeoutSeconds beyond int64', method: 'GET', path: `${CM}?watch=true&timeoutSeconds=-99999999999999999999`, code: 400, reason: 'BadRequest' },
    { name: 'a continue token with a negative revision', method: 'GET', path: `${CM}?limit=1&continue=${token({ v: 1, rv: -5, start: '/core/configmaps/default/a' })}`, code: 400, reason: 'BadRequest', message: /^continue key is not valid/ },
    { name: 'a continue token with a huge revision', method: 'GET', path: `${CM}?limit=1&continue=${token({ v: 1, rv: 1e30, start: '/core/configmaps/default/a' })}`, code: 400, reason: 'BadRequest', message: /^continue key is not valid/ },
    { name: 'a continue token with a fractional revision', method: 'GET', path: `${CM}?limit=1&continue=${token({ v: 1, rv: 1.5, start: '/core/configmaps/default/a' })}`, code: 400, reason: 'BadRequest', message: /^continue key is not valid/ },
    { name: 'a continue token with a future revision', method: 'GET', path: `${CM}?limit=1&continue=${token({ v: 1, rv: 999_999_999, start: '/core/configmaps/default/a' })}`, code: 400, reason: 'BadRequest', message: /^continue key is not valid: resourceVersion 999999999 is newer/ },
    { name: 'a continue token for another list', method: 'GET', path: `${CM}?limit=1&continue=${token({ v: 1, rv: 1, start: '/core/secrets/kube-system/a' })}`, code: 400, reason: 'BadRequest', message: /^continue key is not valid/ },
    { name: 'a continue token without a start key', method: 'GET', path: `${CM}?limit=1&continue=${token({ v: 1, rv: 1, start: '' })}`, code: 400, reason: 'BadRequest', message: /encoded start key empty/ },
    { name: 'a continue token that is not base64 JSON', method: 'GET', path: `${CM}?limit=1&continue=%25%25%25`, code: 400, reason: 'BadRequest', message: /^continue key is not valid/ },
    { name: 'a strategic merge patch deleting the whole object', method: 'PATCH', path: `${CM}/kube-root-ca.crt`, body: '{"$patch":"delete"}', headers: { 'content-type': 'application/strategic-merge-patch+json' }, code: 400, reason: 'BadRequest', message: /^the name of the object \(kube-root-ca.crt based on URL\) was undeterminable: name must be provided$/ },
    { name: 'a merge patch removing metadata', method: 'PATCH', path: `${CM}/kube-root-ca.crt`, body: '{"metadata":null}', headers: { 'content-type': 'application/merge-patch+json' }, code: 400, reason: 'BadRequest', message: /name must be provided/ },
    { name: 'an update without a name', method: 'PUT', path: `${CM}/kube-root-ca.crt`, body: { data: {} }, code: 400, reason: 'BadRequest', message: /name must be provided/ },
    { name: 'an unknown field under fieldValidation=Strict', method: 'POST', path: `${CM}?fieldValidation=Strict`, body: { metadata: { name: 'strict' }, data: {}, foo: 1, spec: { bar: 2 } }, code: 400, reason: 'BadRequest', message: /^strict decoding error: unknown field "foo", unknown field "spec"$/ },
  ];
  for (const c of cases) {
    it(`should answer ${c.code} ${c.reason} for ${c.name}`, async () => {
      const res = await raw.request(c.method, c.path, { ...(c.body !== undefined ? { body: c.body } : {}), ...(c.headers ? { headers: c.headers } : {}) });
      assert.equal(res.status, c.code, res.text);
      assert.equal(res.headers['content-type'], 'application/json');
      assert.equal(res.json.kind, 'Status');
      assert.equal(res.json.reason, c.reason);
      assert.equal(res.json.code, c.code);
      if (c.message) assert.match(res.json.message, c.message);
    });
  }

  it('should leave an object untouched by the refused patches above', async () => {
    const res = await raw.request('GET', `${CM}/kube-root-ca.crt`);
    assert.equal(res.status, 200);
    assert.ok(res.json.data['ca.crt']);
  });

  it('should list in a namespace whose escaped name is not UTF-8 (nothing there) and take an int64 limit', async () => {
    const odd = await raw.request('GET', '/api/v1/namespaces/%ff%fe/configmaps');
    assert.equal(odd.status, 200, odd.text);
    assert.deepEqual(odd.json.items, []);
    const big = await raw.request('GET', `${CM}?limit=9223372036854775807`);
    assert.equal(big.status, 200, big.text);
    assert.equal(big.json.metadata.continue, undefined);
  });

  it('should parse `a in ()` as kube-apiserver does: a set holding the empty value', async () => {
    await raw.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'emptyset' } } });
    const path = '/api/v1/namespaces/emptyset/configmaps';
    await raw.request('POST', path, { body: { metadata: { name: 'empty', labels: { a: '' } } } });
    await raw.request('POST', path, { body: { metadata: { name: 'full', labels: { a: 'x' } } } });
    const res = await raw.request('GET', `${path}?labelSelector=${encodeURIComponent('a in ()')}`);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json.items.map((i: { metadata: { name: string } }) => i.metadata.name), ['empty']);
  });

  it('should answer a path starting with // as a path, never a 500', async () => {
    const res = await raw.request('GET', '//mqh2-%1b!=');
    assert.ok(res.status >= 400 && res.status < 500, `status ${res.status}`);
    assert.equal((res.json as { kind?: string } | undefined)?.kind, 'Status');
  });

  it('should refuse a metadata.name that is not a string with 400, as kube-apiserver does while decoding', async () => {
    for (const name of [5, {}, ['x']]) {
      const res = await raw.request('POST', CM, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } } });
      assert.equal(res.status, 400, JSON.stringify(name));
      assert.equal((res.json as { reason?: string } | undefined)?.reason, 'BadRequest');
    }
  });

  it('should end a HEAD watch at once and keep the connection usable', async () => {
    const head = await raw.request('HEAD', `${CM}?watch=true`);
    assert.equal(head.status, 200);
    const next = await raw.request('GET', '/livez');
    assert.equal(next.status, 200);
  });

  it('should end a watch with a negative timeoutSeconds at once, as kube-apiserver does', async () => {
    const w = await raw.stream(`${CM}?watch=true&timeoutSeconds=-1`);
    assert.equal(w.status, 200);
    const ended = await Promise.race([w.ended.then(() => true), new Promise((resolve) => setTimeout(() => resolve(false), 3000))]);
    w.close();
    assert.equal(ended, true, 'the watch stayed open');
  });

  it('should answer 413 for a body above 3 MiB and keep serving', async () => {
    const big = JSON.stringify({ metadata: { name: 'big' }, data: { a: 'x'.repeat(3 * 1024 * 1024) } });
    const res = await raw.request('POST', CM, { body: big });
    assert.equal(res.status, 413);
    assert.equal(res.json.reason, 'RequestEntityTooLarge');
    const ok = await raw.request('GET', '/livez');
    assert.equal(ok.status, 200);
    assert.equal(ok.text, 'ok');
  });

  it('should serve version, health and openapi endpoints', async () => {
    for (const p of ['/version', '/version/']) {
      const v = await raw.request('GET', p);
      assert.equal(v.status, 200);
      assert.match(v.json.gitVersion, /^v1\.\d+\.\d+/);
    }
    const verbose = await raw.request('GET', '/readyz?verbose');
    assert.match(verbose.text, /\[\+\]ping ok\n[\s\S]*readyz check passed\n$/);
    assert.equal((await raw.request('GET', '/healthz/ping')).text, 'ok');
    const oa = await raw.request('GET', '/openapi/v2', { headers: { accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' } });
    assert.equal(oa.status, 200);
    assert.equal(oa.headers['content-type'], 'application/octet-stream');
    assert.equal(oa.text, '\n\u00032.0');
    assert.equal((await raw.request('GET', '/openapi/v3')).status, 200);
  });

  it('should answer anonymous requests by RBAC: livez allowed, secrets forbidden', async () => {
    const anon = rawClient(srv.kubeConfig, { anonymous: true });
    try {
      assert.equal((await anon.request('GET', '/livez')).status, 200);
      const res = await anon.request('GET', '/api/v1/secrets');
      assert.equal(res.status, 403);
      assert.equal(res.json.message, 'secrets is forbidden: User "system:anonymous" cannot list resource "secrets" in API group "" at the cluster scope');
    } finally {
      anon.close();
    }
  });

  it('should paginate consistently with limit/continue', async () => {
    await raw.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'pages' } } });
    for (let i = 0; i < 5; i++) await raw.request('POST', '/api/v1/namespaces/pages/secrets', { body: { metadata: { name: `s${i}` } } });
    const p1 = await raw.request('GET', '/api/v1/namespaces/pages/secrets?limit=2');
    assert.equal(p1.json.items.length, 2);
    assert.ok(p1.json.metadata.continue);
    await raw.request('DELETE', '/api/v1/namespaces/pages/secrets/s4');
    const names = p1.json.items.map((i: { metadata: { name: string } }) => i.metadata.name);
    let token = p1.json.metadata.continue;
    while (token) {
      const p = await raw.request('GET', `/api/v1/namespaces/pages/secrets?limit=2&continue=${encodeURIComponent(token)}`);
      assert.equal(p.json.metadata.resourceVersion, p1.json.metadata.resourceVersion);
      names.push(...p.json.items.map((i: { metadata: { name: string } }) => i.metadata.name));
      token = p.json.metadata.continue;
    }
    assert.deepEqual(names, ['s0', 's1', 's2', 's3', 's4']);
  });
});
