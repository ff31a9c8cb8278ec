// Group commit: concurrent writes share fsyncs of the WAL, no write is acknowledged (whenDurable)
// or shown to watchers before the fsync that covers it has completed, and the -wal descriptor
// stays valid across checkpoints. The sync function is injected, so the test holds and counts syncs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fstatSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '../../src/api/meta.js';
import { fdatasyncFile } from '../../src/apiserver/storage/group-commit.js';
import { openSqliteStore, type SqliteStore, type SqliteStoreOptions } from '../../src/apiserver/storage/sqlite-store.js';
import { waitFor } from '../helpers/wait-for.js';

interface HeldSync {
  fd: number;
  release(): void;
}

/** A sync function that records each call and completes only when the test releases it. */
function heldSyncs(): { calls: HeldSync[]; syncFile: (fd: number) => Promise<void> } {
  const calls: HeldSync[] = [];
  return {
    calls,
    syncFile: (fd) => new Promise<void>((resolve, reject) => {
      calls.push({ fd, release: () => void fdatasyncFile(fd).then(resolve, reject) });
    }),
  };
}

function open(t: { after(fn: () => void): void }, extra: Partial<SqliteStoreOptions>): { s: SqliteStore; path: string } {
  const dir = mkdtempSync(join(tmpdir(), 'ocm-group-commit-'));
  const path = join(dir, 'state.db');
  const s = openSqliteStore({ path, ...extra });
  t.after(() => {
    s.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { s, path };
}

function cm(name: string, v = '0'): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns', labels: { v } } };
}

async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
}

test('should share one fsync among concurrent writes and acknowledge none before it completes', async (t) => {
  const held = heldSyncs();
  const { s } = open(t, { syncFile: held.syncFile });
  const seen: number[] = [];
  const w = s.watch('/core/configmaps/', { fromRevision: 0, onEvent: (ev) => void seen.push(ev.revision) });
  t.after(() => w.close());

  // ten writes in one turn of the event loop (as concurrent requests are), each awaiting durability
  const acked: number[] = [];
  for (let i = 0; i < 10; i++) {
    const rev = s.create(`/core/configmaps/ns/a${i}`, cm(`a${i}`)).revision;
    void s.whenDurable(rev).then(() => void acked.push(rev));
  }
  await turns(5);
  assert.equal(held.calls.length, 1, 'one fsync for the whole batch');
  assert.equal(acked.length, 0, 'nothing acknowledged while the fsync is in flight');
  assert.equal(seen.length, 0, 'watchers see nothing before the fsync completes');
  assert.equal(s.durableRevision(), 0);

  // writes arriving while that fsync is in flight wait for the next one
  const late = s.create('/core/configmaps/ns/late', cm('late')).revision;
  let lateAcked = false;
  void s.flush().then(() => (lateAcked = true));
  held.calls[0]!.release();
  await waitFor(() => acked.length === 10);
  assert.deepEqual(acked, Array.from({ length: 10 }, (_, i) => i + 1));
  assert.equal(lateAcked, false, 'a write committed during a sync is not covered by it');
  await waitFor(() => held.calls.length === 2);
  await turns(5);
  assert.equal(lateAcked, false);
  assert.ok(!seen.includes(late));
  held.calls[1]!.release();
  await waitFor(() => lateAcked && seen.length === 11);
  assert.deepEqual(seen, Array.from({ length: 11 }, (_, i) => i + 1), 'events in revision order, once durable');
  assert.equal(held.calls.length, 2);
  assert.deepEqual(s.durabilityStats(), { syncs: 2, commitsSynced: 11, durableRevision: 11 });

  // nothing pending: flush resolves without another fsync
  await s.flush();
  await s.whenDurable(3);
  assert.equal(held.calls.length, 2);
});

test('should count many fewer fsyncs than writes under concurrent load', async (t) => {
  let syncs = 0;
  const { s } = open(t, { syncFile: (fd) => (syncs++, fdatasyncFile(fd)) });
  // 20 "clients", each writing and awaiting durability 10 times in a row
  await Promise.all(Array.from({ length: 20 }, async (_, c) => {
    for (let i = 0; i < 10; i++) {
      const rev = s.create(`/core/configmaps/ns/c${c}-${i}`, cm(`c${c}-${i}`)).revision;
      await s.whenDurable(rev);
      assert.ok(s.durableRevision() >= rev);
    }
  }));
  assert.equal(s.currentRevision(), 200);
  assert.equal(s.durabilityStats().commitsSynced, 200);
  assert.ok(syncs <= 20, `expected at most one fsync per round of 20 concurrent writes, got ${syncs}`);
});

test('should make everything durable at close and at setMeta, and keep the -wal descriptor across checkpoints', async (t) => {
  const held = heldSyncs();
  const { s, path } = open(t, { syncFile: held.syncFile, retention: { minRevisions: 0, minAgeMs: 0 } });
  const r1 = s.create('/core/configmaps/ns/a', cm('a')).revision;
  const p1 = s.whenDurable(r1);
  s.setMeta('x', 'y'); // synchronous, durable on return: covers r1 too
  await p1;
  assert.equal(s.durableRevision(), r1);
  await turns(3);
  // compaction checkpoints with TRUNCATE: the same -wal file (inode) is reused
  for (let i = 0; i < 5; i++) s.update('/core/configmaps/ns/a', cm('a', String(i)));
  const p2 = s.flush();
  await turns(3);
  const fd = held.calls[0]?.fd;
  assert.ok(fd !== undefined, 'a sync was started');
  held.calls[0]!.release();
  await p2;
  s.compact();
  assert.ok(s.compactedRevision() > 0);
  assert.equal(fstatSync(fd).ino, statSync(`${path}-wal`).ino);
  const r2 = s.create('/core/configmaps/ns/b', cm('b')).revision;
  let acked = false;
  void s.whenDurable(r2).then(() => (acked = true));
  s.close();
  await turns(2);
  assert.ok(acked, 'close syncs what is pending and settles waiters');
  for (const c of held.calls) c.release();
});

test('should acknowledge at once in per-commit mode, where SQLite fsyncs inside each commit', async (t) => {
  let syncs = 0;
  const { s } = open(t, { durability: 'per-commit', syncFile: (fd) => (syncs++, fdatasyncFile(fd)) });
  const seen: number[] = [];
  const w = s.watch('/core/configmaps/', { fromRevision: 0, onEvent: (ev) => void seen.push(ev.revision) });
  t.after(() => w.close());
  const rev = s.create('/core/configmaps/ns/a', cm('a')).revision;
  assert.equal(s.durableRevision(), rev);
  await s.whenDurable(rev);
  await waitFor(() => seen.length === 1);
  assert.equal(syncs, 0);
});
