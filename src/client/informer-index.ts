// The informer's cache with a namespace index and a label index, so a lister asked for one
// namespace or for `key=value` / `key in (...)` answers from the matching keys instead of scanning
// (and label-matching) every cached object. The indexes live inside the Map's own set/delete/clear,
// so every write (watch events, relists and the deletes a relist detects) keeps them current.
// Answers are exactly what a full scan returns, in the same order: the cache's insertion order.

import type { KubeObject } from '../api/meta.js';
import { matchesLabels, parseLabelSelector, type LabelSelector } from '../api/label-selectors.js';
import { splitKey } from './keys.js';

type Labels = Record<string, string> | undefined;

const hasOwn = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/** Adds `key` to the set stored under `name`, creating the set on first use. */
function addTo<K>(index: Map<K, Set<string>>, name: K, key: string): void {
  const keys = index.get(name);
  if (keys) keys.add(key);
  else index.set(name, new Set([key]));
}

/** Removes `key` from the set under `name`; an emptied set is dropped so that the index cannot grow without bound. */
function removeFrom<K>(index: Map<K, Set<string>>, name: K, key: string): void {
  const keys = index.get(name);
  if (!keys) return;
  keys.delete(key);
  if (keys.size === 0) index.delete(name);
}

export class IndexedCache<T extends KubeObject> extends Map<string, T> {
  /** namespace → keys of the objects in it (cluster-scoped keys are not indexed). */
  private readonly byNamespace = new Map<string, Set<string>>();
  /** label key → label value → keys of the objects carrying that label. */
  private readonly byLabel = new Map<string, Map<string, Set<string>>>();
  /** key → its rank in the Map's iteration order (given when the key enters, like the Map's own order). */
  private readonly rank = new Map<string, number>();
  private nextRank = 0;

  constructor() {
    // No initial entries: Map's constructor would call set() before the indexes above exist.
    super();
  }

  override set(key: string, obj: T): this {
    const had = super.has(key);
    const old = had ? super.get(key) : undefined;
    super.set(key, obj);
    if (!had) {
      this.rank.set(key, this.nextRank++);
      const ns = splitKey(key).namespace;
      if (ns !== undefined) addTo(this.byNamespace, ns, key);
    }
    this.reindexLabels(key, old?.metadata.labels, obj.metadata.labels);
    return this;
  }

  override delete(key: string): boolean {
    if (!super.has(key)) return false;
    const old = super.get(key);
    super.delete(key);
    this.rank.delete(key);
    const ns = splitKey(key).namespace;
    if (ns !== undefined) removeFrom(this.byNamespace, ns, key);
    this.reindexLabels(key, old?.metadata.labels, undefined);
    return true;
  }

  override clear(): void {
    super.clear();
    this.byNamespace.clear();
    this.byLabel.clear();
    this.rank.clear();
  }

  /**
   * The cached objects in `namespace` (when given) that match `sel` (when given), in the cache's
   * order. Candidates come from the smallest of the namespace's keys and the keys of each
   * `=`, `==` or `in` requirement; each candidate then passes the full namespace and selector
   * checks. Without such a narrowing every object is checked, as before the indexes existed.
   */
  select(namespace: string | undefined, sel: LabelSelector | undefined): T[] {
    const candidates = this.candidates(namespace, sel);
    if (candidates === 'none') return [];
    if (candidates === undefined) return this.scan(namespace, sel);
    const hits: Array<{ rank: number; obj: T }> = [];
    for (const keys of candidates) {
      for (const key of keys) {
        const obj = super.get(key);
        if (obj === undefined || !this.matches(key, obj, namespace, sel)) continue;
        hits.push({ rank: this.rank.get(key) ?? 0, obj });
      }
    }
    hits.sort((a, b) => a.rank - b.rank);
    return hits.map((h) => h.obj);
  }

  /** How many objects select() would return, without building (or ordering) the list. */
  count(namespace: string | undefined, sel: LabelSelector | undefined): number {
    const candidates = this.candidates(namespace, sel);
    if (candidates === 'none') return 0;
    // Nothing narrows: no namespace was given, and without requirements everything matches.
    if (candidates === undefined && (!sel || sel.requirements.length === 0)) return this.size;
    let n = 0;
    if (candidates === undefined) {
      for (const [key, obj] of this) if (this.matches(key, obj, namespace, sel)) n++;
      return n;
    }
    for (const keys of candidates) {
      for (const key of keys) {
        const obj = super.get(key);
        if (obj !== undefined && this.matches(key, obj, namespace, sel)) n++;
      }
    }
    return n;
  }

