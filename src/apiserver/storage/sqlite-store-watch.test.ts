import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '../../api/meta.js';
import { isNarrowPrefix, openSqliteStore, type SqliteStoreOptions } from './sqlite-store.js';
import type { Store, StoreEvent } from './types.js';
import { waitFor } from '../../../test/helpers/wait-for.js';

function open(t: { after(fn: () => void): void }, extra: Partial<SqliteStoreOptions> = {}): Store {
  const dir = mkdtempSync(join(tmpdir(), 'ocm-store-watch-'));
  const s = openSqliteStore({ path: join(dir, 'state.db'), ...extra });
  t.after(() => {
    s.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return s;
}

function cm(ns: string, name: string, v = '0'): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns, labels: { v } } };
}

function assertContiguous(revs: number[], from: number, to: number): void {
  const expected = Array.from({ length: to - from + 1 }, (_, i) => from + i);
  assert.deepEqual(revs, expected);
}

test('should replay from a past revision then stream live, without gaps or duplicates', async (t) => {
  const s = open(t, { watchReplayPageSize: 20 });
  for (let i = 0; i < 250; i++) s.create(`/core/configmaps/ns1/o${i}`, cm('ns1', `o${i}`)); // revs 1..250
  const got: StoreEvent[] = [];
  let writesDuringReplay = 0;
  const w = s.watch('/core/configmaps/', {
    fromRevision: 30,
    onEvent: (ev) => {
      got.push(ev);
      // writes while the replay is still paging through history
      if (got.length % 30 === 0 && ev.revision <= 250) {
        s.update(`/core/configmaps/ns1/o${got.length}`, cm('ns1', `o${got.length}`, 'x'));
        writesDuringReplay++;
      }
    },
  });
  t.after(() => w.close());
  // and writes from elsewhere in the event loop
  for (let i = 0; i < 20; i++) {
    await new Promise((r) => setImmediate(r));
    s.create(`/core/configmaps/ns2/l${i}`, cm('ns2', `l${i}`));
  }
  await waitFor(() => got.length > 0 && got[got.length - 1]!.revision === s.currentRevision());
  assert.ok(writesDuringReplay >= 5);
  assertContiguous(got.map((e) => e.revision), 31, s.currentRevision());
  for (const ev of got) assert.equal(ev.object.metadata.resourceVersion, String(ev.revision));
  const mod = got.find((e) => e.type === 'MODIFIED')!;
  assert.equal(mod.prevObject?.metadata.labels?.v, '0');
  assert.equal(mod.object.metadata.labels?.v, 'x');
});

test('should deliver only events under the prefix, or for one full key', async (t) => {
  const s = open(t);
  const nsEvents: StoreEvent[] = [];
  const keyEvents: StoreEvent[] = [];
  const w1 = s.watch('/core/secrets/ns1/', { fromRevision: 0, onEvent: (ev) => void nsEvents.push(ev) });
  const w2 = s.watch('/core/secrets/ns1/a', { fromRevision: 0, onEvent: (ev) => void keyEvents.push(ev) });
  t.after(() => (w1.close(), w2.close()));
  s.create('/core/secrets/ns1/a', cm('ns1', 'a'));
  s.create('/core/secrets/ns1/ab', cm('ns1', 'ab'));
  s.create('/core/secrets/ns10/a', cm('ns10', 'a'));
  s.create('/core/configmaps/ns1/a', cm('ns1', 'a'));
  s.update('/core/secrets/ns1/a', cm('ns1', 'a', '1'));
  s.delete('/core/secrets/ns1/a');
  await waitFor(() => nsEvents.length === 4 && keyEvents.length === 3);
  assert.deepEqual(nsEvents.map((e) => [e.type, e.key]), [
    ['ADDED', '/core/secrets/ns1/a'],
    ['ADDED', '/core/secrets/ns1/ab'],
    ['MODIFIED', '/core/secrets/ns1/a'],
    ['DELETED', '/core/secrets/ns1/a'],
  ]);
  const del = keyEvents[2]!;
  assert.equal(del.type, 'DELETED');
  assert.equal(del.revision, 6);
  assert.equal(del.object.metadata.resourceVersion, '6');
  assert.equal(del.prevObject?.metadata.resourceVersion, '5');
  assert.equal(del.object.metadata.labels?.v, '1', 'DELETED carries the last state');
  // the same history replayed gives the same events
  const replayed: StoreEvent[] = [];
  const w3 = s.watch('/core/secrets/ns1/a', { fromRevision: 1, onEvent: (ev) => void replayed.push(ev) });
  t.after(() => w3.close());
  await waitFor(() => replayed.length === 2);
  assert.deepEqual(replayed, keyEvents.slice(1));
});

