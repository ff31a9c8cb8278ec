// The Store contract over one SQLite file (or ':memory:'): an append-only revision log
// (`revisions`, one row per write, AUTOINCREMENT id = resourceVersion, never reused), the current
// state (`objects`, for O(result) get/list) and `meta`. See schema.ts for durability and locking,
// watch-hub.ts for watch delivery, compaction.ts for retention.
//
// Every write is one IMMEDIATE transaction that checks its precondition against `objects`, appends
// to `revisions` (base revision in prev_rev, guarded by UNIQUE(key, prev_rev)) and updates
// `objects`; the call returns after the commit. Durability (power loss) and event publication
// depend on the mode: 'per-commit' fsyncs inside the commit and publishes at once; 'group' (the
// default for files) hands the revision to group-commit.ts, which fsyncs the WAL for many commits
// at once and then publishes their events in revision order; callers await whenDurable(rev).
// Objects returned to callers are fresh copies; event objects are shared by all watchers and must
// be treated as read-only.
//
// Reads: `list` with `atRevision` below the compacted revision throws StoreCompactedError; above
// the current revision it reads the current state and reports the current revision (the HTTP layer
// decides about "too large resource version" before calling). A list `filter` runs while the
// SQLite cursor is open, so it must be a pure predicate (no store calls). A filtered list of the
// current state whose hints pin a label reads only the objects carrying it, from the label index
// (label-index.ts) kept by every write; a list at a past revision reads the log. `compact()` runs a
// whole compaction at once; `compactInSteps()`, the periodic one, runs one bounded transaction per
// turn of the event loop. Both raise the compacted revision before the first row goes, so a read or
// a watch that starts midway is refused below it rather than served a log with rows missing.

import type { KubeObject } from '../../api/meta.js';
import { realClock, type Clock } from '../../util/clock.js';
import { dirname } from 'node:path';
import { nullLogger, type Logger } from '../../util/logger.js';
import { compactionSteps, compactionTarget, prepareCompaction, type CompactionSteps } from './compaction.js';
import { keyRange } from './key-range.js';
import { prepareLabelIndex, type LabelIndex } from './label-index.js';
import { prepareStatements, type ObjectRow, type ReplayRow } from './sqlite-statements.js';
import { createGroupCommit, fdatasyncFile, type DurabilityStats, type GroupCommit, type SyncFile } from './group-commit.js';
import {
  META_COMPACT_DONE, META_COMPACT_REV, RESERVED_META_PREFIX, openDatabase, syncDirectory, type Durability,
} from './schema.js';
import {
  StoreCompactedError,
  StoreConflictError,
  StoreExistsError,
  StoreNotFoundError,
  type ListOptions,
  type SelectorHints,
  type ListResult,
  type Store,
  type StoreEvent,
  type StoredObject,
} from './types.js';
import { StoreClosedError } from './store-errors.js';
import { createWatchHub } from './watch-hub.js';

export { StoreClosedError, StoreLockedError } from './store-errors.js';
export { startCompactor, type CompactorOptions } from './compaction.js';
export type { DurabilityStats, SyncFile } from './group-commit.js';
export type { Durability } from './schema.js';

export interface SqliteStoreOptions {
  /** Database file, or ':memory:' for a throw-away in-memory store. */
  path: string;
  log?: Logger;
  /** Compaction keeps at least the last minRevisions revisions and everything newer than minAgeMs. */
  retention?: { minRevisions: number; minAgeMs: number };
  clock?: Clock;
  /** Live events a blocked watcher may have waiting before it is dropped as slow (default 10 000). */
  watchBufferLimit?: number;
  /** How long to wait for the file lock at open before failing (default 200 ms). */
  lockWaitMs?: number;
  /** Rows per compaction transaction (default 250: one transaction is what the periodic compaction holds the event loop for, ~5 ms). */
  compactionBatch?: number;
  /** Log rows a watch replay reads per step (default 500). */
  watchReplayPageSize?: number;
  /**
   * 'group' (default): synchronous=NORMAL plus shared fsyncs of the WAL (group commit);
   * 'per-commit': synchronous=FULL, one fsync inside every commit. Ignored for ':memory:'.
   */
  durability?: Durability;
  /** How group commit syncs the WAL file (tests count or hold syncs); default fdatasync. */
  syncFile?: SyncFile;
}

