// Which watchers an event can concern, found without looking at the others.
//
// Watchers are filed by the key range they subscribed to (see key-range.ts: a prefix ending in
// `/`, one exact key, or '' for everything). An event's key `/g/r/ns/name` can only concern the
// ranges '', `/`, `/g/`, `/g/r/`, `/g/r/ns/` and the key itself, so a lookup costs a handful of map
// reads whatever the number of watchers.
//
// Within a range, a watcher whose filter only keeps objects carrying label `k` with one of a few
// values (its label hint) is filed once per value under `k=value`; the others sit in a plain set.
// An event reaches a hinted watcher only if its new or its previous object carries one of those
// labels: the previous object matters because a watch turns "no longer matches" into a DELETED.
// So thousands of agents watching the same collection, each for its own cluster's label, cost one
// lookup per label of the event's objects instead of one check per agent.
//
// Removal is O(1) and drops every set or map it leaves empty, so a long run of short watches
// leaves nothing behind.

import type { KubeObject } from '../../api/meta.js';
import type { SelectorHints, StoreEvent } from './types.js';

interface Entry<T> {
  readonly item: T;
  /** Number of the last lookup that visited this entry: an event reaches an entry once. */
  seen: number;
}

interface RangeBucket<T> {
  /** Watchers without a usable label hint. */
  plain: Set<Entry<T>>;
  /** label key → label value → watchers whose hint names that value. */
  labeled: Map<string, Map<string, Set<Entry<T>>>>;
}

export interface WatchIndex<T> {
  /** File `item` under its key range and hints; returns its (idempotent) removal. */
  add(item: T, prefix: string, hints: SelectorHints | undefined): () => void;
  /**
   * Call `visit` once for every item that can want `ev`. `visit` may remove items (the current one
   * included) but must not add any.
   */
  forEachMatch(ev: StoreEvent, visit: (item: T, ev: StoreEvent) => void): void;
  /** Items filed. */
  size(): number;
  /** Sets and maps currently held (0 once every item is removed: nothing leaks). */
  bucketCount(): number;
}

export function createWatchIndex<T>(): WatchIndex<T> {
  const ranges = new Map<string, RangeBucket<T>>();
  let items = 0;
  let lookup = 0;

  const pruneRange = (prefix: string, b: RangeBucket<T>): void => {
    if (b.plain.size === 0 && b.labeled.size === 0 && ranges.get(prefix) === b) ranges.delete(prefix);
  };

  const visitSet = (set: Set<Entry<T>> | undefined, ev: StoreEvent, visit: (item: T, ev: StoreEvent) => void): void => {
    if (set === undefined) return;
    for (const e of set) {
      if (e.seen === lookup) continue;
      e.seen = lookup;
      visit(e.item, ev);
    }
  };

  const visitLabeled = (b: RangeBucket<T>, obj: KubeObject | undefined, ev: StoreEvent, visit: (item: T, ev: StoreEvent) => void): void => {
    const labels = obj?.metadata.labels;
    if (!labels) return;
    // The object's labels are few; the hinted label keys under a range could be many.
    for (const k in labels) {
      const byValue = b.labeled.get(k);
      if (byValue === undefined) continue;
      const v = labels[k];
      if (typeof v === 'string') visitSet(byValue.get(v), ev, visit);
    }
  };

  const visitRange = (prefix: string, ev: StoreEvent, visit: (item: T, ev: StoreEvent) => void): void => {
    const b = ranges.get(prefix);
    if (b === undefined) return;
    visitSet(b.plain, ev, visit);
    if (b.labeled.size === 0) return;
    visitLabeled(b, ev.object, ev, visit);
    visitLabeled(b, ev.prevObject, ev, visit);
  };

  return {
    add(item, prefix, hints) {
      const entry: Entry<T> = { item, seen: 0 };
      let b = ranges.get(prefix);
      if (b === undefined) {
        b = { plain: new Set(), labeled: new Map() };
        ranges.set(prefix, b);
      }
      const bucket = b;
      items++;
      const label = hints?.label;
      // an empty value list pins nothing usable: such a watcher is filed as plain (hints are advisory)
      const values = label && label.values.length > 0 ? [...new Set(label.values)] : undefined;
      let removed = false;
      if (label === undefined || values === undefined) {
        bucket.plain.add(entry);
        return () => {
          if (removed) return;
          removed = true;
          items--;
          bucket.plain.delete(entry);
          pruneRange(prefix, bucket);
        };
      }
      let byValue = bucket.labeled.get(label.key);
      if (byValue === undefined) {
        byValue = new Map();
        bucket.labeled.set(label.key, byValue);
      }
      for (const v of values) {
        let set = byValue.get(v);
        if (set === undefined) {
          set = new Set();
          byValue.set(v, set);
        }
        set.add(entry);
      }
      const labelMap = byValue;
      return () => {
        if (removed) return;
        removed = true;
        items--;
        for (const v of values) {
          const set = labelMap.get(v);
          if (set === undefined) continue;
          set.delete(entry);
          if (set.size === 0) labelMap.delete(v);
        }
        if (labelMap.size === 0) bucket.labeled.delete(label.key);
        pruneRange(prefix, bucket);
      };
    },

    forEachMatch(ev, visit) {
      lookup++;
      const key = ev.key;
      visitRange('', ev, visit);
      // every range ending at a '/' of the key, then the key itself
      for (let i = key.indexOf('/'); i >= 0; i = key.indexOf('/', i + 1)) visitRange(key.slice(0, i + 1), ev, visit);
      if (key !== '' && !key.endsWith('/')) visitRange(key, ev, visit);
    },

    size: () => items,

    bucketCount() {
      let n = ranges.size;
      for (const b of ranges.values()) {
        n += b.labeled.size;
        for (const byValue of b.labeled.values()) n += byValue.size;
      }
      return n;
    },
  };
}
