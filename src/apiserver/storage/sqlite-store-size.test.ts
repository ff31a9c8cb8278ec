import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '../../api/meta.js';
import { openSqliteStore } from './sqlite-store.js';

function cm(ns: string, name: string, size = 0): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns }, data: { d: 'é'.repeat(size) } } as KubeObject;
}

function openTemp(t: { after(fn: () => void): void }) {
  const dir = mkdtempSync(join(tmpdir(), 'ocm-store-size-'));
  const s = openSqliteStore({ path: join(dir, 'state.db') });
  t.after(() => {
    s.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return s;
}

test('should size a collection by its stored bytes without listing it', (t) => {
  const s = openTemp(t);
  const stored = ['a', 'b', 'c'].map((n, i) => s.create(`/core/configmaps/ns1/${n}`, cm('ns1', n, 1000 * (i + 1))));
  s.create('/core/configmaps/ns10/x', cm('ns10', 'x', 5000));
  s.create('/core/configmaps/ns2/y', cm('ns2', 'y', 7000));
  s.create('/core/secrets/ns1/z', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'z', namespace: 'ns1' } });
  const bytesOf = (objs: KubeObject[]): number => objs.reduce((n, o) => n + Buffer.byteLength(JSON.stringify(o)), 0);

  const ns1 = s.listSize!('/core/configmaps/ns1/');
  assert.deepEqual(ns1, { items: 3, bytes: bytesOf(stored.map((x) => x.object)) });
  assert.equal(s.listSize!('/core/configmaps/').items, 5);
  assert.deepEqual(s.listSize!('/core/configmaps/ns1/', { startAfterKey: '/core/configmaps/ns1/a' }), { items: 2, bytes: bytesOf(stored.slice(1).map((x) => x.object)) });
  assert.equal(s.listSize!('/core/configmaps/ns1/a').items, 1, 'a full key addresses that one object');
  assert.deepEqual(s.listSize!('/core/nothing/'), { items: 0, bytes: 0 });
  s.delete('/core/configmaps/ns1/b');
  assert.equal(s.listSize!('/core/configmaps/ns1/').items, 2);
});

test('should report each listed item\'s stored size', (t) => {
  const s = openTemp(t);
  s.create('/core/configmaps/ns1/a', cm('ns1', 'a', 10));
  const [item] = s.list('/core/configmaps/').items;
  assert.ok(item!.bytes! >= JSON.stringify(item!.object).length - 2 && item!.bytes! <= Buffer.byteLength(JSON.stringify(item!.object)));
});
