import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import Database from 'better-sqlite3';
import type { KubeObject } from '../../api/meta.js';
import { openSqliteStore } from './sqlite-store.js';
import { StoreLockedError } from './store-errors.js';
import {
  StoreConflictError,
  StoreExistsError,
  StoreNotFoundError,
  type Store,
} from './types.js';

function tempDb(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'ocm-store-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'state.db');
}

function cm(ns: string, name: string, data: Record<string, string> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns }, data };
}

function open(t: { after(fn: () => void): void }, path: string): Store {
  const s = openSqliteStore({ path });
  t.after(() => s.close());
  return s;
}

test('should create, get, update, list and delete with stamped resourceVersions', (t) => {
  const s = open(t, tempDb(t));
  assert.equal(s.currentRevision(), 0);
  const input = cm('ns1', 'a', { k: 'v' });
  const a = s.create('/core/configmaps/ns1/a', input);
  assert.equal(a.revision, 1);
  assert.equal(a.object.metadata.resourceVersion, '1');
  assert.equal(input.metadata.resourceVersion, undefined, 'input must not be mutated');
  assert.deepEqual(s.get('/core/configmaps/ns1/a'), a);

  const u = s.update('/core/configmaps/ns1/a', { ...a.object, data: { k: 'w' } }, 1);
  assert.equal(u.revision, 2);
  assert.equal(u.object.metadata.resourceVersion, '2');
  assert.deepEqual(s.get('/core/configmaps/ns1/a')?.object.data, { k: 'w' });
  assert.equal(s.list('/core/configmaps/').items.length, 1);

  const d = s.delete('/core/configmaps/ns1/a');
  assert.equal(d.revision, 3);
  assert.equal(d.object.metadata.resourceVersion, '3');
  assert.deepEqual(d.object.data, { k: 'w' });
  assert.equal(s.get('/core/configmaps/ns1/a'), undefined);
  assert.deepEqual(s.list('/core/configmaps/'), { items: [], revision: 3, remaining: 0 });
  assert.equal(s.currentRevision(), 3);
});

test('should refuse a duplicate create and allow create after delete', (t) => {
  const s = open(t, tempDb(t));
  const key = '/core/configmaps/ns1/a';
  s.create(key, cm('ns1', 'a'));
  assert.throws(() => s.create(key, cm('ns1', 'a')), (e: unknown) => e instanceof StoreExistsError && e.current.revision === 1);
  assert.equal(s.currentRevision(), 1, 'a refused write consumes no revision');
  s.delete(key);
  const again = s.create(key, cm('ns1', 'a', { round: '2' }));
  assert.equal(again.revision, 3);
  s.delete(key);
  assert.equal(s.create(key, cm('ns1', 'a')).revision, 5);
});

test('should return the current object on a stale update or delete precondition', (t) => {
  const s = open(t, tempDb(t));
  const key = '/core/configmaps/ns1/a';
  const a = s.create(key, cm('ns1', 'a'));
  const b = s.update(key, cm('ns1', 'a', { v: '2' }), a.revision);
  assert.throws(
    () => s.update(key, cm('ns1', 'a', { v: 'stale' }), a.revision),
    (e: unknown) => e instanceof StoreConflictError && e.key === key && e.current?.revision === b.revision && e.current.object.data !== undefined,
  );
  assert.throws(() => s.delete(key, a.revision), (e: unknown) => e instanceof StoreConflictError && e.current?.revision === 2);
  assert.deepEqual(s.get(key)?.object.data, { v: '2' });
  assert.throws(() => s.update('/core/configmaps/ns1/missing', cm('ns1', 'missing')), StoreNotFoundError);
  assert.throws(() => s.delete('/core/configmaps/ns1/missing'), StoreNotFoundError);
  assert.equal(s.delete(key, b.revision).revision, 3);
  assert.equal(s.currentRevision(), 3);
});

