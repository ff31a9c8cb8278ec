import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../api/meta.js';
import { matchesLabels, parseLabelSelector } from '../api/label-selectors.js';
import { statusFromCode } from './errors.js';
import { FakeResourceClient } from './fake-resource-client.js';
import { remove, replaceAll, upsert } from './informer-cache.js';
import { IndexedCache, parseLabelSelectorCached } from './informer-index.js';
import { createInformer } from './informer.js';
import { splitKey } from './keys.js';
import { createManualClock } from './manual-clock.js';
import { resourceTypes } from './resource-types.js';
import { waitFor } from '../../test/helpers/wait-for.js';

function obj(name: string, namespace: string | undefined, rv: string, labels?: Record<string, string>): KubeObject {
  return { metadata: { name, ...(namespace ? { namespace } : {}), resourceVersion: rv, ...(labels ? { labels } : {}) } };
}

/** What the lister answered before the indexes: every cached object checked, in the cache's order. */
function bruteForce(cache: Map<string, KubeObject>, namespace: string | undefined, selector: string | undefined): KubeObject[] {
  const sel = selector ? parseLabelSelector(selector) : undefined;
  return [...cache].filter(([key, o]) => (namespace === undefined || splitKey(key).namespace === namespace) && (!sel || matchesLabels(sel, o.metadata.labels))).map(([, o]) => o);
}

const names = (os: KubeObject[]): string[] => os.map((o) => `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`);

function setup() {
  const client = new FakeResourceClient(resourceTypes.configMaps);
  const inf = createInformer(client, { clock: createManualClock(), random: () => 0, pageSize: 0 });
  return { client, inf, ac: new AbortController() };
}

test('should list by namespace and by =, ==, in selectors combined with != and !key, in cache order', async () => {
  const { client, inf, ac } = setup();
  client.answerList({
    items: [
      obj('a', 'n1', '1', { app: 'x', tier: 'web' }),
      obj('b', 'n1', '2', { app: 'y' }),
      obj('c', 'n2', '3', { app: 'x', legacy: 'true' }),
      obj('d', 'n2', '4', { app: 'z', tier: 'db' }),
      obj('e', undefined, '5', { app: 'x' }),
      obj('f', 'n1', '6'),
    ],
    resourceVersion: '10',
  });
  inf.start(ac.signal);
  await inf.waitForSync();
  const list = (opts: { namespace?: string; labelSelector?: string }): string[] => names(inf.lister.list(opts));
  assert.deepEqual(list({ namespace: 'n1' }), ['n1/a', 'n1/b', 'n1/f']);
  assert.deepEqual(list({ namespace: 'n3' }), []);
  assert.deepEqual(list({ namespace: '' }), [], 'cluster-scoped objects have no namespace, not the empty one');
  assert.deepEqual(list({ labelSelector: 'app=x' }), ['n1/a', 'n2/c', '/e']);
  assert.deepEqual(list({ labelSelector: 'app==x' }), ['n1/a', 'n2/c', '/e']);
  assert.deepEqual(list({ labelSelector: 'app in (z,x)' }), ['n1/a', 'n2/c', 'n2/d', '/e'], 'union of the values, in cache order');
  assert.deepEqual(list({ labelSelector: 'app=x,!legacy' }), ['n1/a', '/e']);
  assert.deepEqual(list({ labelSelector: 'app in (x,y),tier!=web' }), ['n1/b', 'n2/c', '/e']);
  assert.deepEqual(list({ namespace: 'n2', labelSelector: 'app in (x,z),tier' }), ['n2/d']);
  assert.deepEqual(list({ labelSelector: 'app=w' }), []);
  assert.deepEqual(list({ labelSelector: 'missing=1' }), []);
  assert.deepEqual(list({ labelSelector: 'app notin (x)' }), ['n1/b', 'n2/d', 'n1/f'], 'no usable index: the scan');
  assert.deepEqual(list({ labelSelector: '' }), ['n1/a', 'n1/b', 'n2/c', 'n2/d', '/e', 'n1/f']);
  assert.throws(() => inf.lister.list({ labelSelector: 'app in ()x' }), /unable to parse|found/);
  ac.abort();
});

