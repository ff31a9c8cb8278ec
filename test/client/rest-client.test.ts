import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeObject, WatchEvent } from '../../src/api/meta.js';
import { ApiStatusError, createKubeClient, isNotFound, NetworkError, renderKubeconfig, resourceTypes as R } from '../../src/client/index.js';
import { json, startFakeApi, type FakeApi } from './tls-fixture.js';

let api: FakeApi;
before(async () => {
  api = await startFakeApi();
});
after(async () => {
  await api.close();
});

/** A kubeconfig file naming certificate files `<files>.crt`/`.key` (written beside it) and the CA. */
function writeCertKubeconfig(name: string, files: string, cert: { certPem: string; keyPem: string }): string {
  writeFileSync(join(api.dir, 'ca.crt'), api.pki.caPem);
  writeFileSync(join(api.dir, `${files}.crt`), cert.certPem);
  writeFileSync(join(api.dir, `${files}.key`), cert.keyPem, { mode: 0o600 });
  const path = join(api.dir, name);
  writeFileSync(path, renderKubeconfig({ clusterName: 'hub', server: api.url, certificateAuthority: 'ca.crt', user: { clientCertificate: `${files}.crt`, clientKey: `${files}.key` } }));
  return path;
}

async function adminClient() {
  const admin = await api.pki.issueClientCertificate({ commonName: 'admin' });
  return createKubeClient({ server: api.url, caPem: api.pki.caPem, certPem: admin.certPem, keyPem: admin.keyPem, contextName: 'x' }, { userAgent: 'test-agent/1' });
}

test('should build URLs, methods, bodies and content types for CRUD and patches', async () => {
  const client = await adminClient();
  api.requests.length = 0;
  api.setHandler((req, res) => json(res, req.method === 'POST' ? 201 : 200, req.method === 'DELETE' ? { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 200 } : { metadata: { name: 'x' } }));
  const cms = client.resource(R.configMaps, 'ns1');
  await cms.get('a');
  await cms.list({ labelSelector: 'a=b', limit: 10, continue: 'tok', resourceVersion: '0' });
  await cms.create({ metadata: { name: 'a' }, data: { k: 'v' } }, { fieldManager: 'me' });
  await cms.update({ metadata: { name: 'a', resourceVersion: '3' } });
  await cms.patch('a', 'merge', { data: { k: 'w' } });
  await cms.patch('a', 'json', [{ op: 'add', path: '/data/x', value: 'y' }]);
  await cms.patch('a', 'strategic', { data: {} });
  await cms.patch('a', 'apply', { apiVersion: 'v1', kind: 'ConfigMap' }, { fieldManager: 'fm', force: true });
  await cms.delete('a', { propagationPolicy: 'Background', preconditions: { uid: 'u1' } });
  const mcs = client.resource(R.managedClusters);
  await mcs.updateStatus({ metadata: { name: 'c1' } });
  await client.resource(R.certificateSigningRequests).updateSubresource({ metadata: { name: 'csr1' } }, 'approval');
  await mcs.patch('c1', 'merge', { status: {} }, { subresource: 'status' });
  const got = api.requests.map((r) => `${r.method} ${r.url} ${r.headers['content-type'] ?? '-'}`);
  assert.deepEqual(got, [
    'GET /api/v1/namespaces/ns1/configmaps/a -',
    'GET /api/v1/namespaces/ns1/configmaps?labelSelector=a%3Db&limit=10&continue=tok&resourceVersion=0 -',
    'POST /api/v1/namespaces/ns1/configmaps?fieldManager=me application/json',
    'PUT /api/v1/namespaces/ns1/configmaps/a application/json',
    'PATCH /api/v1/namespaces/ns1/configmaps/a application/merge-patch+json',
    'PATCH /api/v1/namespaces/ns1/configmaps/a application/json-patch+json',
    'PATCH /api/v1/namespaces/ns1/configmaps/a application/strategic-merge-patch+json',
    'PATCH /api/v1/namespaces/ns1/configmaps/a?fieldManager=fm&force=true application/apply-patch+yaml',
    'DELETE /api/v1/namespaces/ns1/configmaps/a application/json',
    'PUT /apis/cluster.open-cluster-management.io/v1/managedclusters/c1/status application/json',
    'PUT /apis/certificates.k8s.io/v1/certificatesigningrequests/csr1/approval application/json',
    'PATCH /apis/cluster.open-cluster-management.io/v1/managedclusters/c1/status application/merge-patch+json',
  ]);
  const created = JSON.parse(api.requests[2]?.body ?? '{}') as KubeObject;
  assert.equal(created.apiVersion, 'v1');
  assert.equal(created.kind, 'ConfigMap');
  assert.deepEqual(JSON.parse(api.requests[8]?.body ?? '{}'), { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Background', preconditions: { uid: 'u1' } });
  assert.equal(api.requests[0]?.headers['user-agent'], 'test-agent/1');
  assert.equal(api.requests[0]?.clientCN, 'admin');
  client.close();
});

test('should reuse one kept-alive TLS connection for sequential requests', async () => {
  const client = await adminClient();
  api.setHandler((_req, res) => json(res, 200, { metadata: {} }));
  const before = api.connections();
  for (let i = 0; i < 10; i++) await client.resource(R.namespaces).get(`n${i}`);
  assert.equal(api.connections() - before, 1);
  client.close();
});

test('should surface Status errors with code, reason, message and Retry-After', async () => {
  const client = await adminClient();
  api.setHandler((req, res) => {
    if (req.url.includes('missing')) json(res, 404, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'configmaps "missing" not found', reason: 'NotFound', details: { name: 'missing', kind: 'configmaps' }, code: 404 });
    else if (req.url.includes('busy')) json(res, 429, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'slow down', reason: 'TooManyRequests', code: 429, details: { retryAfterSeconds: 4 } });
    else {
      res.writeHead(502, { 'Content-Type': 'text/plain' });
      res.end('bad gateway');
    }
  });
  const cms = client.resource(R.configMaps, 'n');
  const e1 = await cms.get('missing').catch((e: unknown) => e);
  assert.ok(e1 instanceof ApiStatusError);
  assert.equal(e1.message, 'configmaps "missing" not found');
  assert.equal(e1.reason, 'NotFound');
  assert.ok(isNotFound(e1));
  assert.equal(e1.status.details?.name, 'missing');
  // without a Retry-After header the client does not wait and send it again: the caller gets the 429
  const e2 = await cms.get('busy').catch((e: unknown) => e);
  assert.ok(e2 instanceof ApiStatusError && e2.code === 429 && e2.retryAfterSeconds === 4);
  const e3 = await cms.get('other').catch((e: unknown) => e);
  assert.ok(e3 instanceof ApiStatusError && e3.code === 502 && e3.message === 'bad gateway');
  const probe = await client.probe('/livez');
  assert.deepEqual(probe, { statusCode: 502, body: 'bad gateway' });
  client.close();
});

