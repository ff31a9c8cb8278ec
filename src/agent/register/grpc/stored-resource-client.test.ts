import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject, WatchEvent } from '../../../api/meta.js';
import { ApiStatusError, isAlreadyExists, isGone, isNotFound } from '../../../client/errors.js';
import { createManualClock } from '../../../client/manual-clock.js';
import { resourceTypes } from '../../../client/resource-types.js';
import { createObjectStore, revisionToken } from './object-store.js';
import { createStoredResourceClient, mergePatch, watchEventFor, type KindWrites } from './stored-resource-client.js';

const lease = (name: string, labels: Record<string, string> = {}, rv = '1'): KubeObject => ({ metadata: { name, namespace: 'c1', labels, resourceVersion: rv } });

function setup(writes: KindWrites<KubeObject> = {}) {
  const store = createObjectStore<KubeObject>({ historyLimit: 16 });
  const calls: Array<[string, KubeObject]> = [];
  const record = (verb: keyof KindWrites<KubeObject>) => async (obj: KubeObject): Promise<void> => {
    calls.push([verb, obj]);
    await writes[verb]?.(obj);
  };
  const client = createStoredResourceClient<KubeObject>({
    type: resourceTypes.leases,
    namespace: 'c1',
    store,
    ready: async () => {},
    writes: { create: record('create'), update: record('update'), updateStatus: record('updateStatus') },
    generateName: (p) => `${p}xyz`,
    clock: createManualClock(),
  });
  return { store, client, calls };
}

async function collect(it: AsyncIterable<WatchEvent<KubeObject>>, n: number): Promise<Array<WatchEvent<KubeObject>>> {
  const out: Array<WatchEvent<KubeObject>> = [];
  for await (const e of it) {
    out.push(e);
    if (out.length === n) break;
  }
  return out;
}

test('should list the selected objects at the store revision', async () => {
  const { store, client } = setup();
  store.apply(lease('a', { app: 'x' }));
  store.apply(lease('b', { app: 'y' }));
  store.apply({ metadata: { name: 'other-ns', namespace: 'c2', labels: { app: 'x' } } });
  const all = await client.list();
  assert.deepEqual(all.items.map((i) => i.metadata.name), ['a', 'b']);
  assert.equal(all.metadata.resourceVersion, revisionToken(3));
  assert.equal(all.kind, 'LeaseList');
  assert.deepEqual((await client.list({ labelSelector: 'app=x' })).items.map((i) => i.metadata.name), ['a']);
  assert.deepEqual((await client.list({ fieldSelector: 'metadata.name=b' })).items.map((i) => i.metadata.name), ['b']);
});

test('should get a copy of a stored object, and 404 for one the hub has not sent', async () => {
  const { store, client } = setup();
  store.apply(lease('a'));
  const got = await client.get('a');
  got.metadata.name = 'changed';
  assert.equal(store.get('c1', 'a')?.metadata.name, 'a');
  await assert.rejects(client.get('b'), (e) => isNotFound(e) && /leases.coordination.k8s.io "b" not found/.test((e as Error).message));
});

test('should watch from a list revision, with a bookmark after each change', async () => {
  const { store, client } = setup();
  store.apply(lease('a'));
  const list = await client.list();
  store.apply(lease('a', {}, '2'));
  const ac = new AbortController();
  const events = collect(client.watch({ resourceVersion: list.metadata.resourceVersion!, allowWatchBookmarks: true, signal: ac.signal }), 4);
  setImmediate(() => store.remove('c1', 'a'));
  const got = await events;
  ac.abort();
  assert.deepEqual(got.map((e) => [e.type, e.object.metadata.resourceVersion]), [['MODIFIED', '2'], ['BOOKMARK', revisionToken(2)], ['DELETED', '2'], ['BOOKMARK', revisionToken(3)]]);
});

test('should answer a watch from a hub resourceVersion with 410, so the informer lists again', async () => {
  const { client } = setup();
  await assert.rejects(collect(client.watch({ resourceVersion: '12345' }), 1), (e) => isGone(e));
});

