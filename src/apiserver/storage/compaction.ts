// Compaction of the revision log: the pure choice of the target revision, the batched deletion,
// and a periodic runner.
//
// After compacting to target T, the log still answers every read at a revision >= T:
// a row is removed only when it is at or below T and either (a) a newer row for the same key is
// also at or below T (superseded as of T), or (b) it is a DELETED row (the key is absent at T).
// So for each key the newest row <= T survives unless it is a delete, and every row above T
// survives; each surviving MODIFIED/DELETED row above T still finds its previous row (needed for
// prevObject in replays).

import type Database from 'better-sqlite3';
import { realClock, type Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { StoreClosedError } from './store-errors.js';
import type { Store } from './types.js';

export interface CompactionInput {
  currentRevision: number;
  compactedRevision: number;
  /** Keep at least this many most recent revisions. */
  minRevisions: number;
  /** Newest revision written at or before now - minAge (undefined: none is old enough). */
  newestOldEnough: number | undefined;
  /** Lowest revision an in-progress watch replay still needs rows above (undefined: none). */
  pinned: number | undefined;
}

/** The revision to compact to, or undefined when there is nothing to do. */
export function compactionTarget(input: CompactionInput): number | undefined {
  if (input.newestOldEnough === undefined) return undefined;
  let target = Math.min(input.currentRevision - input.minRevisions, input.newestOldEnough);
  if (input.pinned !== undefined) target = Math.min(target, input.pinned);
  return target > input.compactedRevision ? target : undefined;
}

interface ScanRow {
  rev: number;
  removable: number;
}

export interface CompactionStatements {
  scan: Database.Statement<{ cursor: number; target: number; batch: number }, ScanRow>;
  remove: Database.Statement<[number]>;
}

export function prepareCompaction(db: Database.Database): CompactionStatements {
  return {
    scan: db.prepare<{ cursor: number; target: number; batch: number }, ScanRow>(
      `SELECT r.rev AS rev,
              (r.op = 'DELETED' OR EXISTS (
                 SELECT 1 FROM revisions n WHERE n.key = r.key AND n.rev > r.rev AND n.rev <= @target
              )) AS removable
         FROM revisions r
        WHERE r.rev > @cursor AND r.rev <= @target
        ORDER BY r.rev
        LIMIT @batch`,
    ),
    remove: db.prepare<[number]>('DELETE FROM revisions WHERE rev = ?'),
  };
}

/**
 * Delete removable rows at or below target, `batch` scanned rows per transaction. `persistTarget`
 * runs inside the first transaction (before anything is deleted), so a crash half-way leaves the
 * compacted revision already advanced and never exposes a partially compacted range as readable.
 */
export function runCompaction(
  db: Database.Database,
  st: CompactionStatements,
  target: number,
  batch: number,
  persistTarget: () => void,
): number {
  let cursor = 0;
  let removed = 0;
  let first = true;
  const step = db.transaction((): boolean => {
    if (first) persistTarget();
    first = false;
    const rows = st.scan.all({ cursor, target, batch });
    for (const row of rows) {
      if (row.removable) {
        st.remove.run(row.rev);
        removed++;
      }
    }
    if (rows.length > 0) cursor = rows[rows.length - 1]!.rev;
    return rows.length === batch;
  });
  while (step.immediate()) {
    // each iteration is one bounded transaction
  }
  return removed;
}

export interface CompactorOptions {
  intervalMs: number;
  signal: AbortSignal;
  clock?: Clock;
  log?: Logger;
}

/** Runs store.compact() every intervalMs until the signal aborts; resolves then. */
export async function startCompactor(store: Store, opts: CompactorOptions): Promise<void> {
  const clock = opts.clock ?? realClock;
  while (!opts.signal.aborted) {
    try {
      await clock.sleep(opts.intervalMs, opts.signal);
    } catch {
      return; // aborted
    }
    if (opts.signal.aborted) return;
    try {
      store.compact();
    } catch (err) {
      if (err instanceof StoreClosedError) return;
      opts.log?.error('compaction failed', { err });
    }
  }
}
