// The client runtime against the real embedded API server: CRUD, watch, informer relist after
// compaction (410), informer recovery across a server restart, client certificate rotation.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeObject, WatchEvent } from '../../src/api/meta.js';
import {
  ApiStatusError,
  createInformer,
  createKubeClient,
  isAlreadyExists,
  isConflict,
  isForbidden,
  isNotFound,
  renderKubeconfig,
  resourceTypes as R,
  type ResourceClient,
} from '../../src/client/index.js';
import { startTestApiServer } from '../helpers/embedded-server.js';
import { waitFor } from '../helpers/wait-for.js';

const cm = (name: string, data: Record<string, string> = {}): KubeObject => ({ metadata: { name }, data });

test('should create, read, update, patch, list and delete against the embedded server', async (t) => {
  const srv = await startTestApiServer();
  t.after(() => srv.stop());
  const client = createKubeClient({ kubeconfigPath: srv.adminKubeconfigPath });
  t.after(() => client.close());
  await client.resource(R.namespaces).create({ metadata: { name: 'crud' } });
  const cms = client.resource(R.configMaps, 'crud');
  const created = await cms.create(cm('a', { k: 'v' }));
  assert.equal(created.metadata.namespace, 'crud');
  assert.ok(created.metadata.resourceVersion);
  await assert.rejects(cms.create(cm('a')), (e: unknown) => isAlreadyExists(e));
  const updated = await cms.update({ ...created, data: { k: 'v2' } });
  await assert.rejects(cms.update({ ...created, data: { k: 'stale' } }), (e: unknown) => isConflict(e));
  const merged = await cms.patch('a', 'merge', { data: { m: '1' } });
  assert.deepEqual(merged.data, { k: 'v2', m: '1' });
  const jsonPatched = await cms.patch('a', 'json', [{ op: 'add', path: '/data/j', value: '2' }]);
  assert.equal((jsonPatched.data as Record<string, string>).j, '2');
  assert.notEqual(updated.metadata.resourceVersion, jsonPatched.metadata.resourceVersion);
  await cms.create(cm('b'));
  const list = await cms.list();
  assert.deepEqual(list.items.map((o) => o.metadata.name).filter((n) => n !== 'kube-root-ca.crt').sort(), ['a', 'b']);
  assert.ok(list.metadata.resourceVersion);
  const page = await cms.list({ limit: 1 });
  assert.equal(page.items.length, 1);
  assert.ok(page.metadata.continue, 'a continue token for the next page');
  const paged = createInformer(cms, { pageSize: 1 });
  const ac = new AbortController();
  paged.start(ac.signal);
  await paged.waitForSync(ac.signal);
  ac.abort();
  assert.equal(paged.lister.list().length, list.items.length, 'the informer follows continue tokens');
  await cms.delete('a');
  await assert.rejects(cms.get('a'), (e: unknown) => isNotFound(e) && e instanceof ApiStatusError && e.message === 'configmaps "a" not found');
  const ver = await client.request<{ major?: string }>('GET', '/version');
  assert.equal(typeof ver.major, 'string');
  assert.equal((await client.probe('/livez')).statusCode, 200);
});

test('should watch changes in order from a resourceVersion', async (t) => {
  const srv = await startTestApiServer();
  t.after(() => srv.stop());
  const client = createKubeClient({ kubeconfigPath: srv.adminKubeconfigPath });
  t.after(() => client.close());
  await client.resource(R.namespaces).create({ metadata: { name: 'w' } });
  const cms = client.resource(R.configMaps, 'w');
  const start = (await cms.list()).metadata.resourceVersion;
  const ac = new AbortController();
  const events: Array<WatchEvent> = [];
  const done = (async () => {
    try {
      for await (const ev of cms.watch({ resourceVersion: start, signal: ac.signal, allowWatchBookmarks: true })) {
        if (ev.type !== 'BOOKMARK') events.push(ev);
      }
    } catch (e) {
      if (!ac.signal.aborted) throw e;
    }
  })();
  await cms.create(cm('x'));
  await cms.patch('x', 'merge', { data: { a: 'b' } });
  await cms.delete('x');
  await waitFor(() => events.length === 3);
  assert.deepEqual(events.map((e) => `${e.type} ${e.object.metadata.name}`), ['ADDED x', 'MODIFIED x', 'DELETED x']);
  ac.abort();
  await done;
});

/** A ResourceClient whose second and later watches wait for `release` (to let the test compact meanwhile). */
function gatedWatches<T extends KubeObject>(inner: ResourceClient<T>): { client: ResourceClient<T>; watches: () => number; release: () => void } {
  let n = 0;
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  const client = Object.create(inner) as ResourceClient<T>;
  client.watch = (opts) => ({
    async *[Symbol.asyncIterator]() {
      n++;
      if (n > 1) await gate;
      yield* inner.watch(opts);
    },
  });
  client.list = (opts) => inner.list(opts);
  return { client, watches: () => n, release: open };
}

