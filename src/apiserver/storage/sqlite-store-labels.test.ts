// The label index of the SQLite store: a filtered list whose hints pin a label must return exactly
// what the full scan with the same filter returns (items, paging, remaining), at the current
// revision, after every kind of write, and after an upgrade built the index from an older database.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { KubeObject } from '../../api/meta.js';
import { matchesLabels, parseLabelSelector } from '../../api/label-selectors.js';
import { openSqliteStore } from './sqlite-store.js';
import type { ListOptions, SelectorHints, Store } from './types.js';

const PREFIX = '/core/configmaps/';
const CLUSTER = 'open-cluster-management.io/cluster-name';

function tempDb(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'ocm-store-labels-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'state.db');
}

function cm(ns: string, name: string, labels?: Record<string, string>): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns, ...(labels ? { labels } : {}) }, data: { n: name } };
}

interface Selection {
  filter: (o: KubeObject) => boolean;
  hints: SelectorHints;
}

/** The predicate and hint of a `<key>=<value>` or `<key> in (...)` selector, as the HTTP layer builds them. */
function select(selector: string): Selection {
  const sel = parseLabelSelector(selector);
  const r = sel.requirements[0]!;
  return { filter: (o) => matchesLabels(sel, o.metadata.labels), hints: { label: { key: r.key, values: r.values } } };
}

type Page = { keys: string[]; revs: number[]; revision: number; continueAfterKey?: string; remaining?: number };

function page(s: Store, prefix: string, opts: ListOptions): Page {
  const r = s.list(prefix, opts);
  return {
    keys: r.items.map((i) => i.key),
    revs: r.items.map((i) => i.revision),
    revision: r.revision,
    ...(r.continueAfterKey !== undefined ? { continueAfterKey: r.continueAfterKey } : {}),
    ...(r.remaining !== undefined ? { remaining: r.remaining } : {}),
  };
}

/** Every page of a paged read through the hint and through the scan (same filter); asserts they agree. */
function assertSameAsScan(s: Store, prefix: string, sel: Selection, limit: number, extra: ListOptions = {}): string[] {
  const seen: string[] = [];
  let after = extra.startAfterKey;
  for (let guard = 0; guard < 1000; guard++) {
    const base: ListOptions = { ...extra, filter: sel.filter, ...(limit > 0 ? { limit } : {}), ...(after !== undefined ? { startAfterKey: after } : {}) };
    const hinted = page(s, prefix, { ...base, hints: sel.hints });
    const scanned = page(s, prefix, base);
    assert.deepEqual(hinted, scanned, `page after ${String(after)}`);
    seen.push(...hinted.keys);
    if (hinted.continueAfterKey === undefined) return seen;
    after = hinted.continueAfterKey;
  }
  throw new Error('paging did not end');
}

/** Keys the index returns for a hint, with a filter that keeps everything (shows the index is read). */
function indexed(s: Store, prefix: string, hints: SelectorHints): string[] {
  return s.list(prefix, { filter: () => true, hints }).items.map((i) => i.key);
}