test('should paginate lists in key order, with filter, and at a past revision', (t) => {
  const s = open(t, tempDb(t));
  for (const ns of ['ns1', 'ns2']) for (const n of ['c', 'a', 'b']) s.create(`/core/configmaps/${ns}/${n}`, cm(ns, n, { n }));
  s.create('/core/secrets/ns1/a', cm('ns1', 'a'));
  const at = s.currentRevision(); // 7

  const p1 = s.list('/core/configmaps/', { limit: 4 });
  assert.deepEqual(p1.items.map((i) => i.key), ['/core/configmaps/ns1/a', '/core/configmaps/ns1/b', '/core/configmaps/ns1/c', '/core/configmaps/ns2/a']);
  assert.equal(p1.revision, 7);
  assert.equal(p1.continueAfterKey, '/core/configmaps/ns2/a');
  assert.equal(p1.remaining, 2);

  // changes between pages must not show in a list pinned to the first page's revision
  s.delete('/core/configmaps/ns2/b');
  s.update('/core/configmaps/ns2/c', cm('ns2', 'c', { n: 'changed' }));
  s.create('/core/configmaps/ns2/d', cm('ns2', 'd'));
  const p2 = s.list('/core/configmaps/', { limit: 4, startAfterKey: p1.continueAfterKey, atRevision: at });
  assert.deepEqual(p2.items.map((i) => i.key), ['/core/configmaps/ns2/b', '/core/configmaps/ns2/c']);
  assert.deepEqual(p2.items[1]!.object.data, { n: 'c' });
  assert.equal(p2.items[1]!.object.metadata.resourceVersion, String(p2.items[1]!.revision));
  assert.equal(p2.revision, at);
  assert.equal(p2.continueAfterKey, undefined);
  assert.equal(p2.remaining, 0);

  const now = s.list('/core/configmaps/ns2/');
  assert.deepEqual(now.items.map((i) => i.key), ['/core/configmaps/ns2/a', '/core/configmaps/ns2/c', '/core/configmaps/ns2/d']);
  assert.equal(now.revision, 10);

  const hist = s.list('/core/configmaps/', { atRevision: at, limit: 1, startAfterKey: '/core/configmaps/ns1/c' });
  assert.deepEqual(hist.items.map((i) => i.key), ['/core/configmaps/ns2/a']);
  assert.equal(hist.remaining, 2);

  const filtered = s.list('/core/configmaps/', { limit: 1, filter: (o) => o.metadata.name === 'c' });
  assert.deepEqual(filtered.items.map((i) => i.key), ['/core/configmaps/ns1/c']);
  assert.equal(filtered.continueAfterKey, '/core/configmaps/ns1/c');
  assert.equal(filtered.remaining, undefined, 'unknown with a filter');
  const rest = s.list('/core/configmaps/', { limit: 1, filter: (o) => o.metadata.name === 'c', startAfterKey: filtered.continueAfterKey });
  assert.deepEqual(rest.items.map((i) => i.key), ['/core/configmaps/ns2/c']);
  assert.equal(rest.continueAfterKey, undefined);

  assert.deepEqual(s.list('/core/configmaps/ns1/b').items.map((i) => i.key), ['/core/configmaps/ns1/b'], 'full key lists one object');
  assert.equal(s.list('/core/configmaps/', { atRevision: 1 }).items.length, 1);
});

test('should keep revisions, objects and meta across a restart and never reuse a revision', (t) => {
  const path = tempDb(t);
  const s1 = openSqliteStore({ path });
  s1.create('/core/configmaps/ns1/a', cm('ns1', 'a'));
  s1.create('/core/configmaps/ns1/b', cm('ns1', 'b'));
  s1.delete('/core/configmaps/ns1/b'); // the top row of the log is a delete
  s1.setMeta('ca.crt', 'PEM');
  assert.throws(() => s1.setMeta('store.compact_rev', '9'), /reserved/);
  s1.close();
  s1.close(); // idempotent

  const s2 = open(t, path);
  assert.equal(s2.currentRevision(), 3);
  assert.equal(s2.get('/core/configmaps/ns1/a')?.revision, 1);
  assert.equal(s2.get('/core/configmaps/ns1/b'), undefined);
  assert.equal(s2.getMeta('ca.crt'), 'PEM');
  assert.equal(s2.getMeta('store.schema_version'), '2');
  assert.equal(s2.create('/core/configmaps/ns1/c', cm('ns1', 'c')).revision, 4);
  assert.equal(s2.list('/core/configmaps/', { atRevision: 2 }).items.length, 2);
});

