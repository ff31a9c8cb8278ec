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

/** Five keys written five times each (revisions 1..25), old enough to compact; then one newer write (26). */
async function history(s: Store, clock: ReturnType<typeof fakeClock>): Promise<void> {
  for (let v = 0; v < 5; v++) {
    for (const n of ['a', 'b', 'c', 'd', 'e']) {
      if (v === 0) s.create(`/core/configmaps/ns/${n}`, cm(n, '0'));
      else s.update(`/core/configmaps/ns/${n}`, cm(n, String(v)));
    }
  }
  await s.flush();
  clock.advance(61_000);
  s.create('/core/configmaps/ns/f', cm('f', '0')); // 26
  await s.flush();
}

/** Counts the turns of the event loop until `p` settles. */
async function turnsUntil<T>(p: Promise<T>): Promise<{ value: T; turns: number }> {
  let turns = 0;
  let settled = false;
  const tick = (): void => {
    if (settled) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  const value = await p;
  settled = true;
  return { value, turns };
}

test('should compact in steps, serving the event loop between them, with the floor raised before the first row goes', async (t) => {
  const clock = fakeClock(1_000_000);
  const { s } = openTemp(t, clock, 0);
  await history(s, clock);
  const run = s.compactInSteps();
  // the floor is raised at once: reads and watches below it are refused while rows under it go
  assert.equal(s.compactedRevision(), 25);
  assert.throws(() => s.list('/core/configmaps/', { atRevision: 24 }), StoreCompactedError);
  assert.throws(() => s.watch('/core/configmaps/', { fromRevision: 24, onEvent: () => undefined }), StoreCompactedError);
  // a watch from the floor, opened midway, replays what follows it without a gap
  const got: StoreEvent[] = [];
  const w = s.watch('/core/configmaps/', { fromRevision: 25, onEvent: (ev) => void got.push(ev) });
  t.after(() => w.close());
  s.update('/core/configmaps/ns/a', cm('a', '5')); // 27, written while the run goes on
  const { value: removed, turns } = await turnsUntil(run);
  // 25 rows in transactions of 2: the run let the event loop turn between its transactions
  assert.ok(turns >= 10, `the event loop turned ${turns} times during the run`);
  assert.equal(removed, 20, 'each key keeps its newest row at the floor');
  await waitFor(() => got.length === 2);
  assert.deepEqual(got.map((e) => [e.type, e.revision]), [['ADDED', 26], ['MODIFIED', 27]]);
  assert.equal(got[1]!.prevObject?.metadata.labels?.['v'], '4');
  assert.deepEqual(s.list('/core/configmaps/', { atRevision: 25 }).items.map((i) => [i.key.slice(-1), i.revision]), [['a', 21], ['b', 22], ['c', 23], ['d', 24], ['e', 25]]);
  assert.equal(s.getMeta('store.compact_done'), '25');
});

test('should share a compaction in progress, and let compact() finish it at once', async (t) => {
  const clock = fakeClock(1_000_000);
  const { s } = openTemp(t, clock, 0);
  await history(s, clock);
  const first = s.compactInSteps();
  const second = s.compactInSteps();
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  // compact() runs what is left of the run in progress (nothing else is due)
  const now = s.compact();
  assert.equal(await first, 20);
  assert.equal(await second, 20);
  assert.ok(now > 0 && now < 20, `compact() removed the ${now} rows the run had not reached`);
  assert.equal(s.compactedRevision(), 25);
  assert.equal(await s.compactInSteps(), 0, 'nothing is due any more');
});

test('should leave a compaction cut short by close for the next open to finish', async (t) => {
  const clock = fakeClock(1_000_000);
  const dir = mkdtempSync(join(tmpdir(), 'ocm-compact-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'state.db');
  const s = openSqliteStore({ path, clock, retention: { minRevisions: 0, minAgeMs: 60_000 }, compactionBatch: 2 });
  await history(s, clock);
  const run = s.compactInSteps();
  await new Promise((r) => setImmediate(r));
  s.close();
  const cutShort = await run;
  assert.ok(cutShort < 20, `${cutShort} rows removed before the close`);
  const s2 = openSqliteStore({ path, clock, retention: { minRevisions: 0, minAgeMs: 60_000 }, compactionBatch: 2 });
  try {
    assert.equal(s2.compactedRevision(), 25, 'the floor was persisted by the run\'s first transaction');
    // the rows left under the floor are unreadable; the next compaction due goes on from the cursor
    clock.advance(61_000);
    s2.update('/core/configmaps/ns/f', cm('f', '1')); // 27
    assert.equal(await s2.compactInSteps(), 20 - cutShort);
    assert.equal(s2.compactedRevision(), 26);
    assert.deepEqual(s2.list('/core/configmaps/', { atRevision: 26 }).items.map((i) => i.revision), [21, 22, 23, 24, 25, 26]);
  } finally {
    s2.close();
  }
});
