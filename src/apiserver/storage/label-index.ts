// The label index of the SQLite store: one row (label name, label value, object key) per string
// label of every CURRENT object, so a list whose selector pins a label reads just the objects
// carrying it instead of parsing the whole collection.
//
// The store keeps it in the same transaction as each write, from the objects it already has in
// hand (the stored version and the previous one), touching only the labels that changed: an update
// that leaves the labels alone costs no index write at all. Name and value are separate columns, so
// no encoding can make two labels collide. Only string values are indexed: a label selector never
// matches any other value. Rows that outlive their object (which the write path never leaves) would
// only widen a read, never narrow it: reads join the current objects and the caller's filter
// decides every item.

import type Database from 'better-sqlite3';
import type { KubeObject } from '../../api/meta.js';
import type { ListRow } from './sqlite-statements.js';
import type { SelectorHints } from './types.js';

/** Builds the index from `objects` (a fresh one, or one written before the index existed). */
export const BUILD_LABEL_INDEX = `
DELETE FROM object_labels;
INSERT OR IGNORE INTO object_labels (name, value, key)
  SELECT j.key, j.value, o.key FROM objects o, json_each(o.value, '$.metadata.labels') j
   WHERE j.type = 'text' AND j.key IS NOT NULL;
`;

export type LabelHint = NonNullable<SelectorHints['label']>;

type Range = { lo: string; hi: string; after: string };

/** More distinct values than this are merged by a sort instead of one ordered scan per value. */
const MAX_MERGED_VALUES = 16;

function labelsOf(obj: KubeObject | undefined): Record<string, unknown> | undefined {
  const labels: unknown = obj?.metadata?.labels;
  return typeof labels === 'object' && labels !== null ? (labels as Record<string, unknown>) : undefined;
}

function hasLabel(labels: Record<string, unknown> | undefined, name: string, value: string): boolean {
  return labels !== undefined && Object.hasOwn(labels, name) && labels[name] === value;
}

/** The statements behind the index, over an open database whose schema has `object_labels`. */
export function prepareLabelIndex(db: Database.Database) {
  const add = db.prepare<[string, string, string]>('INSERT OR IGNORE INTO object_labels (name, value, key) VALUES (?, ?, ?)');
  const remove = db.prepare<[string, string, string]>('DELETE FROM object_labels WHERE name = ? AND value = ? AND key = ?');
  // One ordered index range per value; with several values SQLite merges the ordered arms (no
  // sort), so a page stops reading as soon as it is full. l.key is the selected key so that the
  // ORDER BY is the index order.
  const arm = (i: number): string =>
    `SELECT l.key AS key, o.rev AS rev, o.value AS value FROM object_labels l CROSS JOIN objects o ON o.key = l.key
      WHERE l.name = @name AND l.value = @v${i} AND l.key >= @lo AND l.key < @hi AND l.key > @after`;
  const merged = new Map<number, Database.Statement<Range & Record<string, string>, ListRow>>();
  const mergedOf = (n: number): Database.Statement<Range & Record<string, string>, ListRow> => {
    let s = merged.get(n);
    if (!s) {
      s = db.prepare<Range & Record<string, string>, ListRow>(
        `${Array.from({ length: n }, (_, i) => arm(i)).join(' UNION ALL ')} ORDER BY key`,
      );
      merged.set(n, s);
    }
    return s;
  };
  const sorted = db.prepare<Range & { name: string; values: string }, ListRow>(
    `SELECT l.key AS key, o.rev AS rev, o.value AS value FROM object_labels l CROSS JOIN objects o ON o.key = l.key
      WHERE l.name = @name AND l.value IN (SELECT value FROM json_each(@values))
        AND l.key >= @lo AND l.key < @hi AND l.key > @after
      ORDER BY l.key`,
  );
  const size = db.prepare<{ name: string; values: string; from: string; hi: string }, { items: number; bytes: number }>(
    `SELECT count(*) AS items, total(octet_length(o.value)) AS bytes
       FROM object_labels l CROSS JOIN objects o ON o.key = l.key
      WHERE l.name = @name AND l.value IN (SELECT value FROM json_each(@values)) AND l.key >= @from AND l.key < @hi`,
  );

  return {
    /**
     * Brings the rows of `key` from the labels of `before` (what `objects` held) to those of
     * `after` (what it holds now; undefined after a delete). Runs inside the write's transaction.
     */
    apply(key: string, before: KubeObject | undefined, after: KubeObject | undefined): void {
      const old = labelsOf(before);
      const now = labelsOf(after);
      if (old) {
        for (const [name, value] of Object.entries(old)) {
          if (typeof value === 'string' && !hasLabel(now, name, value)) remove.run(name, value, key);
        }
      }
      if (now) {
        for (const [name, value] of Object.entries(now)) {
          if (typeof value === 'string' && !hasLabel(old, name, value)) add.run(name, value, key);
        }
      }
    },

    /** Current objects in [lo, hi) after `after` carrying the label with one of the values, in key order. */
    list(hint: LabelHint, range: Range): IterableIterator<ListRow> {
      const values = [...new Set(hint.values)];
      if (values.length > MAX_MERGED_VALUES) {
        return sorted.iterate({ ...range, name: hint.key, values: JSON.stringify(values) });
      }
      if (values.length === 0) return [][Symbol.iterator]();
      const params: Range & Record<string, string> = { ...range, name: hint.key };
      values.forEach((v, i) => {
        params[`v${i}`] = v;
      });
      return mergedOf(values.length).iterate(params);
    },

    /** Count and stored size of those objects (from the key `from` on), without reading them. */
    size(hint: LabelHint, from: string, hi: string): { items: number; bytes: number } {
      return size.get({ name: hint.key, values: JSON.stringify([...new Set(hint.values)]), from, hi })!;
    },
  };
}

export type LabelIndex = ReturnType<typeof prepareLabelIndex>;
