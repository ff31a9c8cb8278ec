import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject, ManagedFieldsEntry } from '../api/meta.js';
import { ApiStatusError, NetworkError, statusFromCode } from './errors.js';
import { FakeResourceClient } from './fake-resource-client.js';
import { replaceAll } from './informer-cache.js';
import { createInformer, type InformerEvent } from './informer.js';
import { createManualClock } from './manual-clock.js';
import { resourceTypes } from './resource-types.js';
import { waitFor } from '../../test/helpers/wait-for.js';

function cm(name: string, rv: string, labels?: Record<string, string>, namespace = 'ns'): KubeObject {
  return { metadata: { name, namespace, resourceVersion: rv, ...(labels ? { labels } : {}) } };
}

function setup(opts: { resyncMs?: number; dropManagedFields?: boolean } = {}) {
  const clock = createManualClock();
  const client = new FakeResourceClient(resourceTypes.configMaps, 'ns');
  const events: InformerEvent[] = [];
  const seen: string[] = [];
  const inf = createInformer(client, {
    clock,
    random: () => 0,
    backoff: { initialMs: 1000, maxMs: 30_000, resetAfterMs: 120_000, jitter: 0.5 },
    onEvent: (e) => events.push(e),
    resyncMs: opts.resyncMs ?? 0,
    pageSize: 0,
    ...(opts.dropManagedFields ? { dropManagedFields: true } : {}),
  });
  inf.addHandlers({
    onAdd: (o) => seen.push(`add ${o.metadata.name}@${o.metadata.resourceVersion}`),
    onUpdate: (a, b) => seen.push(`update ${b.metadata.name}@${a.metadata.resourceVersion}->${b.metadata.resourceVersion}`),
    onDelete: (o) => seen.push(`delete ${o.metadata.name}`),
  });
  const ac = new AbortController();
  return { clock, client, events, seen, inf, ac };
}

test('should list, sync, then watch from the list resourceVersion with bookmarks', async () => {
  const { client, seen, inf, ac } = setup();
  client.answerList({ items: [cm('a', '5'), cm('b', '6')], resourceVersion: '10' });
  assert.equal(inf.hasSynced(), false);
  inf.start(ac.signal);
  await inf.waitForSync();
  assert.deepEqual(seen, ['add a@5', 'add b@6']);
  await waitFor(() => client.watches.length === 1);
  const w = client.lastWatch();
  assert.equal(w.opts.resourceVersion, '10');
  assert.equal(w.opts.allowWatchBookmarks, true);
  assert.equal(inf.state(), 'watching');
  w.push({ type: 'ADDED', object: cm('c', '11') });
  w.push({ type: 'MODIFIED', object: cm('a', '12') });
  w.push({ type: 'MODIFIED', object: cm('a', '12') }); // same RV: not re-delivered
  w.push({ type: 'DELETED', object: cm('b', '13') });
  await waitFor(() => seen.length === 5);
  assert.deepEqual(seen.slice(2), ['add c@11', 'update a@5->12', 'delete b']);
  assert.equal(inf.lister.get('a', 'ns')?.metadata.resourceVersion, '12');
  assert.equal(inf.lister.get('b', 'ns'), undefined);
  assert.equal(inf.lister.get('a', 'ns')?.kind, 'ConfigMap', 'type meta filled in');
  ac.abort();
  await waitFor(() => inf.state() === 'stopped');
});