test('should wrap network failures and honour abort signals', async () => {
  const client = createKubeClient({ server: 'https://127.0.0.1:1', caPem: api.pki.caPem, contextName: 'x' });
  const e = await client.resource(R.namespaces).get('a').catch((err: unknown) => err);
  assert.ok(e instanceof NetworkError, String(e));
  assert.ok(e.cause instanceof Error);
  client.close();
  const c2 = await adminClient();
  api.setHandler(() => {
    /* never answers */
  });
  const ac = new AbortController();
  const p = c2.resource(R.namespaces).get('slow', { signal: ac.signal });
  setTimeout(() => ac.abort(new Error('cancelled by test')), 20);
  await assert.rejects(p, /cancelled by test/);
  c2.close();
});

test('should stream watch events in order, across chunk boundaries, including ERROR', async () => {
  const client = await adminClient();
  api.setHandler((req, res) => {
    assert.match(req.url, /watch=true/);
    assert.match(req.url, /allowWatchBookmarks=true/);
    assert.match(req.url, /resourceVersion=7/);
    assert.match(req.url, /timeoutSeconds=30/);
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.flushHeaders();
    const lines = [
      { type: 'ADDED', object: { metadata: { name: 'a', resourceVersion: '8' } } },
      { type: 'BOOKMARK', object: { metadata: { resourceVersion: '9' } } },
      { type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'too old resource version: 7 (9)', reason: 'Expired', code: 410 } },
    ].map((l) => JSON.stringify(l) + '\n').join('');
    // Split mid-line to check reassembly.
    res.write(lines.slice(0, 17));
    setTimeout(() => res.end(lines.slice(17)), 10);
  });
  const events: WatchEvent[] = [];
  for await (const ev of client.resource(R.configMaps, 'n').watch({ resourceVersion: '7', allowWatchBookmarks: true, timeoutSeconds: 30 })) events.push(ev);
  assert.deepEqual(events.map((e) => e.type), ['ADDED', 'BOOKMARK', 'ERROR']);
  assert.equal((events[2]?.object as unknown as { code: number }).code, 410);
  client.close();
});

