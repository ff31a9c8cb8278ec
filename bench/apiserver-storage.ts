// Benchmark: durable writes through the SQLite store vs raw better-sqlite3 with the same
// durability, in both modes. Target: ratio store/raw >= 0.5.
// - per-commit: WAL + synchronous=FULL, one row per transaction, one writer (the store's
//   'per-commit' durability), store and raw written alternately so both see the same disk.
// - group: WAL + synchronous=NORMAL, one row per transaction, rounds of `concurrency` writes made
//   durable together. The store does it with group commit (whenDurable); the raw equivalent commits
//   a round of `concurrency` rows, then fdatasyncs the WAL once. Rounds alternate.
// Run: node --import tsx bench/apiserver-storage.ts [runs] [writes]

import Database from 'better-sqlite3';
import { closeSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { KubeObject } from '../src/api/meta.js';
import type * as GroupCommit from '../src/apiserver/storage/group-commit.js';
import type * as SqliteStore from '../src/apiserver/storage/sqlite-store.js';
import { fromBuild } from './product.js';

// The store under test comes from the build (see product.ts).
const { fdatasyncFile } = await fromBuild<typeof GroupCommit>('apiserver/storage/group-commit.js');
const { openSqliteStore } = await fromBuild<typeof SqliteStore>('apiserver/storage/sqlite-store.js');

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

function object(i: number): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `cm-${i}`, namespace: 'bench', labels: { app: 'bench', shard: String(i % 8) } },
    data: { payload: 'x'.repeat(200), index: String(i) },
  };
}

