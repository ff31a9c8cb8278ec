// Compaction of the revision log: the pure choice of the target revision, the batched deletion,
// and a periodic runner.
//
// After compacting to target T, the log still answers every read at a revision >= T:
// a row is removed only when it is at or below T and either (a) a newer row for the same key is
// also at or below T (superseded as of T), or (b) it is a DELETED row (the key is absent at T).
// So for each key the newest row <= T survives unless it is a delete, and every row above T
// survives; each surviving MODIFIED/DELETED row above T still finds its previous row (needed for
// prevObject in replays).
//
// The work is incremental: walking the rows r in (done, T] in revision order, every older row of
// r's key is superseded by r (so removed), and r itself is removed if it is a delete. Rows at or
// below `done` were handled by earlier runs, so each run costs O(rows written since the last run).
// Two meta values make this crash-safe: the compacted revision (the readers' floor) is advanced in
// the first transaction, before anything is deleted; the progress cursor `done` after each batch.
// A run is a sequence of such bounded transactions: the periodic run yields to the event loop
// between them, because the history a burst of writes leaves (a join storm of thousands of
// clusters writes tens of thousands of rows) took seconds to delete in one go, during which no
// request was served and lease renewals missed their deadlines.

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
  key: string;
  op: string;
}

export interface CompactionStatements {
  scan: Database.Statement<{ cursor: number; target: number; batch: number }, ScanRow>;
  removeOlder: Database.Statement<[string, number]>;
  remove: Database.Statement<[number]>;
}

export function prepareCompaction(db: Database.Database): CompactionStatements {
  return {
    scan: db.prepare<{ cursor: number; target: number; batch: number }, ScanRow>(
      'SELECT rev, key, op FROM revisions WHERE rev > @cursor AND rev <= @target ORDER BY rev LIMIT @batch',
    ),
    removeOlder: db.prepare<[string, number]>('DELETE FROM revisions WHERE key = ? AND rev < ?'),
    remove: db.prepare<[number]>('DELETE FROM revisions WHERE rev = ?'),
  };
}

export interface CompactionRun {
  /** Rows at or below this were handled by earlier runs. */
  done: number;
  target: number;
  /** Rows scanned per transaction. */
  batch: number;
  /** Runs inside the first transaction, before anything is deleted: persist the new floor. */
  persistTarget(): void;
  /** Runs inside every transaction: persist the progress cursor. */
  persistDone(done: number): void;
}

/** A compaction run as bounded transactions: each `step()` handles up to `batch` logged rows. */
export interface CompactionSteps {
  /** Runs the next transaction; false once the run is complete (and on every later call). */
  step(): boolean;
  /** Rows deleted so far. */
  readonly removed: number;
}

/** The rows made removable by advancing the compacted revision to `run.target`, to delete step by step. */
export function compactionSteps(db: Database.Database, st: CompactionStatements, run: CompactionRun): CompactionSteps {
  let cursor = run.done;
  let removed = 0;
  let first = true;
  let complete = false;
  const tx = db.transaction((): boolean => {
    if (first) run.persistTarget();
    first = false;
    const rows = st.scan.all({ cursor, target: run.target, batch: run.batch });
    for (const row of rows) {
      removed += st.removeOlder.run(row.key, row.rev).changes;
      if (row.op === 'DELETED') removed += st.remove.run(row.rev).changes;
    }
    const more = rows.length === run.batch;
    cursor = more ? rows[rows.length - 1]!.rev : run.target;
    run.persistDone(cursor);
    return more;
  });
  return {
    step() {
      if (complete) return false;
      complete = !tx.immediate();
      return !complete;
    },
    get removed() {
      return removed;
    },
  };
}

export interface CompactorOptions {
  intervalMs: number;
  signal: AbortSignal;
  clock?: Clock;
  log?: Logger;
}

/** Runs store.compactInSteps() every intervalMs until the signal aborts; resolves then. */
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
      await store.compactInSteps();
    } catch (err) {
      if (err instanceof StoreClosedError) return;
      opts.log?.error('compaction failed', { err });
    }
  }
}
