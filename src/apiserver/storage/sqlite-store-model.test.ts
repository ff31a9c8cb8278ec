// Randomised check of the store against a plain in-memory model of the revision log: results and
// errors of every write, lists (current and at past revisions, paginated), watch replays and a
// live watch, with compaction interleaved. Deterministic (seeded). Runs on ':memory:': this test
// is about the log's logic; durability is covered by the file-based and kill -9 tests.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../api/meta.js';
import type { Clock } from '../../util/clock.js';
import { openSqliteStore } from './sqlite-store.js';
import {
  StoreCompactedError,
  StoreConflictError,
  StoreExistsError,
  StoreNotFoundError,
  type Store,
  type StoreEvent,
} from './types.js';
import { waitFor } from '../../../test/helpers/wait-for.js';

interface Row {
  rev: number;
  key: string;
  op: 'ADDED' | 'MODIFIED' | 'DELETED';
  data: string;
  prevRev?: number;
}

function rng(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x / 2 ** 32;
  };
}

function stateAt(log: Row[], at: number, prefix: string): Map<string, Row> {
  const m = new Map<string, Row>();
  for (const r of log) {
    if (r.rev > at || !r.key.startsWith(prefix)) continue;
    if (r.op === 'DELETED') m.delete(r.key);
    else m.set(r.key, r);
  }
  return new Map([...m.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function obj(key: string, data: string): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: key.split('/')[4]!, namespace: key.split('/')[3]! }, data: { d: data } };
}

function listAll(s: Store, prefix: string, at: number | undefined, pageSize: number): { key: string; rev: number; data: unknown }[] {
  const out: { key: string; rev: number; data: unknown }[] = [];
  let after: string | undefined;
  let rev = at;
  for (;;) {
    const page = s.list(prefix, { limit: pageSize, ...(after ? { startAfterKey: after } : {}), ...(rev !== undefined ? { atRevision: rev } : {}) });
    rev = page.revision;
    out.push(...page.items.map((i) => ({ key: i.key, rev: i.revision, data: (i.object.data as { d: string }).d })));
    if (!page.continueAfterKey) return out;
    after = page.continueAfterKey;
  }
}

function collect(s: Store, prefix: string, from: number): { events: StoreEvent[]; close: () => void } {
  const events: StoreEvent[] = [];
  const sub = s.watch(prefix, { fromRevision: from, onEvent: (ev) => void events.push(ev) });
  return { events, close: () => sub.close() };
}

function assertEvents(events: StoreEvent[], expected: Row[], log: Row[]): void {
  assert.deepEqual(
    events.map((e) => [e.type, e.key, e.revision, (e.object.data as { d: string }).d, e.object.metadata.resourceVersion]),
    expected.map((r) => [r.op, r.key, r.rev, r.data, String(r.rev)]),
  );
  for (const [i, e] of events.entries()) {
    const r = expected[i]!;
    if (r.op === 'ADDED') assert.equal(e.prevObject, undefined);
    else {
      const prev = log.find((p) => p.rev === r.prevRev)!;
      assert.equal(e.prevObject?.metadata.resourceVersion, String(prev.rev), `prevObject of ${r.rev}`);
    }
  }
}

