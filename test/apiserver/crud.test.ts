// CRUD, conflicts, finalizers, namespaces and status subresource over HTTPS with client-node.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ApiException, CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { startTestApiServer, type TestApiServer } from '../helpers/embedded-server.js';
import { rawClient, type RawClient } from '../helpers/raw-client.js';
import { waitFor } from '../helpers/wait-for.js';

function statusOf(err: unknown): { code: number; body: any } {
  assert.ok(err instanceof ApiException, `expected ApiException, got ${String(err)}`);
  return { code: err.code, body: typeof err.body === 'string' ? JSON.parse(err.body) : err.body };
}

describe('apiserver CRUD', () => {
  let srv: TestApiServer;
  let core: CoreV1Api;
  let raw: RawClient;
  before(async () => {
    srv = await startTestApiServer();
    core = srv.kubeConfig.makeApiClient(CoreV1Api);
    raw = rawClient(srv.kubeConfig);
  });
  after(async () => {
    raw.close();
    await srv.stop();
  });

  it('should create, get, list, update and delete a ConfigMap', async () => {
    const created = await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'c1', labels: { app: 'x' } }, data: { a: '1' } } });
    assert.equal(created.kind, 'ConfigMap');
    assert.equal(created.apiVersion, 'v1');
    assert.match(created.metadata?.uid ?? '', /^[0-9a-f-]{36}$/);
    assert.match(created.metadata?.creationTimestamp?.toISOString() ?? '', /^\d{4}-/);
    const got = await core.readNamespacedConfigMap({ name: 'c1', namespace: 'default' });
    assert.deepEqual(got.data, { a: '1' });
    const list = await core.listNamespacedConfigMap({ namespace: 'default', labelSelector: 'app=x' });
    assert.deepEqual(list.items.map((i) => i.metadata?.name), ['c1']);
    assert.ok(Number(list.metadata?.resourceVersion) > 0);
    got.data = { a: '2' };
    const updated = await core.replaceNamespacedConfigMap({ name: 'c1', namespace: 'default', body: got });
    assert.notEqual(updated.metadata?.resourceVersion, got.metadata?.resourceVersion);
    await core.deleteNamespacedConfigMap({ name: 'c1', namespace: 'default' });
    await assert.rejects(core.readNamespacedConfigMap({ name: 'c1', namespace: 'default' }), (e) => {
      const s = statusOf(e);
      assert.equal(s.code, 404);
      assert.equal(s.body.message, 'configmaps "c1" not found');
      assert.deepEqual(s.body.details, { name: 'c1', kind: 'configmaps' });
      return true;
    });
  });

  it('should answer 409 AlreadyExists and 409 Conflict with upstream messages', async () => {
    const cm = await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'c2' }, data: { a: '1' } } });
    await assert.rejects(core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'c2' } } }), (e) => {
      const s = statusOf(e);
      assert.equal(s.code, 409);
      assert.equal(s.body.reason, 'AlreadyExists');
      return true;
    });
    await core.replaceNamespacedConfigMap({ name: 'c2', namespace: 'default', body: { ...cm, data: { a: '2' } } });
    await assert.rejects(core.replaceNamespacedConfigMap({ name: 'c2', namespace: 'default', body: { ...cm, data: { a: '3' } } }), (e) => {
      const s = statusOf(e);
      assert.equal(s.code, 409);
      assert.equal(s.body.message, 'Operation cannot be fulfilled on configmaps "c2": the object has been modified; please apply your changes to the latest version and try again');
      return true;
    });
  });

  it('should suppress no-op updates (same resourceVersion)', async () => {
    const cm = await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'c3' }, data: { a: '1' } } });
    const again = await core.replaceNamespacedConfigMap({ name: 'c3', namespace: 'default', body: cm });
    assert.equal(again.metadata?.resourceVersion, cm.metadata?.resourceVersion);
  });

  it('should apply JSON patch by default and merge patch via header, with RV preconditions', async () => {
    const cm = await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'c4' }, data: { a: '1' } } });
    const p1 = await core.patchNamespacedConfigMap({ name: 'c4', namespace: 'default', body: [{ op: 'add', path: '/data/b', value: '2' }] });
    assert.deepEqual(p1.data, { a: '1', b: '2' });
    const p2 = await core.patchNamespacedConfigMap(
      { name: 'c4', namespace: 'default', body: { data: { a: null, c: '3' } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    assert.deepEqual(p2.data, { b: '2', c: '3' });
    await assert.rejects(core.patchNamespacedConfigMap(
      { name: 'c4', namespace: 'default', body: { metadata: { resourceVersion: cm.metadata?.resourceVersion }, data: { d: '4' } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    ), (e) => statusOf(e).code === 409);
    const smp = await raw.request('PATCH', '/api/v1/namespaces/default/configmaps/c4', {
      body: { data: { e: '5' } }, headers: { 'content-type': 'application/strategic-merge-patch+json' },
    });
    assert.equal(smp.status, 200);
    assert.equal(smp.json.data.e, '5');
    const bad = await raw.request('PATCH', '/api/v1/namespaces/default/configmaps/c4', { body: '{}', headers: { 'content-type': 'text/plain' } });
    assert.equal(bad.status, 415);
    const badOp = await raw.request('PATCH', '/api/v1/namespaces/default/configmaps/c4', {
      body: [{ op: 'remove', path: '/data/nope' }], headers: { 'content-type': 'application/json-patch+json' },
    });
    assert.equal(badOp.status, 422);
  });

  it('should fold Secret stringData into data and default the type', async () => {
    const s = await core.createNamespacedSecret({ namespace: 'default', body: { metadata: { name: 's1' }, stringData: { user: 'admin' } } });
    assert.equal(s.type, 'Opaque');
    assert.equal(s.data?.user, Buffer.from('admin').toString('base64'));
    assert.equal((s as { stringData?: unknown }).stringData, undefined);
  });

  it('should keep objects with finalizers until the finalizers are removed', async () => {
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'f1', finalizers: ['example.com/hold'] } } });
    const del = await raw.request('DELETE', '/api/v1/namespaces/default/configmaps/f1', { body: { propagationPolicy: 'Background' } });
    assert.equal(del.status, 200);
    assert.ok(del.json.metadata.deletionTimestamp);
    const addFin = await raw.request('PATCH', '/api/v1/namespaces/default/configmaps/f1', {
      body: { metadata: { finalizers: ['example.com/hold', 'example.com/other'] } }, headers: { 'content-type': 'application/merge-patch+json' },
    });
    assert.equal(addFin.status, 422);
    const rm = await raw.request('PATCH', '/api/v1/namespaces/default/configmaps/f1', {
      body: { metadata: { finalizers: null } }, headers: { 'content-type': 'application/merge-patch+json' },
    });
    assert.equal(rm.status, 200);
    const gone = await raw.request('GET', '/api/v1/namespaces/default/configmaps/f1');
    assert.equal(gone.status, 404);
  });

  it('should refuse creates into missing (404) and terminating (403) namespaces, then delete the namespace content', async () => {
    const missing = await raw.request('POST', '/api/v1/namespaces/nope/configmaps', { body: { metadata: { name: 'x' } } });
    assert.equal(missing.status, 404);
    assert.equal(missing.json.message, 'namespaces "nope" not found');
    await core.createNamespace({ body: { metadata: { name: 'ns1' } } });
    await core.createNamespacedConfigMap({ namespace: 'ns1', body: { metadata: { name: 'held', finalizers: ['example.com/hold'] } } });
    const del = await raw.request('DELETE', '/api/v1/namespaces/ns1');
    assert.equal(del.status, 200);
    assert.equal(del.json.status.phase, 'Terminating');
    const refused = await raw.request('POST', '/api/v1/namespaces/ns1/configmaps', { body: { metadata: { name: 'y' } } });
    assert.equal(refused.status, 403);
    assert.equal(refused.json.message, 'configmaps "y" is forbidden: unable to create new content in namespace ns1 because it is being terminated');
    await waitFor(async () => (await raw.request('GET', '/api/v1/namespaces/ns1/configmaps/held')).json?.metadata?.deletionTimestamp, 3000);
    await raw.request('PATCH', '/api/v1/namespaces/ns1/configmaps/held', {
      body: { metadata: { finalizers: null } }, headers: { 'content-type': 'application/merge-patch+json' },
    });
    await waitFor(async () => (await raw.request('GET', '/api/v1/namespaces/ns1')).status === 404, 5000);
    const protectedNs = await raw.request('DELETE', '/api/v1/namespaces/default');
    assert.equal(protectedNs.status, 403);
    assert.equal(protectedNs.json.message, 'namespaces "default" is forbidden: this namespace may not be deleted');
  });

  it('should keep status out of main-resource writes (Node) and spec out of /status writes', async () => {
    await raw.request('POST', '/api/v1/nodes', { body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' }, spec: { podCIDR: '10.0.0.0/24' } } });
    const st = await raw.request('PATCH', '/api/v1/nodes/n1/status', {
      body: { spec: { podCIDR: '10.9.9.0/24' }, status: { capacity: { cpu: '4' } } }, headers: { 'content-type': 'application/merge-patch+json' },
    });
    assert.equal(st.status, 200);
    assert.equal(st.json.status.capacity.cpu, '4');
    assert.equal(st.json.spec.podCIDR, '10.0.0.0/24');
    const main = await raw.request('PATCH', '/api/v1/nodes/n1', {
      body: { status: { capacity: { cpu: '8' } }, metadata: { labels: { a: 'b' } } }, headers: { 'content-type': 'application/merge-patch+json' },
    });
    assert.equal(main.json.status.capacity.cpu, '4');
    assert.equal(main.json.metadata.labels.a, 'b');
  });

  it('should create bootstrap namespaces, default ServiceAccount and kube-root-ca.crt', async () => {
    const names = (await core.listNamespace()).items.map((n) => n.metadata?.name);
    for (const n of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) assert.ok(names.includes(n), n);
    await core.createNamespace({ body: { metadata: { name: 'ns2' } } });
    await waitFor(async () => (await raw.request('GET', '/api/v1/namespaces/ns2/serviceaccounts/default')).status === 200, 3000);
    const ca = await core.readNamespacedConfigMap({ name: 'kube-root-ca.crt', namespace: 'ns2' });
    assert.match(ca.data?.['ca.crt'] ?? '', /BEGIN CERTIFICATE/);
    const ns = await core.readNamespace({ name: 'ns2' });
    assert.equal(ns.metadata?.labels?.['kubernetes.io/metadata.name'], 'ns2');
    assert.deepEqual(ns.spec?.finalizers, ['kubernetes']);
  });
});