test('should fail clearly when another process holds the database', (t) => {
  const path = tempDb(t);
  const s = open(t, path);
  s.create('/core/configmaps/ns1/a', cm('ns1', 'a'));
  assert.throws(() => openSqliteStore({ path, lockWaitMs: 10 }), (e: unknown) => e instanceof StoreLockedError && e.ownerPid === process.pid);
  const script = `
    import { openSqliteStore } from ${JSON.stringify(new URL('./sqlite-store.ts', import.meta.url).pathname)};
    try { openSqliteStore({ path: ${JSON.stringify(path)}, lockWaitMs: 10 }); console.log('OPENED'); }
    catch (e) { console.log(e.name + ': ' + e.message); }`;
  const res = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.equal(res.status, 0, res.stderr);
  assert.match(res.stdout, new RegExp(`StoreLockedError: storage .*state\\.db is already in use by pid ${process.pid}`));
  assert.equal(s.get('/core/configmaps/ns1/a')?.revision, 1, 'the owner is unaffected');
});

test('should work in memory and validate options', (t) => {
  const s = openSqliteStore({ path: ':memory:' });
  t.after(() => s.close());
  s.create('/core/configmaps/ns1/a', cm('ns1', 'a'));
  assert.equal(s.get('/core/configmaps/ns1/a')?.revision, 1);
  assert.throws(() => openSqliteStore({ path: ':memory:', watchBufferLimit: 0 }), /watchBufferLimit/);
  assert.throws(() => openSqliteStore({ path: '' }), /path/);
  assert.throws(() => s.list('/core/configmaps/', { atRevision: -1 }), /atRevision must be a non-negative integer/);
  assert.throws(() => s.list('/core/configmaps/', { limit: 1.5 }), /limit/);
  assert.throws(() => s.watch('/core/configmaps/', { fromRevision: Number.NaN, onEvent: () => undefined }), /fromRevision/);
  assert.throws(() => s.update('/core/configmaps/ns1/a', cm('ns1', 'a'), -2), /expectedRevision/);
  for (const bad of ['', 'core/configmaps/ns/a', '/core/configmaps/ns/', '/core/configmaps/ns/a\u0000b']) {
    assert.throws(() => s.create(bad, cm('ns', 'a')), /invalid storage key/);
  }
  s.close();
  assert.throws(() => s.get('/core/configmaps/ns1/a'), /closed/);
  assert.throws(() => s.list('/core/configmaps/', { atRevision: 0 }), /closed/);
});

test('should make the database itself reject two writes from the same base revision', (t) => {
  const path = tempDb(t);
  const s = openSqliteStore({ path });
  s.create('/core/configmaps/ns1/a', cm('ns1', 'a')); // rev 1, base 0
  s.update('/core/configmaps/ns1/a', cm('ns1', 'a', { v: '2' })); // rev 2, base 1
  s.close();
  const db = new Database(path);
  t.after(() => db.close());
  const insert = db.prepare("INSERT INTO revisions (key, op, value, prev_rev, created_ms) VALUES (?, 'MODIFIED', '{}', ?, 0)");
  assert.throws(() => insert.run('/core/configmaps/ns1/a', 1), (e: unknown) => (e as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE');
  assert.equal(insert.run('/core/configmaps/ns1/a', 2).lastInsertRowid, 3);
});