test('should cache listed and watched objects without managedFields when asked to, and keep them otherwise', async () => {
  const owned = (name: string, rv: string): KubeObject => {
    const { metadata } = cm(name, rv, { app: 'x' });
    const managedFields: ManagedFieldsEntry[] = [{ manager: 'm', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': {} } }];
    return { metadata: { ...metadata, managedFields }, data: { k: 'v' } };
  };
  for (const drop of [true, false]) {
    const { client, inf, ac } = setup({ dropManagedFields: drop });
    const listed = owned('a', '5');
    client.answerList({ items: [listed], resourceVersion: '10' });
    inf.start(ac.signal);
    await inf.waitForSync();
    await waitFor(() => client.watches.length === 1);
    client.lastWatch().push({ type: 'ADDED', object: owned('b', '11') });
    await waitFor(() => inf.lister.get('b', 'ns') !== undefined);
    for (const name of ['a', 'b']) {
      const cached = inf.lister.get(name, 'ns')!;
      assert.equal(cached.metadata.managedFields === undefined, drop, `${name}, drop=${drop}`);
      assert.deepEqual({ ...cached.metadata, managedFields: undefined }, { name, namespace: 'ns', resourceVersion: name === 'a' ? '5' : '11', labels: { app: 'x' }, managedFields: undefined });
      assert.deepEqual(cached['data'], { k: 'v' });
    }
    assert.equal(listed.metadata.managedFields?.length, 1, 'the listed object itself is left as it was');
    ac.abort();
    await waitFor(() => inf.state() === 'stopped');
  }
});

test('should resume at once from the last resourceVersion (bookmarks included) after a clean end', async () => {
  const { client, inf, ac, events } = setup();
  client.answerList({ items: [], resourceVersion: '10' });
  inf.start(ac.signal);
  await waitFor(() => client.watches.length === 1);
  client.lastWatch().push({ type: 'ADDED', object: cm('a', '11') });
  client.lastWatch().push({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '20' } } });
  client.lastWatch().end();
  await waitFor(() => client.watches.length === 2);
  assert.equal(client.lastWatch().opts.resourceVersion, '20');
  assert.equal(client.lists.length, 1, 'no relist');
  assert.ok(!events.some((e) => e.type === 'failure'), 'no backoff on a clean end');
  ac.abort();
});

test('should relist on an ERROR 410 event and emit deletes for vanished objects', async () => {
  const { client, inf, ac, seen } = setup();
  client.answerList({ items: [cm('a', '5'), cm('b', '6')], resourceVersion: '10' });
  client.answerList({ items: [cm('a', '5'), cm('c', '30')], resourceVersion: '31' });
  inf.start(ac.signal);
  await waitFor(() => client.watches.length === 1);
  client.lastWatch().push({ type: 'ERROR', object: { ...statusFromCode(410, 'too old resource version: 10 (25)'), reason: 'Expired' } as unknown as KubeObject });
  await waitFor(() => client.watches.length === 2);
  assert.equal(client.lists.length, 2);
  assert.equal(client.lastWatch().opts.resourceVersion, '31');
  assert.deepEqual(seen, ['add a@5', 'add b@6', 'add c@30', 'delete b']);
  assert.deepEqual(inf.lister.list().map((o) => o.metadata.name).sort(), ['a', 'c']);
  ac.abort();
});

test('should relist when the watch request itself answers 410', async () => {
  const { client, inf, ac } = setup();
  client.answerList({ items: [], resourceVersion: '10' });
  client.answerList({ items: [], resourceVersion: '40' });
  client.failNextWatch(new ApiStatusError(statusFromCode(410, 'gone')));
  inf.start(ac.signal);
  await waitFor(() => client.watches.length === 2);
  assert.equal(client.lists.length, 2);
  assert.equal(client.lastWatch().opts.resourceVersion, '40');
  ac.abort();
});

test('should back off on failures, doubling with jitter up to the cap, and retry forever', async () => {
  const { client, inf, ac, events, clock } = setup();
  client.answerList({ items: [], resourceVersion: '10' });
  inf.start(ac.signal);
  const delays: number[] = [];
  for (let i = 0; i < 7; i++) {
    await waitFor(() => client.watches.length === i + 1);
    client.lastWatch().fail(new NetworkError('connection reset'));
    await waitFor(() => inf.state() === 'backingOff' && clock.pending() > 0);
    const f = events.filter((e) => e.type === 'failure').at(-1);
    assert.ok(f && f.type === 'failure');
    delays.push(f.retryInMs);
    clock.advance(f.retryInMs);
  }
  assert.deepEqual(delays, [1000, 2000, 4000, 8000, 16000, 30000, 30000]);
  await waitFor(() => client.watches.length === 8);
  assert.equal(client.lastWatch().opts.resourceVersion, '10', 'keeps its resourceVersion across failures');
  assert.equal(client.lists.length, 1);
  // A healthy stretch longer than resetAfterMs resets the backoff.
  clock.advance(200_000);
  client.lastWatch().fail(new NetworkError('reset again'));
  await waitFor(() => events.filter((e) => e.type === 'failure').length === 8);
  const last = events.filter((e) => e.type === 'failure').at(-1);
  assert.ok(last && last.type === 'failure' && last.retryInMs === 1000);
  ac.abort();
  await waitFor(() => inf.state() === 'stopped');
});