/** The SQLite store, with its durability figures. */
export interface SqliteStore extends Store {
  durabilityStats(): DurabilityStats;
}

const DEFAULT_RETENTION = { minRevisions: 1000, minAgeMs: 5 * 60_000 };

function validate(opts: SqliteStoreOptions): Required<Omit<SqliteStoreOptions, 'log' | 'clock' | 'syncFile'>> {
  const retention = opts.retention ?? DEFAULT_RETENTION;
  const problems: string[] = [];
  if (typeof opts.path !== 'string' || opts.path === '') problems.push('path must be a non-empty string');
  if (!(Number.isInteger(retention.minRevisions) && retention.minRevisions >= 0)) problems.push('retention.minRevisions must be an integer >= 0');
  if (!(Number.isFinite(retention.minAgeMs) && retention.minAgeMs >= 0)) problems.push('retention.minAgeMs must be >= 0');
  const watchBufferLimit = opts.watchBufferLimit ?? 10_000;
  if (!(Number.isInteger(watchBufferLimit) && watchBufferLimit > 0)) problems.push('watchBufferLimit must be a positive integer');
  const compactionBatch = opts.compactionBatch ?? 250;
  if (!(Number.isInteger(compactionBatch) && compactionBatch > 0)) problems.push('compactionBatch must be a positive integer');
  const watchReplayPageSize = opts.watchReplayPageSize ?? 500;
  if (!(Number.isInteger(watchReplayPageSize) && watchReplayPageSize > 0)) problems.push('watchReplayPageSize must be a positive integer');
  const durability = opts.durability ?? 'group';
  if (durability !== 'group' && durability !== 'per-commit') problems.push("durability must be 'group' or 'per-commit'");
  if (problems.length > 0) throw new TypeError(`invalid storage options: ${problems.join('; ')}`);
  return {
    path: opts.path,
    retention: { ...retention },
    watchBufferLimit,
    lockWaitMs: opts.lockWaitMs ?? 200,
    compactionBatch,
    watchReplayPageSize,
    durability,
  };
}

function stamp(obj: KubeObject, revision: number): string {
  return JSON.stringify({ ...obj, metadata: { ...obj.metadata, resourceVersion: String(revision) } });
}

/**
 * The texts a stored object's JSON must contain to carry one of a label hint's values, for a
 * search without parsing: stored objects are compact JSON.stringify output, so a label `k: v`
 * appears as `"k":"v"` (found elsewhere too at worst: the watch's filter decides after parsing).
 * Thousands of agents resuming their CSR watches each replay the log of every cluster's CSRs: this
 * keeps the cost of the others' rows to a substring search. Undefined: no usable hint.
 */
function labelNeedles(hints: SelectorHints | undefined): string[] | undefined {
  const label = hints?.label;
  if (!label || label.values.length === 0) return undefined;
  return label.values.map((v) => `${JSON.stringify(label.key)}:${JSON.stringify(v)}`);
}

/**
 * A prefix narrower than a resource type: one object (a full key) or one namespace
 * (`/<group>/<resource>/<namespace>/`). Its history is small next to the log, so its replay reads
 * through the key index; a whole resource type's replay reads the log in revision order.
 */
export function isNarrowPrefix(prefix: string): boolean {
  if (prefix === '') return false;
  if (!prefix.endsWith('/')) return true;
  return prefix.split('/').length > 4;
}

function parse(json: string): KubeObject {
  return JSON.parse(json) as KubeObject;
}

function stored(key: string, row: ObjectRow): StoredObject {
  return { key, revision: row.rev, object: parse(row.value) };
}