test('should drop a slow subscriber without holding back the others or the writer', async (t) => {
  const s = open(t, { watchBufferLimit: 5 });
  const closes: string[] = [];
  let slowSeen = 0;
  const fast: number[] = [];
  const slow = s.watch('/core/configmaps/', {
    fromRevision: 0,
    onEvent: () => {
      slowSeen++;
      return new Promise<void>(() => undefined); // a consumer whose socket never drains
    },
    onClose: (r) => void closes.push(r),
  });
  const quick = s.watch('/core/configmaps/', { fromRevision: 0, onEvent: (ev) => void fast.push(ev.revision) });
  t.after(() => (slow.close(), quick.close()));
  for (let i = 0; i < 3; i++) s.create(`/core/configmaps/ns/a${i}`, cm('ns', `a${i}`));
  await waitFor(() => slowSeen === 1 && fast.length === 3);
  // one write per turn of the event loop, as requests arrive (a synchronous burst larger than the
  // buffer limit would overflow every subscriber, by design)
  for (let i = 3; i < 20; i++) {
    s.create(`/core/configmaps/ns/a${i}`, cm('ns', `a${i}`));
    await new Promise((r) => setImmediate(r));
  }
  await waitFor(() => closes.length === 1 && fast.length === 20);
  assert.deepEqual(closes, ['slow']);
  assert.equal(slowSeen, 1);
  assertContiguous(fast, 1, 20);
});

test('should wait for a consumer promise before the next event (backpressure)', async (t) => {
  const s = open(t);
  const seen: number[] = [];
  let release: (() => void) | undefined;
  const w = s.watch('/core/configmaps/', {
    fromRevision: 0,
    onEvent: (ev) => {
      seen.push(ev.revision);
      return new Promise<void>((r) => (release = r));
    },
  });
  t.after(() => w.close());
  for (let i = 0; i < 3; i++) s.create(`/core/configmaps/ns/a${i}`, cm('ns', `a${i}`));
  await waitFor(() => seen.length === 1);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(seen, [1]);
  release!();
  await waitFor(() => seen.length === 2);
  release!();
  await waitFor(() => seen.length === 3);
  assert.deepEqual(seen, [1, 2, 3]);
});

test('should start after fromRevision when it is ahead, and close watchers with the store', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'ocm-store-watch-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const s = openSqliteStore({ path: join(dir, 'db') });
  s.create('/core/configmaps/ns/a', cm('ns', 'a'));
  const seen: number[] = [];
  const closes: string[] = [];
  s.watch('/core/configmaps/', { fromRevision: 3, onEvent: (ev) => void seen.push(ev.revision), onClose: (r) => void closes.push(r) });
  for (let i = 0; i < 4; i++) s.update('/core/configmaps/ns/a', cm('ns', 'a', String(i)));
  await waitFor(() => seen.length === 2);
  assert.deepEqual(seen, [4, 5]);
  s.close();
  assert.deepEqual(closes, ['closed']);
  assert.throws(() => s.watch('/core/configmaps/', { fromRevision: 0, onEvent: () => undefined }), /closed/);
});

test('should drop a subscriber whose callback throws, with onClose', async (t) => {
  const s = open(t);
  const closes: string[] = [];
  s.watch('/core/configmaps/', {
    fromRevision: 0,
    onEvent: () => {
      throw new Error('boom');
    },
    onClose: (r) => void closes.push(r),
  });
  s.create('/core/configmaps/ns/a', cm('ns', 'a'));
  await waitFor(() => closes.length === 1);
  s.create('/core/configmaps/ns/b', cm('ns', 'b'));
  assert.deepEqual(closes, ['closed']);
});