test('should throw ApiStatusError when the watch request is refused, and NetworkError when cut short', async () => {
  const client = await adminClient();
  api.setHandler((req, res) => {
    if (req.url.includes('resourceVersion=1')) json(res, 410, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'gone', reason: 'Expired', code: 410 });
    else {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write(JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'a' } } }) + '\n');
      setTimeout(() => res.socket?.destroy(), 10);
    }
  });
  const watchAll = async (rv: string): Promise<unknown> => {
    try {
      for await (const _ of client.resource(R.configMaps, 'n').watch({ resourceVersion: rv })) void _;
      return undefined;
    } catch (e) {
      return e;
    }
  };
  const gone = await watchAll('1');
  assert.ok(gone instanceof ApiStatusError && gone.code === 410);
  const cut = await watchAll('2');
  assert.ok(cut instanceof NetworkError, String(cut));
  client.close();
});

test('should pick up a client certificate rotated in place when loaded from a kubeconfig file', async () => {
  const first = await api.pki.issueClientCertificate({ commonName: 'agent-v1' });
  const second = await api.pki.issueClientCertificate({ commonName: 'agent-v2' });
  const kubeconfigPath = writeCertKubeconfig('kubeconfig', 'tls', first);
  const client = createKubeClient({ kubeconfigPath });
  api.setHandler((_req, res) => json(res, 200, { metadata: {} }));
  api.requests.length = 0;
  await client.resource(R.namespaces).get('a');
  writeFileSync(join(api.dir, 'tls.crt'), second.certPem);
  writeFileSync(join(api.dir, 'tls.key'), second.keyPem, { mode: 0o600 });
  await client.resource(R.namespaces).get('b');
  assert.deepEqual(api.requests.map((r) => r.clientCN), ['agent-v1', 'agent-v2']);
  client.close();
});

test('should share one connection between the clients of one kubeconfig file, until the last one closes', async () => {
  const kubeconfigPath = writeCertKubeconfig('kubeconfig-shared', 'shared', await api.pki.issueClientCertificate({ commonName: 'shared' }));
  api.setHandler((_req, res) => json(res, 200, { metadata: {} }));
  const before = api.connections();
  const a = createKubeClient({ kubeconfigPath });
  const b = createKubeClient({ kubeconfigPath });
  const other = createKubeClient({ kubeconfigPath }, { userAgent: 'another-agent' });
  for (let i = 0; i < 3; i++) {
    await a.resource(R.namespaces).get(`a${i}`);
    await b.resource(R.namespaces).get(`b${i}`);
  }
  assert.equal(api.connections() - before, 1, 'a and b share one connection');
  await other.resource(R.namespaces).get('o');
  assert.equal(api.connections() - before, 2, 'different transport options: a transport of its own');
  a.close();
  a.close();
  await b.resource(R.namespaces).get('after a closed');
  assert.equal(api.connections() - before, 2, 'b keeps the shared connection');
  b.close();
  const c = createKubeClient({ kubeconfigPath });
  await c.resource(R.namespaces).get('new');
  assert.equal(api.connections() - before, 3, 'the last close closed the transport');
  c.close();
  other.close();
});

test('should send a bearer token read from a token file and pick up a new token', async () => {
  writeFileSync(join(api.dir, 'ca.crt'), api.pki.caPem);
  writeFileSync(join(api.dir, 'token'), 'tok-1\n', { mode: 0o600 });
  const kubeconfigPath = join(api.dir, 'kubeconfig-token');
  writeFileSync(kubeconfigPath, renderKubeconfig({ clusterName: 'hub', server: api.url, certificateAuthority: 'ca.crt', user: { tokenFile: 'token' } }));
  const client = createKubeClient({ kubeconfigPath });
  api.setHandler((_req, res) => json(res, 200, { metadata: {} }));
  api.requests.length = 0;
  await client.resource(R.namespaces).get('a');
  writeFileSync(join(api.dir, 'token'), 'tok-22\n', { mode: 0o600 });
  await client.resource(R.namespaces).get('a');
  assert.deepEqual(api.requests.map((r) => r.headers.authorization), ['Bearer tok-1', 'Bearer tok-22']);
  client.close();
});

test('should time out requests, and watches whose response headers never arrive', async () => {
  const admin = await api.pki.issueClientCertificate({ commonName: 'admin' });
  const client = createKubeClient({ server: api.url, caPem: api.pki.caPem, certPem: admin.certPem, keyPem: admin.keyPem, contextName: 'x' }, { timeoutMs: 100 });
  api.setHandler(() => {
    /* never answers */
  });
  const e1 = await client.resource(R.namespaces).get('slow').catch((e: unknown) => e);
  assert.ok(e1 instanceof NetworkError, String(e1));
  const e2 = await (async () => {
    for await (const _ of client.resource(R.namespaces).watch()) void _;
  })().catch((e: unknown) => e);
  assert.ok(e2 instanceof NetworkError && /no response headers within 100 ms/.test(e2.message), String(e2));
  client.close();
});