test('should keep retrying a failing list and sync once it succeeds', async () => {
  const { client, inf, ac, clock } = setup();
  client.answerList(new ApiStatusError(statusFromCode(500, 'boom')));
  client.answerList(new ApiStatusError(statusFromCode(403, 'forbidden')));
  client.answerList({ items: [cm('a', '1')], resourceVersion: '2' });
  inf.start(ac.signal);
  await waitFor(() => inf.state() === 'backingOff');
  clock.advance(1000);
  await waitFor(() => client.lists.length === 2 && clock.pending() > 0);
  clock.advance(2000);
  await inf.waitForSync();
  assert.equal(inf.lister.list().length, 1);
  ac.abort();
});

test('should re-deliver cached objects as updates on resync', async () => {
  const { client, inf, ac, seen, clock } = setup({ resyncMs: 60_000 });
  client.answerList({ items: [cm('a', '1')], resourceVersion: '2' });
  inf.start(ac.signal);
  await inf.waitForSync();
  clock.advance(60_000);
  assert.deepEqual(seen, ['add a@1', 'update a@1->1']);
  clock.advance(60_000);
  assert.equal(seen.length, 3);
  ac.abort();
});

test('should list by namespace and label selector from the lister', async () => {
  const { client, inf, ac } = setup();
  client.answerList({ items: [cm('a', '1', { app: 'x' }), cm('b', '2', { app: 'y' }), cm('c', '3', { app: 'x' }, 'other')], resourceVersion: '9' });
  inf.start(ac.signal);
  await inf.waitForSync();
  assert.deepEqual(inf.lister.list({ labelSelector: 'app=x' }).map((o) => o.metadata.name).sort(), ['a', 'c']);
  assert.deepEqual(inf.lister.list({ namespace: 'ns', labelSelector: 'app in (x,y)' }).map((o) => o.metadata.name).sort(), ['a', 'b']);
  assert.equal(inf.lister.list({ namespace: 'none' }).length, 0);
  ac.abort();
});

test('should replay the cache as adds to a handler added late', async () => {
  const { client, inf, ac } = setup();
  client.answerList({ items: [cm('a', '1')], resourceVersion: '2' });
  inf.start(ac.signal);
  await inf.waitForSync();
  const late: string[] = [];
  inf.addHandlers({ onAdd: (o) => late.push(o.metadata.name ?? '') });
  assert.deepEqual(late, ['a']);
  ac.abort();
});

test('should reject waitForSync when its signal aborts first', async () => {
  const { inf } = setup();
  const ac = new AbortController();
  const p = inf.waitForSync(ac.signal);
  ac.abort(new Error('stop'));
  await assert.rejects(p, /stop/);
});

test('should diff a relist into adds, updates and deletes (pure)', () => {
  const cache = new Map<string, KubeObject>();
  replaceAll(cache, [cm('a', '1'), cm('b', '1')]);
  const deltas = replaceAll(cache, [cm('a', '2'), cm('c', '1')]);
  assert.deepEqual(
    deltas.map((d) => `${d.type} ${d.obj.metadata.name}`),
    ['update a', 'add c', 'delete b'],
  );
});

test('should restart a watch that outlives its timeoutSeconds (dead connection)', async () => {
  const { client, inf, ac, events, clock } = setup();
  client.answerList({ items: [], resourceVersion: '10' });
  inf.start(ac.signal);
  await waitFor(() => client.watches.length === 1);
  assert.equal(client.lastWatch().opts.timeoutSeconds, 300);
  clock.advance(300_000 + 29_999);
  await new Promise((r) => setImmediate(r));
  assert.equal(inf.state(), 'watching');
  clock.advance(1);
  await waitFor(() => inf.state() === 'backingOff');
  assert.match(String((events.find((e) => e.type === 'failure') as { err: Error }).err.message), /aborted|did not end/);
  clock.advance(1000);
  await waitFor(() => client.watches.length === 2);
  assert.equal(client.lastWatch().opts.resourceVersion, '10');
  ac.abort();
});