test('should pass a watch label hint to the fan-out: only events whose object carried the label, before or after', async (t) => {
  const s = open(t);
  const hinted: [string, string][] = [];
  const all: number[] = [];
  const w1 = s.watch('/core/configmaps/', { fromRevision: 0, hints: { label: { key: 'v', values: ['x'] } }, onEvent: (ev) => void hinted.push([ev.type, ev.key]) });
  const w2 = s.watch('/core/configmaps/', { fromRevision: 0, onEvent: (ev) => void all.push(ev.revision) });
  t.after(() => (w1.close(), w2.close()));
  s.create('/core/configmaps/ns/a', cm('ns', 'a')); // v=0
  s.create('/core/configmaps/ns/b', cm('ns', 'b', 'x'));
  s.update('/core/configmaps/ns/a', cm('ns', 'a', 'x')); // label value now matches
  s.update('/core/configmaps/ns/a', cm('ns', 'a', '1')); // and no longer does
  s.update('/core/configmaps/ns/a', cm('ns', 'a', '2'));
  s.delete('/core/configmaps/ns/b');
  await waitFor(() => all.length === 6 && hinted.length === 4);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(hinted, [
    ['ADDED', '/core/configmaps/ns/b'],
    ['MODIFIED', '/core/configmaps/ns/a'],
    ['MODIFIED', '/core/configmaps/ns/a'],
    ['DELETED', '/core/configmaps/ns/b'],
  ]);
});

