// WATCH over HTTPS: initial events, resume, selector transitions, 410, timeouts, bookmarks, and the
// client-node informer (add/update/delete, relist after 410).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CoreV1Api, makeInformer, type V1ConfigMap } from '@kubernetes/client-node';
import { startTestApiServer, type TestApiServer } from '../helpers/embedded-server.js';
import { rawClient, type RawClient } from '../helpers/raw-client.js';
import { waitFor } from '../helpers/wait-for.js';

describe('apiserver watch', () => {
  let srv: TestApiServer;
  let raw: RawClient;
  let core: CoreV1Api;
  before(async () => {
    srv = await startTestApiServer({
      retention: { minRevisions: 0, minAgeMs: 0 },
      compactIntervalMs: 3_600_000,
      // Watches without timeoutSeconds end after 0.4–0.8 s (the informer test relies on it).
      timings: { bookmarkIntervalMs: 100, minRequestTimeoutMs: 400 },
    });
    raw = rawClient(srv.kubeConfig);
    core = srv.kubeConfig.makeApiClient(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: 'w' } } });
  });
  after(async () => {
    raw.close();
    await srv.stop();
  });

  const cm = (name: string, labels: Record<string, string> = {}) => ({ metadata: { name, labels }, data: { v: '1' } });

  it('should send initial ADDED events, then changes, with headers flushed before any event', async () => {
    await core.createNamespacedConfigMap({ namespace: 'w', body: cm('a') });
    const s = await raw.stream('/api/v1/namespaces/w/configmaps?watch=true&timeoutSeconds=60&fieldSelector=metadata.name%3Da');
    assert.equal(s.status, 200);
    assert.equal(s.headers['content-type'], 'application/json');
    const first = await s.next();
    assert.equal(first.type, 'ADDED');
    assert.equal(first.object.kind, 'ConfigMap');
    assert.equal(first.object.apiVersion, 'v1');
    await core.patchNamespacedConfigMap({ name: 'a', namespace: 'w', body: [{ op: 'replace', path: '/data/v', value: '2' }] });
    const second = await s.next();
    assert.equal(second.type, 'MODIFIED');
    assert.equal(second.object.data.v, '2');
    await core.deleteNamespacedConfigMap({ name: 'a', namespace: 'w' });
    const third = await s.next();
    assert.equal(third.type, 'DELETED');
    assert.ok(Number(third.object.metadata.resourceVersion) > Number(second.object.metadata.resourceVersion));
    s.close();
  });

  it('should resume from a resourceVersion without duplicates', async () => {
    const c = await core.createNamespacedConfigMap({ namespace: 'w', body: cm('b') });
    const rv = c.metadata?.resourceVersion;
    await core.patchNamespacedConfigMap({ name: 'b', namespace: 'w', body: [{ op: 'replace', path: '/data/v', value: '2' }] });
    await core.patchNamespacedConfigMap({ name: 'b', namespace: 'w', body: [{ op: 'replace', path: '/data/v', value: '3' }] });
    const s = await raw.stream(`/api/v1/namespaces/w/configmaps?watch=1&timeoutSeconds=60&resourceVersion=${rv}&fieldSelector=metadata.name%3Db`);
    const e1 = await s.next();
    const e2 = await s.next();
    assert.deepEqual([e1.type, e1.object.data.v, e2.type, e2.object.data.v], ['MODIFIED', '2', 'MODIFIED', '3']);
    await assert.rejects(s.next(200));
    s.close();
  });

  it('should turn label-selector transitions into ADDED/DELETED', async () => {
    await core.createNamespacedConfigMap({ namespace: 'w', body: cm('c', { team: 'x' }) });
    const s = await raw.stream('/api/v1/namespaces/w/configmaps?watch=true&timeoutSeconds=60&labelSelector=team%3Dx');
    const initial = await s.next();
    assert.equal(initial.object.metadata.name, 'c');
    await core.patchNamespacedConfigMap({ name: 'c', namespace: 'w', body: [{ op: 'replace', path: '/metadata/labels/team', value: 'y' }] });
    const gone = await s.next();
    assert.equal(gone.type, 'DELETED');
    assert.equal(gone.object.metadata.labels.team, 'x');
    await core.patchNamespacedConfigMap({ name: 'c', namespace: 'w', body: [{ op: 'replace', path: '/metadata/labels/team', value: 'x' }] });
    const back = await s.next();
    assert.equal(back.type, 'ADDED');
    s.close();
  });

  it('should send ERROR 410 and close for a compacted resourceVersion', async () => {
    const c = await core.createNamespacedConfigMap({ namespace: 'w', body: cm('d') });
    await core.patchNamespacedConfigMap({ name: 'd', namespace: 'w', body: [{ op: 'replace', path: '/data/v', value: '2' }] });
    srv.store.compact();
    assert.ok(srv.store.compactedRevision() > Number(c.metadata?.resourceVersion));
    const s = await raw.stream(`/api/v1/namespaces/w/configmaps?watch=true&resourceVersion=${c.metadata?.resourceVersion}`);
    assert.equal(s.status, 200);
    const ev = await s.next();
    assert.equal(ev.type, 'ERROR');
    assert.equal(ev.object.code, 410);
    assert.equal(ev.object.reason, 'Expired');
    await s.ended;
    const list = await raw.request('GET', `/api/v1/namespaces/w/configmaps?limit=1&resourceVersion=${c.metadata?.resourceVersion}`);
    assert.equal(list.status, 410);
  });

  it('should end the stream after timeoutSeconds and send bookmarks when asked', async () => {
    const s = await raw.stream(`/api/v1/namespaces/w/secrets?watch=true&timeoutSeconds=1&allowWatchBookmarks=true&resourceVersion=${srv.store.currentRevision()}`);
    const started = Date.now();
    const bm = await s.next(3000);
    assert.equal(bm.type, 'BOOKMARK');
    assert.equal(bm.object.kind, 'Secret');
    assert.match(bm.object.metadata.resourceVersion, /^\d+$/);
    await s.ended;
    assert.ok(Date.now() - started < 3000);
  });

  it('should bookmark a narrowed watch past the writes to other objects it never saw', async () => {
    const s = await raw.stream(`/api/v1/namespaces/w/configmaps?watch=true&timeoutSeconds=5&allowWatchBookmarks=true&fieldSelector=metadata.name%3Dbm-mine&resourceVersion=${srv.store.currentRevision()}`);
    const others = await core.createNamespacedConfigMap({ namespace: 'w', body: cm('bm-other', { app: 'x' }) });
    const other = Number(others.metadata?.resourceVersion);
    let bm = await s.next(3000);
    while (Number(bm.object.metadata.resourceVersion) < other) bm = await s.next(3000);
    assert.equal(bm.type, 'BOOKMARK', 'no event of another object reached the watch');
    s.close();
  });

  it('should answer 504 for a resourceVersion in the future', async () => {
    const future = srv.store.currentRevision() + 1000;
    const res = await raw.request('GET', `/api/v1/namespaces/w/configmaps?resourceVersion=${future}`);
    assert.equal(res.status, 504);
    assert.equal(res.json.details.causes[0].reason, 'ResourceVersionTooLarge');
  });

  it('should feed a client-node informer (add, update, delete) and relist after 410', async () => {
    let lists = 0;
    const listFn = async () => {
      lists++;
      return core.listNamespacedConfigMap({ namespace: 'w', labelSelector: 'inf=1' });
    };
    const informer = makeInformer<V1ConfigMap>(srv.kubeConfig, '/api/v1/namespaces/w/configmaps', listFn, 'inf=1');
    const seen: string[] = [];
    informer.on('add', (o) => seen.push(`add:${o.metadata?.name}`));
    informer.on('update', (o) => seen.push(`update:${o.metadata?.name}:${o.data?.v}`));
    informer.on('delete', (o) => seen.push(`delete:${o.metadata?.name}`));
    const errors: unknown[] = [];
    informer.on('error', (e) => errors.push(e));
    await informer.start();
    await core.createNamespacedConfigMap({ namespace: 'w', body: cm('i1', { inf: '1' }) });
    await waitFor(() => seen.includes('add:i1'), 5000);
    await core.patchNamespacedConfigMap({ name: 'i1', namespace: 'w', body: [{ op: 'replace', path: '/data/v', value: '9' }] });
    await waitFor(() => seen.includes('update:i1:9'), 5000);
    // Make the informer's resourceVersion too old: write elsewhere, compact; its next re-watch
    // (server timeout 0.4–0.8 s) gets 410 and it lists again.
    const listsBefore = lists;
    for (let i = 0; i < 5; i++) await core.createNamespacedSecret({ namespace: 'w', body: { metadata: { name: `noise${i}` } } });
    srv.store.compact();
    await waitFor(() => lists > listsBefore, 8000, { message: 'informer did not relist' });
    await core.deleteNamespacedConfigMap({ name: 'i1', namespace: 'w' });
    await waitFor(() => seen.includes('delete:i1'), 5000);
    await informer.stop();
    assert.deepEqual(errors.filter((e) => !(e instanceof Error && e.name === 'AbortError')), []);
  });
});
