import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../api/meta.js';
import { ApiError } from '../http/errors.js';
import { openSqliteStore } from '../storage/sqlite-store.js';
import type { Store } from '../storage/types.js';
import { readList, type ListReadOptions } from './list-reader.js';

const PREFIX = '/core/configmaps/ns/';

function storeWith(t: { after(fn: () => void): void }, count: number, padBytes: number): Store {
  const s = openSqliteStore({ path: ':memory:' });
  t.after(() => s.close());
  for (let i = 0; i < count; i++) {
    const name = `cm-${String(i).padStart(3, '0')}`;
    s.create(`${PREFIX}${name}`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns', labels: { even: String(i % 2 === 0) } }, data: { pad: 'x'.repeat(padBytes) } } as KubeObject);
  }
  return s;
}

/** The same store without the size estimate (as a store that cannot size a collection cheaply). */
function withoutListSize(s: Store): Store {
  const { listSize: _unused, ...rest } = s;
  void _unused;
  return rest as Store;
}

async function collect(store: Store, o: Partial<ListReadOptions>) {
  const read = await readList(store, { prefix: PREFIX, toWire: (x) => x, maxBytes: Number.POSITIVE_INFINITY, ...o });
  const batches: string[][] = [];
  for await (const b of read.batches) batches.push(b.map((x) => x.metadata.name ?? ''));
  return { ...read, batches, names: batches.flat() };
}

const names = (n: number, pick: (i: number) => boolean = () => true): string[] =>
  Array.from({ length: n }, (_, i) => i).filter(pick).map((i) => `cm-${String(i).padStart(3, '0')}`);

test('should read a whole collection in batches of about 2 MiB', async (t) => {
  const store = storeWith(t, 40, 200 * 1024);
  const r = await collect(store, {});
  assert.deepEqual(r.names, names(40));
  assert.ok(r.batches.length >= 4, `${r.batches.length} batches`);
  assert.ok(r.batches.every((b) => b.length <= 10), r.batches.map((b) => b.length).join(','));
  assert.equal(r.continueAfterKey, undefined);
});

test('should refuse a whole list above the cap with 413 before reading it', async (t) => {
  const store = storeWith(t, 20, 10 * 1024);
  for (const s of [store, withoutListSize(store)]) {
    await assert.rejects(collect(s, { maxBytes: 100 * 1024 }), (e: unknown) => e instanceof ApiError && e.code === 413 && /limit and continue/.test(e.message));
  }
});

test('should size a selected list by what it selects', async (t) => {
  const store = storeWith(t, 20, 10 * 1024);
  const even = (o: KubeObject): boolean => o.metadata.labels?.even === 'true';
  const fewer = (o: KubeObject): boolean => o.metadata.name === 'cm-003';
  assert.deepEqual((await collect(store, { filter: fewer, maxBytes: 100 * 1024 })).names, ['cm-003']);
  await assert.rejects(collect(store, { filter: even, maxBytes: 100 * 1024 }), (e: unknown) => e instanceof ApiError && e.code === 413);
  assert.deepEqual((await collect(withoutListSize(store), { filter: fewer, maxBytes: 100 * 1024 })).names, ['cm-003']);
});

test('should size a list whose selector pins a label by the objects carrying it', async (t) => {
  const store = storeWith(t, 20, 10 * 1024);
  const sized: unknown[] = [];
  const spy: Store = { ...store, listSize: (prefix, opts) => (sized.push(opts), store.listSize!(prefix, opts)) };
  const even = (o: KubeObject): boolean => o.metadata.labels?.even === 'true';
  const hints = { label: { key: 'even', values: ['true'] } };
  // 10 labelled objects of about 10 KiB: over a 50 KiB cap, under a 150 KiB one.
  await assert.rejects(collect(spy, { filter: even, hints, maxBytes: 50 * 1024 }), (e: unknown) => e instanceof ApiError && e.code === 413);
  assert.deepEqual((await collect(spy, { filter: even, hints, maxBytes: 150 * 1024 })).names, names(20, (i) => i % 2 === 0));
  assert.deepEqual(sized, [{ hints }, { hints }]);
  // At a past revision the count of the current state is taken unhinted, as without a hint.
  sized.length = 0;
  const at = store.currentRevision();
  assert.deepEqual((await collect(spy, { filter: even, hints, atRevision: at })).names, names(20, (i) => i % 2 === 0));
  assert.deepEqual(sized, [{}]);
});

test('should cut a page at the limit or at the cap, with continue and remaining count', async (t) => {
  const store = storeWith(t, 20, 10 * 1024);
  const byLimit = await collect(store, { limit: 5 });
  assert.deepEqual(byLimit.names, names(5));
  assert.equal(byLimit.continueAfterKey, `${PREFIX}cm-004`);
  assert.equal(byLimit.remaining, 15);

  const bySize = await collect(store, { limit: 500, maxBytes: 35 * 1024 });
  assert.deepEqual(bySize.names, names(3));
  assert.equal(bySize.remaining, 17);

  // One item larger than the cap still makes a page of its own.
  const tiny = await collect(store, { limit: 500, maxBytes: 10 });
  assert.deepEqual(tiny.names, names(1));

  const last = await collect(store, { limit: 5, startAfterKey: `${PREFIX}cm-014` });
  assert.deepEqual(last.names, names(20).slice(15));
  assert.equal(last.continueAfterKey, undefined);
});

test('should page a selected list without a remaining count', async (t) => {
  const store = storeWith(t, 20, 100);
  const even = (o: KubeObject): boolean => o.metadata.labels?.even === 'true';
  const page = await collect(store, { limit: 3, filter: even });
  assert.deepEqual(page.names, names(6, (i) => i % 2 === 0));
  assert.equal(page.continueAfterKey, `${PREFIX}cm-004`);
  assert.equal(page.remaining, undefined);
  // Exactly the last matches: no continue token for an empty next page.
  const tail = await collect(store, { limit: 2, filter: even, startAfterKey: `${PREFIX}cm-015` });
  assert.deepEqual(tail.names, ['cm-016', 'cm-018']);
  assert.equal(tail.continueAfterKey, undefined);
});

test('should read every batch at the revision of the first one', async (t) => {
  const store = storeWith(t, 30, 200 * 1024);
  const read = await readList(store, { prefix: PREFIX, toWire: (x) => x, maxBytes: Number.POSITIVE_INFINITY });
  const seen: string[] = [];
  let wrote = false;
  for await (const b of read.batches) {
    seen.push(...b.map((x) => x.metadata.name ?? ''));
    if (!wrote) {
      store.delete(`${PREFIX}cm-029`);
      store.create(`${PREFIX}cm-100`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm-100', namespace: 'ns' } } as KubeObject);
      wrote = true;
    }
  }
  assert.deepEqual(seen, names(30));
  assert.ok(read.revision < store.currentRevision());
});

test('should honour a huge limit', async (t) => {
  const store = storeWith(t, 3, 10);
  assert.deepEqual((await collect(store, { limit: 1e20 })).names, names(3));
});