test('should match a model of the revision log under random operations and compaction', async () => {
  let now = 1_000_000;
  const clock: Clock = { now: () => now, sleep: () => Promise.resolve(), setTimeout: () => ({ cancel: () => undefined }) };
  const s = openSqliteStore({ path: ':memory:', clock, retention: { minRevisions: 15, minAgeMs: 1000 }, compactionBatch: 7, watchReplayPageSize: 9 });
  const random = rng(42);
  const keys = ['ns1', 'ns2', 'ns10'].flatMap((ns) => ['a', 'b', 'c', 'd'].map((n) => `/core/configmaps/${ns}/${n}`));
  const log: Row[] = [];
  const live = collect(s, '/core/configmaps/', 0);
  const liveNs1 = collect(s, '/core/configmaps/ns1/', 0);
  const pick = <T>(xs: T[]): T => xs[Math.floor(random() * xs.length)]!;
  let checks = 0;

  for (let step = 0; step < 800; step++) {
    now += 10;
    const key = pick(keys);
    const cur = stateAt(log, s.currentRevision(), '').get(key);
    const data = `v${step}`;
    const roll = random();
    if (roll < 0.35) {
      if (cur) assert.throws(() => s.create(key, obj(key, data)), (e: unknown) => e instanceof StoreExistsError && e.current.revision === cur.rev);
      else {
        const res = s.create(key, obj(key, data));
        const prev = [...log].reverse().find((r) => r.key === key);
        log.push({ rev: res.revision, key, op: 'ADDED', data, ...(prev ? { prevRev: prev.rev } : {}) });
      }
    } else if (roll < 0.7 || roll >= 0.9) {
      const isDelete = roll >= 0.9;
      const stale = random() < 0.3 && cur !== undefined && cur.rev > 1;
      const expected = stale ? cur.rev - 1 : random() < 0.5 ? cur?.rev : undefined;
      const call = (): ReturnType<Store['update']> => (isDelete ? s.delete(key, expected) : s.update(key, obj(key, data), expected));
      if (!cur) assert.throws(call, StoreNotFoundError);
      else if (stale) assert.throws(call, (e: unknown) => e instanceof StoreConflictError && e.current?.revision === cur.rev);
      else {
        const res = call();
        log.push({ rev: res.revision, key, op: isDelete ? 'DELETED' : 'MODIFIED', data: isDelete ? cur.data : data, prevRev: cur.rev });
      }
    } else if (roll < 0.75) {
      s.compact();
    } else {
      // a read at a random revision: compacted → error, otherwise the model's state
      const at = Math.floor(random() * (s.currentRevision() + 1));
      if (at < s.compactedRevision()) {
        assert.throws(() => s.list('/core/configmaps/', { atRevision: at }), StoreCompactedError);
        assert.throws(() => s.watch('/core/configmaps/', { fromRevision: Math.max(1, at), onEvent: () => undefined }), StoreCompactedError);
      } else {
        const prefix = pick(['/core/configmaps/', '/core/configmaps/ns1/', keys[0]!]);
        const want = [...stateAt(log, at, prefix === keys[0] ? keys[0] : prefix).values()]
          .filter((r) => prefix !== keys[0] || r.key === keys[0])
          .map((r) => ({ key: r.key, rev: r.rev, data: r.data }));
        assert.deepEqual(listAll(s, prefix, at, 1 + Math.floor(random() * 4)), want, `list ${prefix} at ${at}`);
        checks++;
      }
    }
    assert.equal(s.currentRevision(), log.length === 0 ? 0 : log[log.length - 1]!.rev);
    if (step % 100 === 99) await new Promise((r) => setImmediate(r)); // let live watchers drain
  }
  assert.ok(checks > 20);
  assert.ok(s.compactedRevision() > 0, 'compaction ran');
  assert.deepEqual(listAll(s, '/core/configmaps/', undefined, 5), [...stateAt(log, s.currentRevision(), '').values()].map((r) => ({ key: r.key, rev: r.rev, data: r.data })));

  // replays from several retained revisions give exactly the logged events
  const replays = [s.compactedRevision(), Math.floor((s.compactedRevision() + s.currentRevision()) / 2), s.currentRevision() - 1].map((from) => ({
    from,
    w: collect(s, '/core/configmaps/ns1/', from),
  }));
  const last = s.currentRevision();
  await waitFor(() => live.events.at(-1)?.revision === last);
  assertEvents(live.events, log, log);
  assertEvents(liveNs1.events, log.filter((r) => r.key.startsWith('/core/configmaps/ns1/')), log);
  for (const { from, w } of replays) {
    const expected = log.filter((r) => r.rev > from && r.key.startsWith('/core/configmaps/ns1/'));
    await waitFor(() => w.events.length === expected.length);
    assertEvents(w.events, expected, log);
    w.close();
  }
  live.close();
  liveNs1.close();
  s.close();
});