test('should follow label changes, deletes, re-adds and a relist that drops objects', async () => {
  const { client, inf, ac } = setup();
  client.answerList({ items: [obj('a', 'n1', '1', { app: 'x' }), obj('b', 'n1', '2', { app: 'y' }), obj('c', 'n2', '3', { app: 'x' })], resourceVersion: '10' });
  client.answerList({ items: [obj('b', 'n1', '20', { app: 'x' }), obj('d', 'n2', '21', { app: 'x' })], resourceVersion: '22' });
  inf.start(ac.signal);
  await inf.waitForSync();
  await waitFor(() => client.watches.length === 1);
  const w = client.lastWatch();
  const ofX = (): string[] => names(inf.lister.list({ labelSelector: 'app=x' }));
  // b gains app=x: it keeps its place in the cache, so it is listed between a and c.
  w.push({ type: 'MODIFIED', object: obj('b', 'n1', '11', { app: 'x' }) });
  await waitFor(() => inf.lister.get('b', 'n1')?.metadata.resourceVersion === '11');
  assert.deepEqual(ofX(), ['n1/a', 'n1/b', 'n2/c']);
  assert.deepEqual(names(inf.lister.list({ labelSelector: 'app=y' })), []);
  // a loses its labels; c is deleted then re-added, which puts it last.
  w.push({ type: 'MODIFIED', object: obj('a', 'n1', '12') });
  w.push({ type: 'DELETED', object: obj('c', 'n2', '13', { app: 'x' }) });
  await waitFor(() => inf.lister.get('c', 'n2') === undefined);
  assert.deepEqual(ofX(), ['n1/b']);
  assert.deepEqual(names(inf.lister.list({ namespace: 'n2' })), []);
  w.push({ type: 'ADDED', object: obj('c', 'n2', '14', { app: 'x' }) });
  w.push({ type: 'ADDED', object: obj('e', 'n1', '15', { app: 'x' }) });
  await waitFor(() => inf.lister.get('e', 'n1') !== undefined);
  assert.deepEqual(ofX(), ['n1/b', 'n2/c', 'n1/e']);
  assert.deepEqual(names(inf.lister.list({ namespace: 'n1', labelSelector: 'app=x' })), ['n1/b', 'n1/e']);
  // A 410 relists: a, c and e vanish, d arrives.
  w.push({ type: 'ERROR', object: { ...statusFromCode(410, 'too old'), reason: 'Expired' } as unknown as KubeObject });
  await waitFor(() => client.watches.length === 2);
  assert.deepEqual(ofX(), ['n1/b', 'n2/d']);
  assert.deepEqual(names(inf.lister.list({ namespace: 'n2' })), ['n2/d']);
  assert.deepEqual(names(inf.lister.list({ namespace: 'n1' })), ['n1/b']);
  ac.abort();
});

test('should answer from the candidates alone, without reading the labels of other objects', () => {
  const cache = new IndexedCache<KubeObject>();
  let reads = 0;
  for (let i = 0; i < 50; i++) {
    const labels = { 'open-cluster-management.io/cluster-name': `c${i % 10}` };
    const o: KubeObject = { metadata: { name: `csr-${i}`, resourceVersion: '1' } };
    Object.defineProperty(o.metadata, 'labels', { enumerable: true, get: () => (reads++, labels) });
    cache.set(`csr-${i}`, o);
  }
  reads = 0;
  const got = cache.select(undefined, parseLabelSelector('open-cluster-management.io/cluster-name=c3'));
  assert.deepEqual(got.map((o) => o.metadata.name), ['csr-3', 'csr-13', 'csr-23', 'csr-33', 'csr-43']);
  assert.equal(reads, 5, 'only the five candidates were checked');
  reads = 0;
  cache.select(undefined, parseLabelSelector('open-cluster-management.io/cluster-name!=c3'));
  assert.equal(reads, 50, 'a selector without = or in checks every object');
});

