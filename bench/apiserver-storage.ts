// Benchmark: durable writes through the SQLite store vs raw better-sqlite3 inserts with the same
// durability (WAL, synchronous=FULL, one row per transaction). Target: ratio >= 0.5.
// Run: node --import tsx bench/apiserver-storage.ts [runs] [writes]

import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { KubeObject } from '../src/api/meta.js';
import { openSqliteStore } from '../src/apiserver/storage/sqlite-store.js';

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

function withTempDir<T>(fn: (dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'ocm-bench-storage-'));
  try {
    return fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * One run: the store and a raw better-sqlite3 database (same directory, same durability: WAL,
 * synchronous=FULL, one row per transaction) written alternately, one write each in turn, so both
 * see the same disk conditions (the fsync rate of a shared disk drifts a lot). Returns writes/s.
 */
function pairedRun(writes: number): { store: number; raw: number } {
  return withTempDir((dir) => {
    const store = openSqliteStore({ path: join(dir, 'store.db') });
    const db = new Database(join(dir, 'raw.db'));
    try {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = FULL');
      db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY AUTOINCREMENT, key TEXT NOT NULL, value TEXT NOT NULL)');
      const ins = db.prepare('INSERT INTO t (key, value) VALUES (?, ?)');
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
 * Median store writes/s, raw inserts/s and their ratio. With `budgetMs`, the writes per run are
 * lowered (never raised) so the whole benchmark stays within the budget on a slow disk.
 */
export async function benchStorage(opts: { runs: number; writes: number; budgetMs?: number }): Promise<Record<string, number>> {
  const store: number[] = [];
  const raw: number[] = [];
  const warm = pairedRun(Math.min(100, opts.writes)); // warm-up (JIT, page cache), and a rate estimate
  let writes = opts.writes;
  if (opts.budgetMs !== undefined) {
    const secondsPerPairedWrite = 1 / warm.store + 1 / warm.raw;
    const affordable = Math.floor(opts.budgetMs / 1000 / secondsPerPairedWrite / opts.runs);
    writes = Math.max(50, Math.min(writes, affordable));
  }
  const started = Date.now();
  for (let r = 0; r < opts.runs; r++) {
    const res = pairedRun(writes);
    store.push(res.store);
    raw.push(res.raw);
    await new Promise((resolve) => setImmediate(resolve));
    // stop early (fewer runs) if the disk got slower than the warm-up suggested
    const elapsed = Date.now() - started;
    if (opts.budgetMs !== undefined && elapsed + elapsed / (r + 1) > opts.budgetMs) break;
  }
  const storeWritesPerSec = median(store);
  const rawInsertsPerSec = median(raw);
  return {
    storeWritesPerSec: Math.round(storeWritesPerSec),
    rawInsertsPerSec: Math.round(rawInsertsPerSec),
    ratio: Math.round((storeWritesPerSec / rawInsertsPerSec) * 100) / 100,
    writesPerRun: writes,
    runs: store.length,
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const runs = Number(process.argv[2] ?? 5);
  const writes = Number(process.argv[3] ?? 1000);
  const res = await benchStorage({ runs, writes, budgetMs: 18_000 });
  process.stdout.write(
    `apiserver storage (median of ${res.runs} runs, ${res.writesPerRun} durable writes each, WAL + synchronous=FULL)\n` +
      `  store writes/s      ${res.storeWritesPerSec}\n` +
      `  raw inserts/s       ${res.rawInsertsPerSec}\n` +
      `  ratio store/raw     ${res.ratio} (target >= 0.5)\n`,
  );
}