test('should list by label from the index exactly as the scan does, across creates, updates and deletes', (t) => {
  const s = openSqliteStore({ path: ':memory:' });
  t.after(() => s.close());
  const a = select(`${CLUSTER}=a`);
  s.create('/core/configmaps/ns1/x', cm('ns1', 'x', { [CLUSTER]: 'a' }));
  s.create('/core/configmaps/ns1/y', cm('ns1', 'y', { [CLUSTER]: 'b' }));
  s.create('/core/configmaps/ns2/z', cm('ns2', 'z'));
  s.create('/core/secrets/ns1/x', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x', namespace: 'ns1', labels: { [CLUSTER]: 'a' } } });
  assert.deepEqual(assertSameAsScan(s, PREFIX, a, 0), ['/core/configmaps/ns1/x']);
  assert.deepEqual(indexed(s, PREFIX, a.hints), ['/core/configmaps/ns1/x'], 'the other collection and unlabelled objects are not read');

  s.update('/core/configmaps/ns2/z', cm('ns2', 'z', { [CLUSTER]: 'a', other: 'v' })); // label added
  s.update('/core/configmaps/ns1/y', cm('ns1', 'y', { [CLUSTER]: 'a' })); // label changed b -> a
  s.update('/core/configmaps/ns1/x', cm('ns1', 'x', { [CLUSTER]: 'a' })); // labels unchanged
  assert.deepEqual(assertSameAsScan(s, PREFIX, a, 0), ['/core/configmaps/ns1/x', '/core/configmaps/ns1/y', '/core/configmaps/ns2/z']);
  assert.deepEqual(indexed(s, PREFIX, select(`${CLUSTER}=b`).hints), []);
  assert.deepEqual(indexed(s, PREFIX, select('other=v').hints), ['/core/configmaps/ns2/z']);

  s.update('/core/configmaps/ns1/x', cm('ns1', 'x')); // labels removed
  s.delete('/core/configmaps/ns2/z');
  assert.deepEqual(assertSameAsScan(s, PREFIX, a, 0), ['/core/configmaps/ns1/y']);
  assert.deepEqual(indexed(s, PREFIX, a.hints), ['/core/configmaps/ns1/y']);
  assert.deepEqual(indexed(s, PREFIX, select('other=v').hints), []);
  assert.deepEqual(indexed(s, '/core/configmaps/ns1/', a.hints), ['/core/configmaps/ns1/y'], 'the key range still applies');
  assert.deepEqual(indexed(s, '/core/configmaps/ns1/y', a.hints), ['/core/configmaps/ns1/y']);
  assert.deepEqual(indexed(s, '/core/configmaps/ns1/yy', a.hints), []);

  s.create('/core/configmaps/ns2/z', cm('ns2', 'z', { [CLUSTER]: 'c' })); // re-created with another value
  assert.deepEqual(indexed(s, PREFIX, a.hints), ['/core/configmaps/ns1/y']);
  assert.deepEqual(indexed(s, PREFIX, select(`${CLUSTER}=c`).hints), ['/core/configmaps/ns2/z']);
});

test('should page a label read with limit and startAfterKey, merging several values in key order', (t) => {
  const s = openSqliteStore({ path: ':memory:' });
  t.after(() => s.close());
  const values = ['a', 'b', 'c', 'd'];
  for (let i = 0; i < 40; i++) {
    const name = `o${String(i).padStart(2, '0')}`;
    s.create(`/core/configmaps/ns${i % 3}/${name}`, cm(`ns${i % 3}`, name, { [CLUSTER]: values[i % 4]!, v: String(i % 5) }));
  }
  const multi = select(`${CLUSTER} in (c,a,a,zz)`);
  for (const limit of [0, 1, 2, 3, 7, 100]) {
    const keys = assertSameAsScan(s, PREFIX, multi, limit);
    assert.equal(keys.length, 20);
    assert.deepEqual(keys, [...keys].sort(), 'key order across values');
    assert.equal(assertSameAsScan(s, '/core/configmaps/ns1/', multi, limit).length, 6);
    assertSameAsScan(s, PREFIX, multi, limit, { startAfterKey: '/core/configmaps/ns1/o10' });
    assertSameAsScan(s, PREFIX, select(`${CLUSTER}=b`), limit);
    assertSameAsScan(s, PREFIX, select(`${CLUSTER} in (a,b,c,d)`), limit);
  }
  // More values than one merged statement takes: the sorted fallback gives the same result.
  const many = Array.from({ length: 30 }, (_, i) => `x${i}`).concat(['d', 'b']);
  assert.equal(assertSameAsScan(s, PREFIX, select(`${CLUSTER} in (${many.join(',')})`), 3).length, 20);
  // A filter stricter than the hint: the filter still decides every item.
  const strict = select(`${CLUSTER}=a`);
  const both = parseLabelSelector(`${CLUSTER}=a,v=0`);
  const narrowed = { filter: (o: KubeObject) => matchesLabels(both, o.metadata.labels), hints: strict.hints };
  assert.deepEqual(assertSameAsScan(s, PREFIX, narrowed, 2), ['/core/configmaps/ns2/o20', '/core/configmaps/ns0/o00'].sort());
  // Without a filter a hint means nothing: every object is listed and remaining is counted.
  const r = s.list(PREFIX, { limit: 5, hints: strict.hints });
  assert.equal(r.items.length, 5);
  assert.equal(r.remaining, 35);
});

test('should read a past revision from the log, not from the index of the current state', (t) => {
  const s = openSqliteStore({ path: ':memory:' });
  t.after(() => s.close());
  const a = select(`${CLUSTER}=a`);
  s.create('/core/configmaps/ns1/x', cm('ns1', 'x', { [CLUSTER]: 'a' }));
  const before = s.create('/core/configmaps/ns1/y', cm('ns1', 'y', { [CLUSTER]: 'a' })).revision;
  s.update('/core/configmaps/ns1/x', cm('ns1', 'x', { [CLUSTER]: 'b' }));
  s.delete('/core/configmaps/ns1/y');
  s.create('/core/configmaps/ns1/w', cm('ns1', 'w', { [CLUSTER]: 'a' }));
  const past = s.list(PREFIX, { filter: a.filter, hints: a.hints, atRevision: before });
  assert.equal(past.revision, before);
  assert.deepEqual(past.items.map((i) => i.key), ['/core/configmaps/ns1/x', '/core/configmaps/ns1/y']);
  assertSameAsScan(s, PREFIX, a, 1, { atRevision: before });
  const now = s.list(PREFIX, { filter: a.filter, hints: a.hints, atRevision: s.currentRevision() });
  assert.deepEqual(now.items.map((i) => i.key), ['/core/configmaps/ns1/w']);
});

test('should size a hinted collection from the index, counting only objects with the label', (t) => {
  const s = openSqliteStore({ path: ':memory:' });
  t.after(() => s.close());
  const x = s.create('/core/configmaps/ns1/x', cm('ns1', 'x', { [CLUSTER]: 'a' }));
  s.create('/core/configmaps/ns1/y', cm('ns1', 'y', { [CLUSTER]: 'b' }));
  const z = s.create('/core/configmaps/ns2/z', cm('ns2', 'z', { [CLUSTER]: 'a' }));
  s.create('/core/secrets/ns1/x', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x', namespace: 'ns1', labels: { [CLUSTER]: 'a' } } });
  const bytes = (o: KubeObject): number => Buffer.byteLength(JSON.stringify(o));
  const hints = select(`${CLUSTER}=a`).hints;
  assert.deepEqual(s.listSize!(PREFIX, { hints }), { items: 2, bytes: bytes(x.object) + bytes(z.object) });
  assert.deepEqual(s.listSize!(PREFIX, { hints, startAfterKey: '/core/configmaps/ns1/x' }), { items: 1, bytes: bytes(z.object) });
  assert.deepEqual(s.listSize!(PREFIX, { hints: select(`${CLUSTER} in (a,b,b)`).hints }).items, 3);
  assert.deepEqual(s.listSize!(PREFIX).items, 3);
});

/** Rows of the index, and the rows a fresh build from `objects` would hold. */
function indexRows(path: string): { kept: string[]; rebuilt: string[] } {
  const db = new Database(path, { readonly: true });
  try {
    const kept = db.prepare('SELECT name, value, key FROM object_labels ORDER BY name, value, key').all();
    const rebuilt = db
      .prepare(
        `SELECT j.key AS name, j.value AS value, o.key AS key FROM objects o, json_each(o.value, '$.metadata.labels') j
          WHERE j.type = 'text' ORDER BY 1, 2, 3`,
      )
      .all();
    return { kept: kept.map((r) => JSON.stringify(r)), rebuilt: rebuilt.map((r) => JSON.stringify(r)) };
  } finally {
    db.close();
  }
}

test('should build the index when opening a database written before it existed', (t) => {
  const path = tempDb(t);
  const s1 = openSqliteStore({ path });
  for (let i = 0; i < 12; i++) s1.create(`/core/configmaps/ns1/o${i}`, cm('ns1', `o${i}`, { [CLUSTER]: `c${i % 3}`, odd: String(i % 2) }));
  s1.update('/core/configmaps/ns1/o0', cm('ns1', 'o0', { [CLUSTER]: 'c9' }));
  s1.delete('/core/configmaps/ns1/o1');
  s1.close();
  // What an older hub leaves behind: no index table, schema version 1.
  const db = new Database(path);
  db.exec("DROP TABLE object_labels; UPDATE meta SET value = '1' WHERE name = 'store.schema_version'");
  db.close();

  const s2 = openSqliteStore({ path });
  assert.equal(s2.getMeta('store.schema_version'), '2');
  assert.deepEqual(indexed(s2, PREFIX, select(`${CLUSTER}=c0`).hints), ['/core/configmaps/ns1/o3', '/core/configmaps/ns1/o6', '/core/configmaps/ns1/o9']);
  assert.deepEqual(indexed(s2, PREFIX, select(`${CLUSTER}=c9`).hints), ['/core/configmaps/ns1/o0']);
  assertSameAsScan(s2, PREFIX, select(`${CLUSTER} in (c1,c2)`), 2);
  assertSameAsScan(s2, PREFIX, select('odd=1'), 0);
  s2.update('/core/configmaps/ns1/o3', cm('ns1', 'o3', { [CLUSTER]: 'c1' }));
  s2.close();
  const rows = indexRows(path);
  assert.equal(rows.kept.length, 20); // 11 objects with two labels each, o0 and o3 now with one
  assert.deepEqual(rows.kept, rows.rebuilt);

  // A database of a newer schema is refused rather than written without its index.
  const db2 = new Database(path);
  db2.exec("UPDATE meta SET value = '3' WHERE name = 'store.schema_version'");
  db2.close();
  assert.throws(() => openSqliteStore({ path }), /unsupported schema version 3/);
});

function rng(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x / 2 ** 32;
  };
}

test('should agree with the scan over random writes and reads (seeded)', (t) => {
  const path = tempDb(t);
  const s = openSqliteStore({ path, durability: 'per-commit' });
  const rand = rng(42);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const names = Array.from({ length: 25 }, (_, i) => `o${i}`);
  const namespaces = ['ns1', 'ns2', 'ns10'];
  const vals = ['a', 'b', 'c', 'a=b', ''];
  const randomLabels = (): Record<string, string> | undefined => {
    if (rand() < 0.15) return undefined;
    const l: Record<string, string> = {};
    if (rand() < 0.8) l[CLUSTER] = pick(vals.slice(0, 3));
    if (rand() < 0.5) l.k = pick(vals);
    if (rand() < 0.3) l.x = 'y';
    return l;
  };
  const selectors = [`${CLUSTER}=a`, `${CLUSTER}==b`, `${CLUSTER} in (a,c)`, `${CLUSTER} in (a,b,c)`, 'k=a', 'k in (b,c)', 'x=y'];
  const prefixes = [PREFIX, '/core/configmaps/ns1/', '/core/configmaps/ns10/', '/core/configmaps/ns2/o3'];
  for (let step = 0; step < 400; step++) {
    const ns = pick(namespaces);
    const name = pick(names);
    const key = `/core/configmaps/${ns}/${name}`;
    const cur = s.get(key);
    if (!cur) s.create(key, cm(ns, name, randomLabels()));
    else if (rand() < 0.25) s.delete(key);
    else s.update(key, cm(ns, name, randomLabels()));
    if (step % 10 === 0) {
      const sel = select(pick(selectors));
      assertSameAsScan(s, pick(prefixes), sel, pick([0, 1, 2, 5]));
      const hinted = s.listSize!(PREFIX, { hints: sel.hints }).items;
      assert.equal(hinted, indexed(s, PREFIX, sel.hints).length);
    }
  }
  s.close();
  const rows = indexRows(path);
  assert.ok(rows.kept.length > 0);
  assert.deepEqual(rows.kept, rows.rebuilt, 'the index holds exactly the labels of the current objects');
});