test('should drop index entries once their last object is gone', () => {
  const cache = new IndexedCache<KubeObject>();
  upsert(cache, obj('a', 'n1', '1', { app: 'x', tier: 'web' }));
  upsert(cache, obj('b', 'n1', '1', { app: 'x' }));
  upsert(cache, obj('c', undefined, '1', { app: 'y' }));
  assert.deepEqual(cache.indexSizes(), { namespaces: 1, labelKeys: 2, labelValues: 3 });
  upsert(cache, obj('a', 'n1', '2', { app: 'x' }));
  assert.deepEqual(cache.indexSizes(), { namespaces: 1, labelKeys: 1, labelValues: 2 }, 'tier=web gone with its last object');
  upsert(cache, obj('c', undefined, '2'));
  assert.deepEqual(cache.indexSizes(), { namespaces: 1, labelKeys: 1, labelValues: 1 });
  remove(cache, obj('a', 'n1', '3'));
  replaceAll(cache, []);
  assert.equal(cache.size, 0);
  assert.deepEqual(cache.indexSizes(), { namespaces: 0, labelKeys: 0, labelValues: 0 });
  assert.equal(cache.delete('nothing'), false);
  upsert(cache, obj('d', 'n2', '1', { app: 'x' }));
  cache.clear();
  assert.deepEqual(cache.indexSizes(), { namespaces: 0, labelKeys: 0, labelValues: 0 });
  assert.deepEqual(cache.select('n2', undefined), []);
});

test('should answer like a full scan, order included, over a random sequence of writes', () => {
  // A small linear congruential generator: the same sequence on every run.
  let seed = 12345;
  const rand = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const namespaces = [undefined, 'n1', 'n2', 'n3'];
  const randomLabels = (): Record<string, string> | undefined => {
    if (rand(5) === 0) return undefined;
    const labels: Record<string, string> = {};
    for (const k of ['app', 'tier', 'zone']) if (rand(3) > 0) labels[k] = ['a', 'b', 'c', ''][rand(4)] as string;
    return labels;
  };
  const randomObj = (rv: number): KubeObject => obj(`o${rand(30)}`, namespaces[rand(namespaces.length)], String(rv), randomLabels());
  const queries: Array<[string | undefined, string | undefined]> = [];
  for (const ns of [undefined, 'n1', 'n2', 'n3', 'n9', '']) {
    for (const sel of [undefined, 'app=a', 'app==b', 'app=', 'app in (a,c)', 'app in (a,b,c),tier=b', 'app=a,tier!=a', 'app in (b),!zone', 'zone,tier notin (a)', 'tier=c,zone in (a,b)', 'nope=a']) {
      queries.push([ns, sel]);
    }
  }
  const cache = new IndexedCache<KubeObject>();
  for (let step = 0; step < 400; step++) {
    const op = rand(10);
    if (op < 5) upsert(cache, randomObj(step));
    else if (op < 8) remove(cache, randomObj(step));
    else if (op < 9) {
      const items = Array.from({ length: rand(25) }, () => randomObj(step));
      replaceAll(cache, [...new Map(items.map((o) => [`${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`, o])).values()]);
    } else {
      const [key] = [...cache.keys()].slice(rand(Math.max(1, cache.size)));
      if (key !== undefined) cache.delete(key);
    }
    for (const [ns, sel] of queries) {
      const want = bruteForce(cache, ns, sel);
      const got = cache.select(ns, sel ? parseLabelSelectorCached(sel) : undefined);
      assert.deepEqual(names(got), names(want), `step ${step}: namespace ${String(ns)}, selector ${String(sel)}`);
      assert.ok(got.every((o, i) => o === want[i]), 'the cached objects themselves');
      assert.equal(cache.count(ns, sel ? parseLabelSelectorCached(sel) : undefined), want.length, `count at step ${step}: namespace ${String(ns)}, selector ${String(sel)}`);
    }
    assert.equal(cache.count(undefined, { requirements: [] }), cache.size);
    assert.equal(cache.count(undefined, { requirements: [], matchNothing: true }), 0);
  }
  replaceAll(cache, []);
  assert.deepEqual(cache.indexSizes(), { namespaces: 0, labelKeys: 0, labelValues: 0 });
});

test('should reuse the parsed form of a repeated selector and still throw on bad ones', () => {
  const a = parseLabelSelectorCached('app=x,tier in (a,b)');
  assert.equal(parseLabelSelectorCached('app=x,tier in (a,b)'), a);
  assert.deepEqual(a, parseLabelSelector('app=x,tier in (a,b)'));
  assert.throws(() => parseLabelSelectorCached('app in ('));
  assert.throws(() => parseLabelSelectorCached('app in ('));
  for (let i = 0; i < 300; i++) parseLabelSelectorCached(`k=v${i}`);
  assert.notEqual(parseLabelSelectorCached('app=x,tier in (a,b)'), a, 'evicted once 256 newer strings were parsed');
});
