// The prepared SQL of the SQLite store, in one place. Key ranges are half-open [lo, hi) from
// key-range.ts so the primary-key / (key, rev) indexes serve the scans.

import type Database from 'better-sqlite3';
import type { StoreEventType } from './types.js';

export interface ObjectRow {
  rev: number;
  value: string;
}
export interface ListRow {
  key: string;
  rev: number;
  value: string;
}
export interface ReplayRow {
  rev: number;
  key: string;
  op: StoreEventType;
  value: string;
  prev_value: string | null;
}

type Range = { lo: string; hi: string; after: string };

interface ReplayParams {
  after: number;
  upTo: number;
  lo: string;
  hi: string;
  limit: number;
}

const NEEDLE_FILTER = 'AND (instr(r.value, @needle) > 0 OR instr(p.value, @needle) > 0)';

/** Log rows with after < rev <= upTo and lo <= key < hi in revision order, with the previous value. */
function replaySql(indexed: string, filter: string): string {
  return `SELECT r.rev AS rev, r.key AS key, r.op AS op, r.value AS value, p.value AS prev_value
            FROM revisions r ${indexed} LEFT JOIN revisions p ON p.rev = r.prev_rev AND r.op != 'ADDED'
           WHERE r.rev > @after AND r.rev <= @upTo AND r.key >= @lo AND r.key < @hi ${filter}
           ORDER BY r.rev
           LIMIT @limit`;
}

export function prepareStatements(db: Database.Database) {
  return {
    sequence: db.prepare<[], number>("SELECT seq FROM sqlite_sequence WHERE name = 'revisions'").pluck(),
    maxRev: db.prepare<[], number | null>('SELECT max(rev) FROM revisions').pluck(),
    lastCreated: db.prepare<[], number>('SELECT created_ms FROM revisions ORDER BY rev DESC LIMIT 1').pluck(),
    getObject: db.prepare<[string], ObjectRow>('SELECT rev, value FROM objects WHERE key = ?'),
    /** Newest row of a key, deleted or not: the base revision of a create. */
    newestRevOfKey: db.prepare<[string], number | null>('SELECT max(rev) FROM revisions WHERE key = ?').pluck(),
    insertRev: db.prepare<{ rev: number; key: string; op: StoreEventType; value: string; prevRev: number; createdMs: number }>(
      'INSERT INTO revisions (rev, key, op, value, prev_rev, created_ms) VALUES (@rev, @key, @op, @value, @prevRev, @createdMs)',
    ),
    upsertObject: db.prepare<{ key: string; rev: number; value: string }>(
      'INSERT INTO objects (key, rev, value) VALUES (@key, @rev, @value) ON CONFLICT (key) DO UPDATE SET rev = excluded.rev, value = excluded.value',
    ),
    deleteObject: db.prepare<[string]>('DELETE FROM objects WHERE key = ?'),
    listCurrent: db.prepare<Range, ListRow>(
      'SELECT key, rev, value FROM objects WHERE key >= @lo AND key < @hi AND key > @after ORDER BY key',
    ),
    // Sizes come from octet_length() alone, which SQLite answers from the record header without
    // reading the value. The upper key bound stays inside the LIMITed scan: it makes a whole-table
    // size ~2× slower (each record's key is compared), but outside it every narrow read (one
    // namespace, one object) paid for a scan of `chunk` records past its range — ~1 ms per list
    // already at 3,000 objects, on every agent's list of its own objects.
    sizeCurrentChunk: db.prepare<{ from: string; hi: string; chunk: number }, { items: number; bytes: number; last: string | null }>(
      `SELECT count(*) AS items, total(n) AS bytes, max(key) AS last FROM (
         SELECT key, octet_length(value) AS n FROM objects WHERE key >= @from AND key < @hi ORDER BY key LIMIT @chunk
       )`,
    ),
    countCurrent: db
      .prepare<Range, number>('SELECT count(*) FROM objects WHERE key >= @lo AND key < @hi AND key > @after')
      .pluck(),
    // SQLite guarantees that bare columns next to max() come from the row holding the maximum.
    listAt: db.prepare<Range & { at: number }, ListRow>(
      `SELECT key, rev, value FROM (
         SELECT key, max(rev) AS rev, value, op FROM revisions
          WHERE key >= @lo AND key < @hi AND key > @after AND rev <= @at
          GROUP BY key
       ) WHERE op != 'DELETED' ORDER BY key`,
    ),
    countAt: db
      .prepare<Range & { at: number }, number>(
        `SELECT count(*) FROM (
           SELECT max(rev) AS rev, op FROM revisions
            WHERE key >= @lo AND key < @hi AND key > @after AND rev <= @at
            GROUP BY key
         ) WHERE op != 'DELETED'`,
      )
      .pluck(),
    // Replay reads by revision: the log rows in (after, upTo] in order, those outside the key range
    // skipped. Suits a range that most writes fall in (a resource type); for a narrow one see
    // replayNarrow below.
    replay: db.prepare<ReplayParams, ReplayRow>(replaySql('', '')),
    // The same, keeping only rows whose object or previous object holds `needle` (a label's JSON
    // text): the others are skipped inside SQLite, never copied out.
    replayHolding: db.prepare<ReplayParams & { needle: string }, ReplayRow>(replaySql('', NEEDLE_FILTER)),
    // Replay of a narrow key range (one object, one namespace) through the key index: the history of
    // those keys only, its revisions read from the index entries (which hold the rowid) before any
    // row is fetched, then sorted. A watch of one object resumed after a busy minute otherwise reads
    // every row the whole store wrote in that minute (thousands of agents resume theirs).
    replayNarrow: db.prepare<ReplayParams, ReplayRow>(replaySql('INDEXED BY revisions_key_prev', '')),
    replayNarrowHolding: db.prepare<ReplayParams & { needle: string }, ReplayRow>(replaySql('INDEXED BY revisions_key_prev', NEEDLE_FILTER)),
    /** Newest retained revision written at or before the cutoff (rows' created_ms never decrease). */
    newestBefore: db
      .prepare<{ cutoff: number; above: number }, number>(
        'SELECT rev FROM revisions WHERE rev > @above AND created_ms <= @cutoff ORDER BY rev DESC LIMIT 1',
      )
      .pluck(),
    getMeta: db.prepare<[string], string>('SELECT value FROM meta WHERE name = ?').pluck(),
    setMeta: db.prepare<[string, string]>(
      'INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
    ),
  };
}