test('should end a watch after its timeout', async () => {
  const store = createObjectStore<KubeObject>({ historyLimit: 4 });
  const clock = createManualClock();
  const client = createStoredResourceClient<KubeObject>({ type: resourceTypes.leases, namespace: 'c1', store, ready: async () => {}, writes: {}, clock });
  const done = collect(client.watch({ timeoutSeconds: 5 }), 10);
  await new Promise((r) => setImmediate(r));
  clock.advance(5000);
  assert.deepEqual(await done, []);
});

test('should see objects entering and leaving a selection as added and deleted', () => {
  const matches = (o: KubeObject): boolean => o.metadata.labels?.['app'] === 'x';
  const x = lease('a', { app: 'x' });
  const y = lease('a', { app: 'y' });
  assert.equal(watchEventFor({ type: 'MODIFIED', object: x, previous: y, revision: 1 }, matches)?.type, 'ADDED');
  assert.equal(watchEventFor({ type: 'MODIFIED', object: y, previous: x, revision: 1 }, matches)?.type, 'DELETED');
  assert.equal(watchEventFor({ type: 'MODIFIED', object: x, previous: x, revision: 1 }, matches)?.type, 'MODIFIED');
  assert.equal(watchEventFor({ type: 'MODIFIED', object: y, previous: y, revision: 1 }, matches), undefined);
  assert.equal(watchEventFor({ type: 'DELETED', object: y, previous: y, revision: 1 }, matches), undefined);
});

test('should patch status onto the stored object and publish the whole object', async () => {
  const { store, client, calls } = setup();
  store.apply({ metadata: { name: 'a', namespace: 'c1', resourceVersion: '5' }, status: { conditions: [{ type: 'A' }], version: { kubernetes: 'v1' } } });
  const out = await client.patch('a', 'merge', { status: { conditions: [{ type: 'B' }], version: null } }, { subresource: 'status' });
  assert.deepEqual(calls.map(([v]) => v), ['updateStatus']);
  assert.deepEqual(calls[0]![1], { metadata: { name: 'a', namespace: 'c1', resourceVersion: '5' }, status: { conditions: [{ type: 'B' }] } });
  assert.deepEqual(out.status, { conditions: [{ type: 'B' }] });
  await assert.rejects(client.patch('a', 'merge', {}), (e) => e instanceof ApiStatusError && e.code === 405);
  await assert.rejects(client.patch('a', 'json', [], { subresource: 'status' }), (e) => e instanceof ApiStatusError && e.code === 415);
});

test('should name a generateName create, and refuse a create of an object it holds', async () => {
  const { store, client, calls } = setup();
  const created = await client.create({ metadata: { generateName: 'c1-' } });
  assert.equal(created.metadata.name, 'c1-xyz');
  assert.equal(calls[0]![1].metadata.namespace, 'c1');
  store.apply(lease('a'));
  await assert.rejects(client.create(lease('a')), (e) => isAlreadyExists(e));
});

test('should forget an object the hub answers NotFound for', async () => {
  const notFound = new ApiStatusError({ apiVersion: 'v1', kind: 'Status', metadata: {}, status: 'Failure', code: 404, reason: 'NotFound' });
  const { store, client } = setup({ update: async () => Promise.reject(notFound) });
  store.apply(lease('a'));
  await assert.rejects(client.update(lease('a')), (e) => isNotFound(e));
  assert.equal(store.get('c1', 'a'), undefined);
});

test('should refuse delete with 405', async () => {
  const { client } = setup();
  await assert.rejects(client.delete('a'), (e) => e instanceof ApiStatusError && e.code === 405);
});

test('should merge-patch as RFC 7386', () => {
  assert.deepEqual(mergePatch({ a: 1, b: { c: 2, d: 3 } }, { b: { c: null, e: 4 }, f: [1] }), { a: 1, b: { d: 3, e: 4 }, f: [1] });
  assert.deepEqual(mergePatch({ a: 1 }, 'x'), 'x');
});