/** Keys are `/<group>/<resource>/<namespace>/<name>`; the key-range scans rely on no NUL inside. */
function checkKey(key: string): void {
  if (typeof key !== 'string' || !key.startsWith('/') || key.endsWith('/') || key.includes('\u0000')) {
    throw new TypeError(`invalid storage key ${JSON.stringify(key)}`);
  }
}

function checkRevisionArg(name: string, v: number): void {
  if (!Number.isSafeInteger(v) || v < 0) throw new TypeError(`${name} must be a non-negative integer, got ${String(v)}`);
}

function isUniqueViolation(err: unknown): boolean {
  return (err as { code?: unknown }).code === 'SQLITE_CONSTRAINT_UNIQUE';
}

/** Open (creating if needed) the store; throws StoreLockedError when another process owns the file. */
export function openSqliteStore(options: SqliteStoreOptions): SqliteStore {
  const cfg = Object.freeze(validate(options));
  const log = (options.log ?? nullLogger()).child({ component: 'storage' });
  const clock = options.clock ?? realClock;
  const memory = cfg.path === ':memory:';
  const { db, release } = openDatabase(cfg.path, cfg.lockWaitMs, cfg.durability);
  let st: ReturnType<typeof prepareStatements>;
  let labels: LabelIndex;
  let cst: ReturnType<typeof prepareCompaction>;
  let revision: number;
  let lastCreatedMs: number;
  let compacted: number;
  try {
    st = prepareStatements(db);
    labels = prepareLabelIndex(db);
    cst = prepareCompaction(db);
    revision = Math.max(st.sequence.get() ?? 0, st.maxRev.get() ?? 0);
    lastCreatedMs = st.lastCreated.get() ?? 0;
    compacted = Number(st.getMeta.get(META_COMPACT_REV) ?? '0');
  } catch (err) {
    db.close();
    release();
    throw err;
  }
  let closed = false;
  let gc: GroupCommit | undefined;
  const inTransaction = db.transaction(<T>(body: () => T): T => body());
  log.info('storage opened', { path: cfg.path, resourceVersion: revision, compactedRevision: compacted, durability: memory ? 'memory' : cfg.durability });

  const toEvent = (r: ReplayRow): StoreEvent => {
    const ev: StoreEvent = { type: r.op, key: r.key, revision: r.rev, object: parse(r.value) };
    if (r.op !== 'ADDED' && r.prev_value !== null) ev.prevObject = parse(r.prev_value);
    return ev;
  };

  const hub = createWatchHub({
    bufferLimit: cfg.watchBufferLimit,
    replayPageSize: cfg.watchReplayPageSize,
    deliveryBatch: 500,
    log,
    replay: (prefix, after, upTo, limit, hints) => {
      const { lo, hi } = keyRange(prefix);
      const needles = labelNeedles(hints);
      // One label value (the usual hint): SQLite drops the other rows itself; the page then holds
      // only candidates, and a short page still means the range is exhausted.
      const narrow = isNarrowPrefix(prefix);
      const rows = needles?.length === 1
        ? (narrow ? st.replayNarrowHolding : st.replayHolding).all({ after, upTo, lo, hi, limit, needle: needles[0]! })
        : (narrow ? st.replayNarrow : st.replay).all({ after, upTo, lo, hi, limit });
      const holds = (json: string | null): boolean => json !== null && (needles === undefined || needles.some((n) => json.includes(n)));
      const events: StoreEvent[] = [];
      for (const r of rows) if (holds(r.value) || holds(r.prev_value)) events.push(toEvent(r));
      return { events, rows: rows.length, lastRevision: rows.length > 0 ? rows[rows.length - 1]!.rev : after };
    },
  });

  if (!memory && cfg.durability === 'group') {
    try {
      const g = createGroupCommit({
        walPath: `${cfg.path}-wal`,
        startRevision: revision,
        publish: (ev) => hub.publish(ev),
        syncFile: options.syncFile ?? fdatasyncFile,
        log,
      });
      gc = g;
      // Whatever an earlier run left in the WAL (a crash after commit, before its sync) is
      // made durable now, before anything is served from it.
      g.syncNow();
      if (g.walCreated) syncDirectory(dirname(cfg.path));
    } catch (err) {
      gc?.close();
      db.close();
      release();
      throw err;
    }
  }

  const checkOpen = (): void => {
    if (closed) throw new StoreClosedError();
  };

  const checkReadable = (requested: number): void => {
    if (requested < compacted) throw new StoreCompactedError(requested, compacted);
  };

  /** Appends one row and applies it to `objects`; runs inside a write transaction. */
  const append = (key: string, op: StoreEvent['type'], value: string, prevRev: number, rev: number): void => {
    const now = Math.max(clock.now(), lastCreatedMs);
    st.insertRev.run({ rev, key, op, value, prevRev, createdMs: now });
    if (op === 'DELETED') st.deleteObject.run(key);
    else st.upsertObject.run({ key, rev, value });
    lastCreatedMs = now;
  };

  type Write = { ev: StoreEvent; result: StoredObject };

  const commit = (key: string, opName: string, body: () => Write): StoredObject => {
    checkOpen();
    gc?.assertHealthy();
    checkKey(key);
    const started = clock.now();
    const before = { revision, lastCreatedMs };
    let w: Write;
    try {
      w = inTransaction.immediate(body) as Write;
    } catch (err) {
      revision = before.revision;
      lastCreatedMs = before.lastCreatedMs;
      if (isUniqueViolation(err)) {
        const row = st.getObject.get(key);
        throw new StoreConflictError(key, row ? stored(key, row) : undefined);
      }
      log.debug('store write failed', { op: opName, key, err });
      throw err;
    }
    log.debug('store write', { op: opName, key, resourceVersion: w.result.revision, durationMs: clock.now() - started });
    if (gc) gc.committed(w.result.revision, w.ev);
    else hub.publish(w.ev);
    return w.result;
  };

  const writeNew = (key: string, op: 'ADDED' | 'MODIFIED', obj: KubeObject, prevRev: number, prev: ObjectRow | undefined): Write => {
    const rev = revision + 1;
    const value = stamp(obj, rev);
    append(key, op, value, prevRev, rev);
    revision = rev;
    const ev: StoreEvent = { type: op, key, revision: rev, object: parse(value) };
    if (prev) ev.prevObject = parse(prev.value);
    // The index follows what was stored (the parsed JSON), read from the objects parsed anyway.
    labels.apply(key, ev.prevObject, ev.object);
    return { ev, result: { key, revision: rev, object: parse(value) } };
  };

  const readList = (prefix: string, opts: ListOptions): ListResult => {
    const { lo, hi } = keyRange(prefix);
    const after = opts.startAfterKey ?? '';
    const at = opts.atRevision;
    if (at !== undefined) checkRevisionArg('atRevision', at);
    if (opts.limit !== undefined) checkRevisionArg('limit', opts.limit);
    const historical = at !== undefined && at < revision;
    if (at !== undefined) checkReadable(at);
    const listRev = historical ? at : revision;
    const limit = opts.limit !== undefined && opts.limit > 0 ? opts.limit : Infinity;
    // A hint only narrows a filtered read (without a filter every object is a match).
    const label = opts.filter ? opts.hints?.label : undefined;
    const rows = historical
      ? st.listAt.iterate({ lo, hi, after, at: listRev })
      : label
        ? labels.list(label, { lo, hi, after })
        : st.listCurrent.iterate({ lo, hi, after });
    const items: StoredObject[] = [];
    let more = false;
    for (const row of rows) {
      const obj = parse(row.value);
      if (opts.filter && !opts.filter(obj)) continue;
      if (items.length >= limit) {
        more = true;
        break; // leaving the loop closes the iterator
      }
      items.push({ key: row.key, revision: row.rev, object: obj, bytes: row.value.length });
    }
    const result: ListResult = { items, revision: listRev };
    if (more) {
      const last = items[items.length - 1]!.key;
      result.continueAfterKey = last;
      if (!opts.filter) {
        result.remaining = historical
          ? (st.countAt.get({ lo, hi, after: last, at: listRev }) ?? 0)
          : (st.countCurrent.get({ lo, hi, after: last }) ?? 0);
      }
    } else {
      result.remaining = 0;
    }
    return result;
  };

  interface CompactionInProgress {
    steps: CompactionSteps;
    target: number;
    started: number;
    finished: boolean;
  }
  /** The periodic compaction in progress, and the promise its caller awaits. */
  let compacting: CompactionInProgress | undefined;
  let compactingDone: Promise<number> | undefined;

  /**
   * The compaction due now, or undefined when nothing is due. The floor is raised in memory at once
   * (the caller runs the first step, which persists it, before yielding): from then on a read or a
   * watch below the target is refused, while the rows under it go batch by batch.
   */
  const beginCompaction = (): CompactionInProgress | undefined => {
    const cutoff = clock.now() - cfg.retention.minAgeMs;
    const target = compactionTarget({
      currentRevision: revision,
      compactedRevision: compacted,
      minRevisions: cfg.retention.minRevisions,
      newestOldEnough: st.newestBefore.get({ cutoff, above: compacted }) ?? undefined,
      pinned: hub.minPinnedRevision(),
    });
    if (target === undefined) return undefined;
    const run: CompactionInProgress = {
      steps: compactionSteps(db, cst, {
        done: Number(st.getMeta.get(META_COMPACT_DONE) ?? '0'),
        target,
        batch: cfg.compactionBatch,
        persistTarget: () => st.setMeta.run(META_COMPACT_REV, String(target)),
        persistDone: (done) => st.setMeta.run(META_COMPACT_DONE, String(done)),
      }),
      target,
      started: clock.now(),
      finished: false,
    };
    compacted = target;
    return run;
  };

  const finishCompaction = (run: CompactionInProgress): void => {
    if (run.finished) return;
    run.finished = true;
    if (cfg.path !== ':memory:') db.pragma('wal_checkpoint(TRUNCATE)');
    log.info('compacted revision log', { resourceVersion: run.target, removed: run.steps.removed, durationMs: clock.now() - run.started });
  };

  /** Runs what is left of `run` now; returns the rows it removed here. */
  const runToEnd = (run: CompactionInProgress): number => {
    const before = run.steps.removed;
    while (run.steps.step()) {
      // each step is one bounded transaction
    }
    finishCompaction(run);
    return run.steps.removed - before;
  };

  const store: SqliteStore = {
    currentRevision: () => revision,
    compactedRevision: () => compacted,

    get(key) {
      checkOpen();
      const row = st.getObject.get(key);
      return row ? stored(key, row) : undefined;
    },

    list(prefix, opts = {}) {
      checkOpen();
      return readList(prefix, opts);
    },

    listSize(prefix, opts = {}) {
      checkOpen();
      const { lo, hi } = keyRange(prefix);
      const chunk = 5000;
      // Keys never contain NUL, so `key + NUL` is the first string after `key`.
      const after = opts.startAfterKey;
      let from = after !== undefined && after >= lo ? `${after}\u0000` : lo;
      if (opts.hints?.label) return labels.size(opts.hints.label, from, hi);
      const total = { items: 0, bytes: 0 };
      for (;;) {
        const r = st.sizeCurrentChunk.get({ from, hi, chunk })!;
        total.items += r.items;
        total.bytes += r.bytes;
        if (r.items < chunk || r.last === null) return total;
        from = `${r.last}\u0000`;
      }
    },

    create(key, obj) {
      return commit(key, 'create', () => {
        const cur = st.getObject.get(key);
        if (cur) throw new StoreExistsError(key, stored(key, cur));
        return writeNew(key, 'ADDED', obj, st.newestRevOfKey.get(key) ?? 0, undefined);
      });
    },

    update(key, obj, expectedRevision) {
      return commit(key, 'update', () => {
        const cur = st.getObject.get(key);
        if (expectedRevision !== undefined) checkRevisionArg('expectedRevision', expectedRevision);
        if (!cur) throw new StoreNotFoundError(key);
        if (expectedRevision !== undefined && cur.rev !== expectedRevision) throw new StoreConflictError(key, stored(key, cur));
        return writeNew(key, 'MODIFIED', obj, cur.rev, cur);
      });
    },

    delete(key, expectedRevision) {
      return commit(key, 'delete', () => {
        const cur = st.getObject.get(key);
        if (expectedRevision !== undefined) checkRevisionArg('expectedRevision', expectedRevision);
        if (!cur) throw new StoreNotFoundError(key);
        if (expectedRevision !== undefined && cur.rev !== expectedRevision) throw new StoreConflictError(key, stored(key, cur));
        const rev = revision + 1;
        const last = parse(cur.value);
        const value = stamp(last, rev);
        append(key, 'DELETED', value, cur.rev, rev);
        revision = rev;
        labels.apply(key, last, undefined);
        const ev: StoreEvent = { type: 'DELETED', key, revision: rev, object: parse(value), prevObject: last };
        return { ev, result: { key, revision: rev, object: parse(value) } };
      });
    },

    watch(prefix, opts) {
      checkOpen();
      checkRevisionArg('fromRevision', opts.fromRevision);
      if (opts.fromRevision > 0) checkReadable(opts.fromRevision);
      // Live events start after the last published (durable) revision; newer commits arrive
      // through publish once their sync completes.
      return hub.subscribe(prefix, opts, gc ? gc.publishedRevision() : revision);
    },

    compact() {
      checkOpen();
      // a periodic run in progress is finished here first: two runs must not share the cursor
      let removed = 0;
      if (compacting !== undefined) removed += runToEnd(compacting);
      const run = beginCompaction();
      return run === undefined ? removed : removed + runToEnd(run);
    },

    async compactInSteps() {
      checkOpen();
      if (compactingDone !== undefined) return compactingDone;
      const run = beginCompaction();
      if (run === undefined) return 0;
      compacting = run;
      const done = (async (): Promise<number> => {
        try {
          while (run.steps.step()) {
            await new Promise<void>((resolve) => setImmediate(resolve));
            // closed meanwhile: the persisted cursor lets the next open's first run go on from here
            if (closed) return run.steps.removed;
          }
          finishCompaction(run);
          return run.steps.removed;
        } finally {
          if (compacting === run) compacting = undefined;
        }
      })();
      // cleared once settled (never synchronously: a run of one step settles before this line)
      compactingDone = done;
      const clear = (): void => {
        if (compactingDone === done) compactingDone = undefined;
      };
      done.then(clear, clear);
      return done;
    },

    getMeta(name) {
      checkOpen();
      return st.getMeta.get(name);
    },

    setMeta(name, value) {
      checkOpen();
      if (name.startsWith(RESERVED_META_PREFIX)) throw new Error(`meta name ${name} is reserved for the store`);
      gc?.assertHealthy();
      st.setMeta.run(name, value);
      gc?.syncNow();
    },

    whenDurable(rev) {
      if (!gc) return Promise.resolve();
      // never wait for a revision that does not exist yet
      return gc.whenDurable(Math.min(rev, revision));
    },

    flush() {
      if (!gc) return Promise.resolve();
      return gc.whenDurable(revision);
    },

    durableRevision: () => (gc ? gc.publishedRevision() : revision),

    durabilityStats: () => gc?.stats() ?? { syncs: 0, commitsSynced: 0, durableRevision: revision },

    close() {
      if (closed) return;
      closed = true;
      gc?.close();
      hub.closeAll();
      db.close();
      release();
      log.debug('storage closed', {});
    },
  };
  return store;
}