test('should relist after the watch resourceVersion was compacted, emitting deletes for vanished objects', async (t) => {
  const srv = await startTestApiServer({ retention: { minRevisions: 1, minAgeMs: 0 }, compactIntervalMs: 3_600_000 });
  t.after(() => srv.stop());
  const client = createKubeClient({ kubeconfigPath: srv.adminKubeconfigPath });
  t.after(() => client.close());
  await client.resource(R.namespaces).create({ metadata: { name: 'rl' } });
  const cms = client.resource(R.configMaps, 'rl');
  await cms.create(cm('keep'));
  await cms.create(cm('vanish'));
  const gated = gatedWatches(cms);
  const deleted: string[] = [];
  const added: string[] = [];
  let expired = 0;
  const inf = createInformer(gated.client, {
    watchTimeoutSeconds: { min: 1, max: 1 },
    backoff: { initialMs: 50, maxMs: 200 },
    onEvent: (e) => {
      if (e.type === 'expired') expired++;
    },
  });
  inf.addHandlers({ onAdd: (o) => added.push(o.metadata.name ?? ''), onDelete: (o) => deleted.push(o.metadata.name ?? '') });
  const ac = new AbortController();
  t.after(() => ac.abort());
  inf.start(ac.signal);
  await inf.waitForSync(ac.signal);
  await waitFor(() => gated.watches() === 2, 10_000); // first watch ended after 1 s; the second waits
  // Out of the informer's sight: delete one object, add another, then compact the history away.
  await cms.delete('vanish');
  await cms.create(cm('new'));
  for (let i = 0; i < 3; i++) await cms.patch('keep', 'merge', { data: { i: String(i) } });
  assert.ok(srv.store.compact() > 0);
  gated.release();
  await waitFor(() => deleted.includes('vanish') && added.includes('new'), 10_000);
  assert.deepEqual(inf.lister.list().map((o) => o.metadata.name).filter((n) => n !== 'kube-root-ca.crt').sort(), ['keep', 'new']);
  assert.deepEqual((inf.lister.get('keep', 'rl')?.data as Record<string, string>).i, '2');
  assert.equal(expired, 1, 'the relist came from a 410');
});

test('should recover an informer when the server restarts mid-watch', async (t) => {
  let srv = await startTestApiServer({ keepDataDir: true });
  const port = srv.port;
  const dataDir = srv.dataDir;
  t.after(async () => {
    await srv.stop();
  });
  const client = createKubeClient({ kubeconfigPath: srv.adminKubeconfigPath });
  t.after(() => client.close());
  await client.resource(R.namespaces).create({ metadata: { name: 'rs' } });
  const cms = client.resource(R.configMaps, 'rs');
  await cms.create(cm('before'));
  const inf = createInformer(cms, { backoff: { initialMs: 50, maxMs: 200 } });
  const ac = new AbortController();
  t.after(() => ac.abort());
  inf.start(ac.signal);
  await inf.waitForSync(ac.signal);
  await waitFor(() => inf.state() === 'watching');
  await srv.stop();
  await waitFor(() => inf.state() === 'backingOff', 10_000);
  srv = await startTestApiServer({ dataDir, keepDataDir: false, listen: { host: '127.0.0.1', port } });
  const admin = createKubeClient({ kubeconfigPath: srv.adminKubeconfigPath });
  t.after(() => admin.close());
  await admin.resource(R.configMaps, 'rs').create(cm('after'));
  await waitFor(() => inf.lister.get('after', 'rs') !== undefined, 10_000);
  assert.ok(inf.lister.get('before', 'rs'));
  assert.equal(inf.state(), 'watching');
});

test('should use a client certificate rotated in place without a restart', async (t) => {
  const srv = await startTestApiServer();
  t.after(() => srv.stop());
  const dir = srv.dataDir;
  const admin = await srv.server.pki.issueClientCertificate({ commonName: 'rotating-admin', organizations: ['system:masters'] });
  const nobody = await srv.server.pki.issueClientCertificate({ commonName: 'rotated-nobody' });
  writeFileSync(join(dir, 'client-ca.crt'), srv.server.pki.caPem);
  writeFileSync(join(dir, 'tls.crt'), admin.certPem);
  writeFileSync(join(dir, 'tls.key'), admin.keyPem, { mode: 0o600 });
  const kubeconfigPath = join(dir, 'rotating.kubeconfig');
  writeFileSync(kubeconfigPath, renderKubeconfig({ clusterName: 'hub', server: srv.url, certificateAuthority: 'client-ca.crt', user: { clientCertificate: 'tls.crt', clientKey: 'tls.key' } }));
  const client = createKubeClient({ kubeconfigPath });
  t.after(() => client.close());
  await client.resource(R.namespaces).list();
  writeFileSync(join(dir, 'tls.crt'), nobody.certPem);
  writeFileSync(join(dir, 'tls.key'), nobody.keyPem, { mode: 0o600 });
  const err = await client.resource(R.namespaces).list().catch((e: unknown) => e);
  assert.ok(isForbidden(err), String(err));
  assert.match((err as Error).message, /User "rotated-nobody"/);
});
