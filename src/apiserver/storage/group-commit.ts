// Group commit: many commits, one fsync.
//
// In 'group' durability the database runs WAL with `synchronous=NORMAL`: a commit appends its
// frames to `<db>-wal` (in the OS page cache) and returns without an fsync, so it already survives
// kill -9 but not yet a power loss. This module makes commits durable in batches: it keeps its own
// descriptor on the -wal file and runs `fdatasync` on it through libuv's threadpool (the event
// loop keeps serving requests meanwhile). fsync works on the file, not the descriptor, so it
// flushes the frames SQLite wrote through its own descriptor.
//
// Rules:
// - A sync covers every commit made before it *started* (`target` = revision at start).
//   `whenDurable(rev)` resolves at once when rev is already covered; otherwise it waits for the
//   first sync that covers it: the one in flight if it started after rev was committed, else the
//   next one. Concurrent callers share one sync; a sync starts as soon as the previous one ends
//   and something new has been committed. With none in flight, a commit starts one from a
//   microtask: commits made by the same synchronous code join it, and nothing else is waited for
//   (a lone writer pays one fsync and no window; under load, the commits made during a sync
//   form the next batch).
// - Events are handed to `publish` in revision order once their sync completed (never before), so
//   a watcher cannot see a write that a power loss could still take back.
// - A failed fdatasync is fatal for durability (after an I/O error Linux may have dropped the
//   dirty pages): every waiter and later call is rejected with the error.
// - The -wal file is never unlinked while SQLite's connection is open: a checkpoint (automatic,
//   or `wal_checkpoint(TRUNCATE)` after compaction) restarts or truncates the same file, so the
//   descriptor stays valid. SQLite syncs the database file itself at each checkpoint.

import { closeSync, constants, fdatasync, fdatasyncSync, existsSync, openSync } from 'node:fs';
import type { Logger } from '../../util/logger.js';
import type { StoreEvent } from './types.js';

/** Makes everything written so far to the file behind `fd` durable (fdatasync by default). */
export type SyncFile = (fd: number) => Promise<void>;

export function fdatasyncFile(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fdatasync(fd, (err) => (err ? reject(err) : resolve())));
}

export interface DurabilityStats {
  /** fsyncs of the WAL run by group commit (0 in per-commit mode, where SQLite syncs). */
  syncs: number;
  /** Revisions made durable by those syncs. */
  commitsSynced: number;
  /** Highest revision known durable. */
  durableRevision: number;
}

export interface GroupCommit {
  /** Record a committed revision and its event (undefined for writes without one). */
  committed(revision: number, ev: StoreEvent | undefined): void;
  whenDurable(revision: number): Promise<void>;
  /** Highest revision handed to `publish` (= durable). */
  publishedRevision(): number;
  /** Synchronously sync now (rare, small writes such as meta): everything committed becomes durable. */
  syncNow(): void;
  stats(): DurabilityStats;
  /** Throws the sync error once a sync has failed (writes are refused from then on). */
  assertHealthy(): void;
  /** Final synchronous sync, settle every waiter, release the descriptor (after any sync in flight). */
  close(): void;
}

export interface GroupCommitOptions {
  walPath: string;
  /** Revision already durable at open. */
  startRevision: number;
  publish: (ev: StoreEvent) => void;
  syncFile: SyncFile;
  log: Logger;
}

interface Waiter {
  revision: number;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/** Opens the -wal file for syncing; returns whether it had to be created (the caller syncs the directory). */
function openWal(walPath: string): { fd: number; created: boolean } {
  const created = !existsSync(walPath);
  // O_RDWR without ever writing: fsync on a read-only descriptor is not portable.
  return { fd: openSync(walPath, constants.O_RDWR | constants.O_CREAT, 0o600), created };
}

export function createGroupCommit(opts: GroupCommitOptions): GroupCommit & { walCreated: boolean } {
  const { fd, created } = openWal(opts.walPath);
  let committedRev = opts.startRevision;
  let durableRev = opts.startRevision;
  let pending: StoreEvent[] = [];
  let waiters: Waiter[] = [];
  let inFlight = false;
  let scheduled = false;
  let failed: unknown;
  let closed = false;
  let fdOpen = true;
  const stats = { syncs: 0, commitsSynced: 0 };

  const closeFd = (): void => {
    if (!fdOpen) return;
    fdOpen = false;
    closeSync(fd);
  };

  /** Everything up to `rev` is durable: publish its events in order and settle its waiters. */
  const markDurable = (rev: number): void => {
    if (rev <= durableRev) return;
    stats.commitsSynced += rev - durableRev;
    durableRev = rev;
    let n = 0;
    while (n < pending.length && pending[n]!.revision <= rev) n++;
    const ready = n === pending.length ? pending : pending.slice(0, n);
    pending = n === pending.length ? [] : pending.slice(n);
    if (!closed) for (const ev of ready) opts.publish(ev);
    if (waiters.length === 0) return;
    const still: Waiter[] = [];
    for (const w of waiters) {
      if (w.revision <= rev) w.resolve();
      else still.push(w);
    }
    waiters = still;
  };

  const fail = (err: unknown): void => {
    failed = err;
    opts.log.error('storage sync failed; refusing further writes', { err });
    const ws = waiters;
    waiters = [];
    pending = [];
    for (const w of ws) w.reject(err);
  };

  const startSync = (): void => {
    scheduled = false;
    if (inFlight || closed || failed !== undefined || committedRev <= durableRev) return;
    inFlight = true;
    const target = committedRev;
    stats.syncs++;
    opts.syncFile(fd).then(
      () => {
        inFlight = false;
        if (closed) {
          closeFd();
          return;
        }
        markDurable(target);
        if (committedRev > durableRev) startSync();
      },
      (err: unknown) => {
        inFlight = false;
        if (closed) {
          closeFd();
          return;
        }
        fail(err);
      },
    );
  };

  const schedule = (): void => {
    if (scheduled || inFlight) return; // an in-flight sync starts the next one when it ends
    scheduled = true;
    queueMicrotask(startSync);
  };

  return {
    walCreated: created,

    committed(revision, ev) {
      committedRev = revision;
      if (ev) pending.push(ev);
      schedule();
    },

    whenDurable(revision) {
      if (failed !== undefined) return Promise.reject(failed);
      if (revision <= durableRev) return Promise.resolve();
      if (closed) return Promise.resolve(); // close() synced everything that was committed
      return new Promise<void>((resolve, reject) => {
        waiters.push({ revision, resolve, reject });
        schedule();
      });
    },

    publishedRevision: () => durableRev,

    syncNow() {
      if (failed !== undefined) throw failed;
      fdatasyncSync(fd);
      markDurable(committedRev);
    },

    stats: () => ({ ...stats, durableRevision: durableRev }),

    assertHealthy() {
      if (failed !== undefined) throw failed;
    },

    close() {
      if (closed) return;
      closed = true; // from here on nothing is published: the store drops its watchers
      try {
        if (failed === undefined && committedRev > durableRev) {
          fdatasyncSync(fd);
          markDurable(committedRev);
        }
      } catch (err) {
        fail(err);
      }
      const ws = waiters;
      waiters = [];
      pending = [];
      for (const w of ws) w.resolve();
      if (!inFlight) closeFd();
    },
  };
}