async function withTempDir<T>(fn: (dir: string) => Promise<T> | T): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'ocm-bench-storage-'));
  try {
    return await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function rawDb(path: string, synchronous: 'FULL' | 'NORMAL'): { db: Database.Database; ins: Database.Statement<[string, string]> } {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${synchronous}`);
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY AUTOINCREMENT, key TEXT NOT NULL, value TEXT NOT NULL)');
  return { db, ins: db.prepare<[string, string]>('INSERT INTO t (key, value) VALUES (?, ?)') };
}

/** Per-commit mode, one writer: store and raw alternately, one write each in turn. Writes/s. */
function perCommitRun(writes: number): Promise<{ store: number; raw: number }> {
  return withTempDir((dir) => {
    const store = openSqliteStore({ path: join(dir, 'store.db'), durability: 'per-commit' });
    const { db, ins } = rawDb(join(dir, 'raw.db'), 'FULL');
    try {
      const objs = Array.from({ length: writes }, (_, i) => object(i));
      const values = objs.map((o) => JSON.stringify(o));
      let storeNs = 0n;
      let rawNs = 0n;
      for (let i = 0; i < writes; i++) {
        const key = `/core/configmaps/bench/cm-${i}`;
        const t0 = process.hrtime.bigint();
        store.create(key, objs[i]!);
        const t1 = process.hrtime.bigint();
        ins.run(key, values[i]!);
        const t2 = process.hrtime.bigint();
        storeNs += t1 - t0;
        rawNs += t2 - t1;
      }
      return { store: writes / (Number(storeNs) / 1e9), raw: writes / (Number(rawNs) / 1e9) };
    } finally {
      db.close();
      store.close();
    }
  });
}

/**
 * Group mode, store and raw alternately, one round each in turn (so both see the same disk: the
 * fsync rate of a shared disk drifts a lot). A store round is `concurrency` writers each creating
 * one object and awaiting its durability (group commit); a raw round is `concurrency` one-row
 * transactions with synchronous=NORMAL followed by one fdatasync of the WAL. Writes/s of each, and
 * the store's commits per fsync.
 */
function groupRun(writes: number, concurrency: number): Promise<{ store: number; raw: number; perSync: number }> {
  return withTempDir(async (dir) => {
    const store = openSqliteStore({ path: join(dir, 'store.db'), durability: 'group' });
    const rawPath = join(dir, 'raw.db');
    const { db, ins } = rawDb(rawPath, 'NORMAL');
    const fd = openSync(`${rawPath}-wal`, 'r+');
    try {
      const objs = Array.from({ length: writes }, (_, i) => object(i));
      const values = objs.map((o) => JSON.stringify(o));
      let storeMs = 0;
      let rawMs = 0;
      for (let i = 0; i < writes; i += concurrency) {
        const n = Math.min(concurrency, writes - i);
        const t0 = performance.now();
        await Promise.all(Array.from({ length: n }, (_, k) => {
          const rev = store.create(`/core/configmaps/bench/cm-${i + k}`, objs[i + k]!).revision;
          return store.whenDurable(rev);
        }));
        const t1 = performance.now();
        for (let k = 0; k < n; k++) ins.run(`/core/configmaps/bench/cm-${i + k}`, values[i + k]!);
        await fdatasyncFile(fd);
        const t2 = performance.now();
        storeMs += t1 - t0;
        rawMs += t2 - t1;
      }
      const st = store.durabilityStats();
      return { store: writes / (storeMs / 1000), raw: writes / (rawMs / 1000), perSync: st.commitsSynced / Math.max(1, st.syncs) };
    } finally {
      closeSync(fd);
      db.close();
      store.close();
    }
  });
}

export interface StorageBenchResult {
  perCommit: { store: number; raw: number; ratio: number; writesPerRun: number };
  group: { store: number; raw: number; ratio: number; writesPerRun: number; concurrency: number; commitsPerSync: number };
  runs: number;
}

const r2 = (x: number): number => Math.round(x * 100) / 100;

/**
 * Medians over `runs` runs of both modes. With `budgetMs`, per-commit writes per run are lowered
 * (never raised) so the whole benchmark stays within the budget on a slow disk.
 */
export async function benchStorage(opts: { runs: number; writes: number; concurrency?: number; budgetMs?: number }): Promise<StorageBenchResult> {
  const concurrency = opts.concurrency ?? 32;
  const warm = await perCommitRun(Math.min(100, opts.writes)); // warm-up (JIT, page cache), and a rate estimate
  await groupRun(Math.min(500, opts.writes), concurrency);
  let writes = opts.writes;
  if (opts.budgetMs !== undefined) {
    const secondsPerPairedWrite = 1 / warm.store + 1 / warm.raw;
    const affordable = Math.floor(opts.budgetMs / 2 / 1000 / secondsPerPairedWrite / opts.runs);
    writes = Math.max(50, Math.min(writes, affordable));
  }
  const groupWrites = Math.max(writes, 2000);
  const pc = { store: [] as number[], raw: [] as number[] };
  const gr = { store: [] as number[], raw: [] as number[], perSync: [] as number[] };
  const started = Date.now();
  for (let r = 0; r < opts.runs; r++) {
    const p = await perCommitRun(writes);
    pc.store.push(p.store);
    pc.raw.push(p.raw);
    const g = await groupRun(groupWrites, concurrency);
    gr.store.push(g.store);
    gr.raw.push(g.raw);
    gr.perSync.push(g.perSync);
    // stop early (fewer runs) if the disk got slower than the warm-up suggested
    const elapsed = Date.now() - started;
    if (opts.budgetMs !== undefined && elapsed + elapsed / (r + 1) > opts.budgetMs) break;
  }
  return {
    perCommit: { store: Math.round(median(pc.store)), raw: Math.round(median(pc.raw)), ratio: r2(median(pc.store) / median(pc.raw)), writesPerRun: writes },
    group: {
      store: Math.round(median(gr.store)), raw: Math.round(median(gr.raw)), ratio: r2(median(gr.store) / median(gr.raw)),
      writesPerRun: groupWrites, concurrency, commitsPerSync: r2(median(gr.perSync)),
    },
    runs: pc.store.length,
  };
}

export function formatStorage(res: StorageBenchResult): string {
  return (
    `storage layer (median of ${res.runs} runs; durable writes/s, one row per transaction)\n` +
    `  per-commit  store ${res.perCommit.store}/s   raw SQLite (WAL, synchronous=FULL) ${res.perCommit.raw}/s   ratio ${res.perCommit.ratio} (${res.perCommit.writesPerRun} writes, 1 writer)\n` +
    `  group       store ${res.group.store}/s   raw SQLite (WAL, NORMAL + 1 fdatasync per round) ${res.group.raw}/s   ratio ${res.group.ratio}` +
    ` (${res.group.writesPerRun} writes, ${res.group.concurrency} writers, ${res.group.commitsPerSync} commits per fsync)\n` +
    `  group store / per-commit raw  ${r2(res.group.store / res.perCommit.raw)} (target >= 0.5)\n`
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const runs = Number(process.argv[2] ?? 5);
  const writes = Number(process.argv[3] ?? 1000);
  process.stdout.write(formatStorage(await benchStorage({ runs, writes, budgetMs: 18_000 })));
}
