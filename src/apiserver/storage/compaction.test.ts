import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '../../api/meta.js';
import type { Clock } from '../../util/clock.js';
import { nullLogger } from '../../util/logger.js';
import { compactionTarget, startCompactor, type CompactionInput } from './compaction.js';
import { openSqliteStore } from './sqlite-store.js';
import { StoreCompactedError, type Store, type StoreEvent } from './types.js';
import { waitFor } from '../../../test/helpers/wait-for.js';

const base: CompactionInput = { currentRevision: 5000, compactedRevision: 0, minRevisions: 1000, newestOldEnough: 4500, pinned: undefined };
const cases: { name: string; input: Partial<CompactionInput>; expected: number | undefined }[] = [
  { name: 'keeps the last minRevisions', input: {}, expected: 4000 },
  { name: 'keeps everything younger than minAge', input: { newestOldEnough: 2500 }, expected: 2500 },
  { name: 'nothing old enough', input: { newestOldEnough: undefined }, expected: undefined },
  { name: 'fewer revisions than the window', input: { currentRevision: 900 }, expected: undefined },
  { name: 'already compacted that far', input: { compactedRevision: 4000 }, expected: undefined },
  { name: 'a replay in progress pins its cursor', input: { pinned: 1200 }, expected: 1200 },
  { name: 'a pin below the compacted revision stops progress', input: { compactedRevision: 1500, pinned: 1200 }, expected: undefined },
];
for (const c of cases) {
  test(`should choose the compaction target: ${c.name}`, () => {
    assert.equal(compactionTarget({ ...base, ...c.input }), c.expected);
  });
}

function fakeClock(start: number): Clock & { advance(ms: number): void } {
  let now = start;
  return {
    now: () => now,
    advance: (ms) => void (now += ms),
    sleep: (_ms, signal) =>
      new Promise<void>((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        setImmediate(resolve);
      }),
    setTimeout: (fn) => {
      const t = setImmediate(fn);
      return { cancel: () => clearImmediate(t) };
    },
  };
}

function cm(name: string, v: string): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns', labels: { v } } };
}

