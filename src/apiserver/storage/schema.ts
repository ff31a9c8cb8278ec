// Opening the SQLite file: pragmas, the single-owner lock and the schema.
//
// Durability (an acknowledged write survives kill -9 and power loss), two modes:
// - 'per-commit': WAL with `synchronous=FULL`, every commit fsyncs the WAL before better-sqlite3
//   returns;
// - 'group': WAL with `synchronous=NORMAL`, commits return without an fsync (they survive kill -9,
//   the frames are in the OS page cache) and group-commit.ts fsyncs the WAL for many commits at
//   once; the server acknowledges a write only after that sync (Store.whenDurable).
//
// Ownership: one process owns the file. `locking_mode=EXCLUSIVE` makes SQLite keep its file lock
// for the life of the connection (the OS drops it when the process dies, so a kill -9 leaves no
// stale lock), and in WAL mode it also avoids the shared-memory index. We take the lock at open
// with a write transaction. A side file `<path>.owner` records the owner's pid so the error seen by
// a second process can say who holds the database; it is informational only.
//
// Privacy: the database, its -wal (every recent write, secrets included) and the owner file are
// 0600. SQLite creates a new database with 0644 minus the umask, and gives the -wal and -shm files
// it creates the mode of the database file, so the database file is created 0600 before SQLite
// opens it and existing files are tightened first.

import Database from 'better-sqlite3';
import { chmodSync, closeSync, fsyncSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { ensurePrivateFileSync, PRIVATE_FILE_MODE } from '../../util/private-files.js';
import { BUILD_LABEL_INDEX } from './label-index.js';
import { StoreLockedError } from './store-errors.js';

/**
 * 2: adds `object_labels`. A database of version 1 gets it built at open; a binary that knows only
 * version 1 refuses a version 2 database, since its writes would leave the index stale.
 */
const SCHEMA_VERSION = '2';
/** Names in `meta` the store keeps for itself; setMeta refuses them. */
export const META_COMPACT_REV = 'store.compact_rev';
/** Compaction progress: log rows at or below it have been processed. */
export const META_COMPACT_DONE = 'store.compact_done';
const META_SCHEMA_VERSION = 'store.schema_version';
export const RESERVED_META_PREFIX = 'store.';

const DDL = `
CREATE TABLE IF NOT EXISTS revisions (
  rev INTEGER PRIMARY KEY AUTOINCREMENT,
  key TEXT NOT NULL,
  op TEXT NOT NULL CHECK (op IN ('ADDED', 'MODIFIED', 'DELETED')),
  value TEXT NOT NULL,
  prev_rev INTEGER NOT NULL,
  created_ms INTEGER NOT NULL
);
-- Two writes from the same base revision of a key can never both commit (lost race impossible).
-- The index also serves every per-key history lookup (newest row of a key at or below a revision:
-- lists at a past revision, compaction, a create's base): SQLite stores the rowid (= rev) in each
-- index entry, so no second index on (key, rev) is needed, saving a page write per commit.
CREATE UNIQUE INDEX IF NOT EXISTS revisions_key_prev ON revisions (key, prev_rev);
CREATE TABLE IF NOT EXISTS objects (
  key TEXT PRIMARY KEY,
  rev INTEGER NOT NULL,
  value TEXT NOT NULL
) WITHOUT ROWID;
-- The labels of the current objects (see label-index.ts), kept in the transaction of every write.
CREATE TABLE IF NOT EXISTS object_labels (
  name TEXT NOT NULL,
  value TEXT NOT NULL,
  key TEXT NOT NULL,
  PRIMARY KEY (name, value, key)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS meta (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;
`;

export interface OpenedDatabase {
  db: Database.Database;
  /** Removes the owner side file (file databases only). */
  release(): void;
}

function ownerFile(path: string): string {
  return `${path}.owner`;
}

function readOwnerPid(path: string): number | undefined {
  try {
    const n = Number.parseInt(readFileSync(ownerFile(path), 'utf8').trim(), 10);
    return Number.isInteger(n) && n > 0 ? n : undefined;
  } catch {
    return undefined;
  }
}

export function syncDirectory(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Creates the database file 0600 if missing and makes it and its side files 0600. An existing
 * database is never opened here: closing any descriptor of a file drops every POSIX lock this
 * process holds on it, which would release an owner's lock in this same process.
 */
function makeDatabaseFilesPrivate(path: string): void {
  try {
    closeSync(openSync(path, 'wx', PRIVATE_FILE_MODE));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  for (const f of [path, `${path}-wal`, `${path}-shm`, `${path}-journal`, ownerFile(path)]) ensurePrivateFileSync(f);
}

function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}

/** Opens (creating if needed) the database, takes the lock and applies the schema. */
export type Durability = 'per-commit' | 'group';

export function openDatabase(path: string, lockWaitMs: number, durability: Durability = 'per-commit'): OpenedDatabase {
  const memory = path === ':memory:';
  let db: Database.Database;
  try {
    if (!memory) makeDatabaseFilesPrivate(path);
    db = new Database(path);
  } catch (err) {
    throw new Error(`storage ${path}: cannot open the database: ${(err as Error).message}`, { cause: err });
  }
  try {
    if (!memory) {
      db.pragma(`busy_timeout = ${Math.max(0, Math.floor(lockWaitMs))}`);
      db.pragma('locking_mode = EXCLUSIVE');
      try {
        db.pragma('journal_mode = WAL');
        // A write transaction takes the exclusive lock now rather than at the first real write.
        db.exec('BEGIN IMMEDIATE; COMMIT;');
      } catch (err) {
        if (isBusy(err)) throw new StoreLockedError(path, readOwnerPid(path), { cause: err });
        throw err;
      }
      const mode = db.pragma('journal_mode', { simple: true });
      if (mode !== 'wal') throw new Error(`storage ${path}: could not enable WAL (journal_mode=${String(mode)})`);
    }
    db.pragma(durability === 'group' ? 'synchronous = NORMAL' : 'synchronous = FULL');
    db.pragma('foreign_keys = OFF');
    db.exec(DDL);
    const version = db.prepare('SELECT value FROM meta WHERE name = ?').pluck().get(META_SCHEMA_VERSION) as
      | string
      | undefined;
    if (version === undefined || version === '1') {
      // A new database, or one written before the label index: build the index from the current
      // objects and record the version in one transaction, so a crash leaves either both or neither.
      db.transaction(() => {
        db.exec(BUILD_LABEL_INDEX);
        db.prepare('INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value')
          .run(META_SCHEMA_VERSION, SCHEMA_VERSION);
      }).immediate();
    } else if (version !== SCHEMA_VERSION) {
      throw new Error(`storage ${path}: unsupported schema version ${version} (expected ${SCHEMA_VERSION})`);
    }
    if (!memory) {
      writeFileSync(ownerFile(path), `${process.pid}\n`, { mode: PRIVATE_FILE_MODE });
      chmodSync(ownerFile(path), PRIVATE_FILE_MODE);
      // The -wal now exists; SQLite gave it the database file's mode, this is belt and braces.
      ensurePrivateFileSync(`${path}-wal`);
      // The database and -wal files now exist; make their directory entries durable too, so a
      // power loss cannot lose a WAL file holding acknowledged commits.
      syncDirectory(dirname(path));
    }
  } catch (err) {
    db.close();
    throw err;
  }
  const release = (): void => {
    if (memory) return;
    if (readOwnerPid(path) === process.pid) rmSync(ownerFile(path), { force: true });
  };
  return { db, release };
}