test('should replay history for a label-hinted watch with only the rows whose object carried the label, before or after', async (t) => {
  const s = open(t, { watchReplayPageSize: 3 });
  s.create('/core/configmaps/ns/first', cm('ns', 'first', 'x')); // before the watch's revision: not replayed
  const start = s.currentRevision();
  s.create('/core/configmaps/ns/a', cm('ns', 'a')); // v=0
  for (let i = 0; i < 20; i++) s.create(`/core/configmaps/ns/other${i}`, cm('ns', `other${i}`, 'y')); // pages with nothing for the watch
  s.create('/core/configmaps/ns/b', cm('ns', 'b', 'x'));
  s.update('/core/configmaps/ns/a', cm('ns', 'a', 'x')); // label value now matches
  s.update('/core/configmaps/ns/a', cm('ns', 'a', '1')); // and no longer does
  s.update('/core/configmaps/ns/a', cm('ns', 'a', '2'));
  s.create('/core/configmaps/ns/c', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns', annotations: { v: 'x' } } }); // the text "v":"x", not a label
  s.delete('/core/configmaps/ns/b');
  // One value (filtered inside SQLite) and an `in` set (filtered before parsing).
  const one: [string, string][] = [];
  const set: [string, string][] = [];
  const w1 = s.watch('/core/configmaps/', { fromRevision: start, hints: { label: { key: 'v', values: ['x'] } }, onEvent: (ev) => void one.push([ev.type, ev.key]) });
  const w2 = s.watch('/core/configmaps/', { fromRevision: start, hints: { label: { key: 'v', values: ['none', 'x'] } }, onEvent: (ev) => void set.push([ev.type, ev.key]) });
  t.after(() => (w1.close(), w2.close()));
  s.create('/core/configmaps/ns/d', cm('ns', 'd', 'x')); // live, after the replay
  for (const hinted of [one, set]) {
    await waitFor(() => hinted.some(([, k]) => k === '/core/configmaps/ns/d'));
    await new Promise((r) => setImmediate(r));
    // The prefilter may let a row through (c: the same text in an annotation); the watch's own filter
    // decides then. Every row carrying the label, before or after, is there, in order.
    assert.deepEqual(hinted.filter(([, k]) => k !== '/core/configmaps/ns/c'), [
      ['ADDED', '/core/configmaps/ns/b'],
      ['MODIFIED', '/core/configmaps/ns/a'],
      ['MODIFIED', '/core/configmaps/ns/a'],
      ['DELETED', '/core/configmaps/ns/b'],
      ['ADDED', '/core/configmaps/ns/d'],
    ]);
    assert.ok(!hinted.some(([, k]) => k.includes('other')), 'rows of other labels never parsed into events');
  }
});

test('should replay a narrow prefix (one object, one namespace) through the key index with the events a wide replay gives it', async (t) => {
  assert.equal(isNarrowPrefix('/core/configmaps/'), false);
  assert.equal(isNarrowPrefix(''), false);
  assert.equal(isNarrowPrefix('/core/configmaps/ns1/'), true);
  assert.equal(isNarrowPrefix('/core/configmaps/ns1/a'), true);
  assert.equal(isNarrowPrefix('/cluster.open-cluster-management.io/managedclusters//c1'), true);
  const s = open(t, { watchReplayPageSize: 3 });
  s.create('/core/configmaps/ns1/a', cm('ns1', 'a', 'x')); // before the watches' revision: not replayed
  const start = s.currentRevision();
  // ns1/a's history interleaved with other keys that share its prefix's neighbours (ns1/ab, ns10/a)
  for (let i = 0; i < 12; i++) {
    s.update('/core/configmaps/ns1/a', cm('ns1', 'a', i % 2 === 0 ? 'x' : 'y'));
    s.create(`/core/configmaps/ns10/o${i}`, cm('ns10', `o${i}`, 'x'));
    if (i === 3) s.create('/core/configmaps/ns1/ab', cm('ns1', 'ab', 'x'));
    if (i === 5) {
      s.delete('/core/configmaps/ns1/a');
      s.create('/core/configmaps/ns1/a', cm('ns1', 'a', 'x'));
    }
    s.create(`/core/secrets/ns1/s${i}`, cm('ns1', `s${i}`, 'x'));
  }
  s.delete('/core/configmaps/ns1/ab');
  // durable first: the watches then replay all of it from the log (nothing arrives live)
  await s.whenDurable(s.currentRevision());
  const collect = (prefix: string, hints?: { label: { key: string; values: string[] } }): { events: StoreEvent[]; close: () => void } => {
    const events: StoreEvent[] = [];
    const w = s.watch(prefix, { fromRevision: start, ...(hints ? { hints } : {}), onEvent: (ev) => void events.push(ev) });
    return { events, close: () => w.close() };
  };
  const wide = collect('/core/configmaps/');
  const wideX = collect('/core/configmaps/', { label: { key: 'v', values: ['x'] } });
  const key = collect('/core/configmaps/ns1/a');
  const ns = collect('/core/configmaps/ns1/');
  const nsX = collect('/core/configmaps/ns1/', { label: { key: 'v', values: ['x'] } });
  t.after(() => [wide, wideX, key, ns, nsX].forEach((w) => w.close()));
  const end = s.currentRevision();
  const under = (p: string) => (e: StoreEvent): boolean => (p.endsWith('/') ? e.key.startsWith(p) : e.key === p);
  // every replay has reached the last write under its prefix
  await waitFor(() => wide.events.at(-1)?.revision === end && ns.events.at(-1)?.revision === end && nsX.events.at(-1)?.revision === end);
  await waitFor(() => key.events.at(-1)?.revision === wide.events.filter(under('/core/configmaps/ns1/a')).at(-1)?.revision);
  assert.ok(key.events.length > 6, 'several pages of one key');
  assert.deepEqual(key.events, wide.events.filter(under('/core/configmaps/ns1/a')));
  assert.deepEqual(ns.events, wide.events.filter(under('/core/configmaps/ns1/')));
  assert.deepEqual(nsX.events, wideX.events.filter(under('/core/configmaps/ns1/')));
  assert.ok(nsX.events.length < ns.events.length, 'the label filter applies to the narrow replay');
  assert.ok(key.events.every((e) => e.revision > start && e.revision <= end));
  const del = key.events.find((e) => e.type === 'DELETED')!;
  assert.equal(del.prevObject?.metadata.name, 'a', 'the previous object is joined in');
});