function openTemp(t: { after(fn: () => void): void }, clock: Clock, minRevisions = 3): { s: Store; path: string } {
  const dir = mkdtempSync(join(tmpdir(), 'ocm-compact-'));
  const path = join(dir, 'state.db');
  const s = openSqliteStore({ path, clock, retention: { minRevisions, minAgeMs: 60_000 }, compactionBatch: 2 });
  t.after(() => {
    s.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { s, path };
}

test('should compact old superseded and deleted rows, then answer older reads with StoreCompactedError', async (t) => {
  const clock = fakeClock(1_000_000);
  const { s, path } = openTemp(t, clock);
  const k = (n: string): string => `/core/configmaps/ns/${n}`;
  s.create(k('a'), cm('a', '1')); // 1
  s.update(k('a'), cm('a', '2')); // 2
  s.create(k('b'), cm('b', '1')); // 3
  s.delete(k('b')); // 4
  s.create(k('c'), cm('c', '1')); // 5
  s.update(k('a'), cm('a', '3')); // 6
  assert.equal(s.compact(), 0, 'nothing is old enough yet');
  clock.advance(61_000);
  s.update(k('c'), cm('c', '2')); // 7
  s.create(k('d'), cm('d', '1')); // 8
  s.delete(k('d')); // 9, top row of the log is a delete

  // target = min(9 - 3, newest row older than 60 s = 6) = 6: drops 1, 2 (superseded by 6), 3, 4 (deleted)
  assert.equal(s.compact(), 4);
  assert.equal(s.compactedRevision(), 6);
  assert.equal(s.getMeta('store.compact_rev'), '6');
  assert.equal(s.getMeta('store.compact_done'), '6', 'progress cursor persisted with the floor');
  assert.throws(() => s.list('/core/configmaps/', { atRevision: 5 }), (e: unknown) => e instanceof StoreCompactedError && e.requested === 5 && e.compacted === 6);
  assert.throws(() => s.watch('/core/configmaps/', { fromRevision: 5, onEvent: () => undefined }), StoreCompactedError);
  assert.deepEqual(s.list('/core/configmaps/', { atRevision: 6 }).items.map((i) => [i.key, i.revision]), [[k('a'), 6], [k('c'), 5]]);
  assert.deepEqual(s.list('/core/configmaps/', { atRevision: 7 }).items.map((i) => [i.key, i.revision]), [[k('a'), 6], [k('c'), 7]]);

  // a watch from the compacted revision still replays everything after it, with prevObject
  const got: StoreEvent[] = [];
  const w = s.watch('/core/configmaps/', { fromRevision: 6, onEvent: (ev) => void got.push(ev) });
  t.after(() => w.close());
  await waitFor(() => got.length === 3);
  assert.deepEqual(got.map((e) => [e.type, e.revision]), [['MODIFIED', 7], ['ADDED', 8], ['DELETED', 9]]);
  assert.equal(got[0]!.prevObject?.metadata.resourceVersion, '5');
  assert.equal(got[2]!.prevObject?.metadata.resourceVersion, '8');

  // create after a compacted delete works, and revisions are never reused across a restart
  assert.equal(s.create(k('b'), cm('b', '2')).revision, 10);
  s.delete(k('b')); // 11
  s.close();
  const s2 = openSqliteStore({ path, clock, retention: { minRevisions: 3, minAgeMs: 60_000 } });
  try {
    assert.equal(s2.compactedRevision(), 6);
    assert.equal(s2.currentRevision(), 11);
    assert.equal(s2.create(k('e'), cm('e', '1')).revision, 12);
  } finally {
    s2.close();
  }
});

test('should not compact rows a watch replay still needs', async (t) => {
  const clock = fakeClock(1_000_000);
  const { s } = openTemp(t, clock, 0);
  s.create('/core/configmaps/ns/a', cm('a', '0')); // 1
  for (let i = 1; i < 10; i++) s.update('/core/configmaps/ns/a', cm('a', String(i))); // 2..10
  // once durable, the writes have been published: a watch from 1 must replay them from the log
  // (before that, group commit still holds their events in memory and the watch gets them live)
  await s.flush();
  clock.advance(61_000);
  const got: StoreEvent[] = [];
  const w = s.watch('/core/configmaps/', { fromRevision: 1, onEvent: (ev) => void got.push(ev) });
  t.after(() => w.close());
  s.compact(); // the replay has not read anything yet: its cursor (1) pins the log
  assert.equal(s.compactedRevision(), 1);
  await waitFor(() => got.length === 9);
  assert.deepEqual(got.map((e) => e.revision), [2, 3, 4, 5, 6, 7, 8, 9, 10]);
  assert.ok(got.every((e) => e.prevObject?.metadata.resourceVersion === String(e.revision - 1)));
  assert.equal(s.compact(), 9, 'once the replay is done the log compacts to the current revision');
  assert.equal(s.compactedRevision(), 10);
  assert.equal(s.get('/core/configmaps/ns/a')?.revision, 10);
});

test('should run compaction periodically until aborted', async (t) => {
  const clock = fakeClock(1_000_000);
  const { s } = openTemp(t, clock, 0);
  s.create('/core/configmaps/ns/a', cm('a', '0'));
  s.update('/core/configmaps/ns/a', cm('a', '1'));
  clock.advance(61_000);
  const ac = new AbortController();
  const done = startCompactor(s, { intervalMs: 1000, signal: ac.signal, clock });
  await waitFor(() => s.compactedRevision() === 2);
  s.update('/core/configmaps/ns/a', cm('a', '2'));
  clock.advance(61_000);
  await waitFor(() => s.compactedRevision() === 3);
  ac.abort();
  await done;
});

test('should stop the periodic compactor when the store closes', async () => {
  const clock = fakeClock(1_000_000);
  const s = openSqliteStore({ path: ':memory:', clock, retention: { minRevisions: 0, minAgeMs: 0 } });
  const errors: unknown[] = [];
  const log = { ...nullLogger(), error: (_m: string, f?: Record<string, unknown>) => void errors.push(f?.err) };
  const done = startCompactor(s, { intervalMs: 1000, signal: new AbortController().signal, clock, log });
  await new Promise((r) => setImmediate(r));
  s.close();
  await done;
  assert.deepEqual(errors, []);
});

test('should never reuse a revision after compaction emptied the log', (t) => {
  const clock = fakeClock(1_000_000);
  const { s, path } = openTemp(t, clock, 0);
  s.create('/core/configmaps/ns/a', cm('a', '1')); // 1
  s.delete('/core/configmaps/ns/a'); // 2
  clock.advance(61_000);
  assert.equal(s.compact(), 2);
  assert.deepEqual(s.list('/core/configmaps/', { atRevision: 2 }).items, []);
  s.close();
  const s2 = openSqliteStore({ path, clock });
  try {
    assert.equal(s2.currentRevision(), 2);
    assert.equal(s2.compactedRevision(), 2);
    assert.equal(s2.create('/core/configmaps/ns/a', cm('a', '2')).revision, 3);
  } finally {
    s2.close();
  }
});