  /**
   * The smallest index entries that hold every match: the namespace's keys or the keys of one
   * `=`, `==` or `in` requirement ('none' when one of them is empty, undefined when nothing narrows).
   */
  private candidates(namespace: string | undefined, sel: LabelSelector | undefined): Array<Set<string>> | 'none' | undefined {
    if (sel?.matchNothing) return 'none';
    let best: Array<Set<string>> | undefined;
    let bestSize = Infinity;
    if (namespace !== undefined) {
      const keys = this.byNamespace.get(namespace);
      if (!keys) return 'none';
      best = [keys];
      bestSize = keys.size;
    }
    for (const r of sel?.requirements ?? []) {
      if (r.operator !== 'Equals' && r.operator !== 'DoubleEquals' && r.operator !== 'In') continue;
      const byValue = this.byLabel.get(r.key);
      if (!byValue) return 'none';
      // The sets of distinct values are disjoint (one value per label key and object): no duplicates.
      const sets: Array<Set<string>> = [];
      let size = 0;
      for (const v of r.values) {
        const keys = byValue.get(v);
        if (keys) {
          sets.push(keys);
          size += keys.size;
        }
      }
      if (size === 0) return 'none';
      if (size < bestSize) {
        best = sets;
        bestSize = size;
      }
    }
    return best;
  }

  private scan(namespace: string | undefined, sel: LabelSelector | undefined): T[] {
    const out: T[] = [];
    for (const [key, obj] of this) if (this.matches(key, obj, namespace, sel)) out.push(obj);
    return out;
  }

  private matches(key: string, obj: T, namespace: string | undefined, sel: LabelSelector | undefined): boolean {
    if (namespace !== undefined && splitKey(key).namespace !== namespace) return false;
    return !sel || matchesLabels(sel, obj.metadata.labels);
  }

  /** Moves `key` between label entries for the labels that differ between its old and new object. */
  private reindexLabels(key: string, oldLabels: Labels, newLabels: Labels): void {
    if (oldLabels === newLabels) return;
    if (oldLabels) {
      for (const k of Object.keys(oldLabels)) {
        const v = oldLabels[k] as string;
        if (newLabels && hasOwn(newLabels, k) && newLabels[k] === v) continue;
        const byValue = this.byLabel.get(k);
        if (!byValue) continue;
        removeFrom(byValue, v, key);
        if (byValue.size === 0) this.byLabel.delete(k);
      }
    }
    if (newLabels) {
      for (const k of Object.keys(newLabels)) {
        const v = newLabels[k] as string;
        if (oldLabels && hasOwn(oldLabels, k) && oldLabels[k] === v) continue;
        let byValue = this.byLabel.get(k);
        if (!byValue) this.byLabel.set(k, (byValue = new Map()));
        addTo(byValue, v, key);
      }
    }
  }

  /** Entry counts of the indexes, for tests that check emptied entries are dropped. */
  indexSizes(): { namespaces: number; labelKeys: number; labelValues: number } {
    let labelValues = 0;
    for (const byValue of this.byLabel.values()) labelValues += byValue.size;
    return { namespaces: this.byNamespace.size, labelKeys: this.byLabel.size, labelValues };
  }
}

// Controllers ask for the same few selector strings over and over (one per cluster, say); the
// parsed form is kept for the most recently used ones. Parse errors are not kept: they throw each time.
const SELECTOR_CACHE_SIZE = 256;
const parsedSelectors = new Map<string, LabelSelector>();

/** parseLabelSelector with a small least-recently-used cache; the result is shared and must not be modified. */
export function parseLabelSelectorCached(s: string): LabelSelector {
  const hit = parsedSelectors.get(s);
  if (hit) {
    parsedSelectors.delete(s);
    parsedSelectors.set(s, hit);
    return hit;
  }
  const sel = parseLabelSelector(s);
  parsedSelectors.set(s, sel);
  if (parsedSelectors.size > SELECTOR_CACHE_SIZE) {
    const oldest = parsedSelectors.keys().next();
    if (!oldest.done) parsedSelectors.delete(oldest.value);
  }
  return sel;
}
