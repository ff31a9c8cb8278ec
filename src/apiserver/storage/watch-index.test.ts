import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../api/meta.js';
import { keyMatcher } from './key-range.js';
import type { SelectorHints, StoreEvent } from './types.js';
import { createWatchIndex } from './watch-index.js';

function obj(labels?: Record<string, string>): KubeObject {
  return { metadata: { name: 'x', ...(labels ? { labels } : {}) } };
}

function ev(key: string, object: KubeObject, prevObject?: KubeObject): StoreEvent {
  return { type: prevObject ? 'MODIFIED' : 'ADDED', key, revision: 1, object, ...(prevObject ? { prevObject } : {}) };
}

function matched<T>(idx: ReturnType<typeof createWatchIndex<T>>, e: StoreEvent): T[] {
  const out: T[] = [];
  idx.forEachMatch(e, (item) => void out.push(item));
  return out;
}

/** Small deterministic PRNG (mulberry32) so the randomized comparison is reproducible. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

test('should find exactly the items a full scan would, for random ranges, hints and events', () => {
  const rand = rng(42);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const resources = ['/core/secrets/', '/core/configmaps/', '/certificates.k8s.io/certificatesigningrequests/'];
  const namespaces = ['ns1', 'ns2', ''];
  const names = ['a', 'ab', 'b'];
  const values = ['c1', 'c2', 'c3'];
  const labelOf = (): Record<string, string> | undefined => {
    const r = rand();
    if (r < 0.2) return undefined;
    if (r < 0.4) return { other: pick(values) };
    return { cluster: pick(values), ...(rand() < 0.5 ? { other: pick(values) } : {}) };
  };
  const prefixes = ['', '/', '/core/', ...resources, ...resources.flatMap((r) => namespaces.flatMap((n) => [`${r}${n}/`, ...names.map((x) => `${r}${n}/${x}`)]))];

  interface Sub {
    prefix: string;
    hints: SelectorHints | undefined;
    remove: () => void;
  }
  const idx = createWatchIndex<Sub>();
  let subs: Sub[] = [];
  const wants = (s: Sub, e: StoreEvent): boolean => {
    if (!keyMatcher(s.prefix)(e.key)) return false;
    const h = s.hints?.label;
    if (!h || h.values.length === 0) return true;
    const carries = (o: KubeObject | undefined): boolean => {
      const v = o?.metadata.labels?.[h.key];
      return v !== undefined && h.values.includes(v);
    };
    return carries(e.object) || carries(e.prevObject);
  };

  for (let round = 0; round < 400; round++) {
    if (rand() < 0.6 || subs.length === 0) {
      const r = rand();
      const hints: SelectorHints | undefined =
        r < 0.4 ? undefined : { label: { key: rand() < 0.8 ? 'cluster' : 'other', values: r < 0.8 ? [pick(values)] : [pick(values), pick(values)] } };
      const s: Sub = { prefix: pick(prefixes), hints, remove: () => undefined };
      s.remove = idx.add(s, s.prefix, hints);
      subs.push(s);
    } else {
      const s = pick(subs);
      s.remove();
      subs = subs.filter((x) => x !== s);
    }
    const key = `${pick(resources)}${pick(namespaces)}/${pick(names)}`;
    const e = ev(key, obj(labelOf()), rand() < 0.5 ? obj(labelOf()) : undefined);
    const got = matched(idx, e);
    assert.equal(new Set(got).size, got.length, 'no item is visited twice for one event');
    assert.deepEqual(new Set(got), new Set(subs.filter((s) => wants(s, e))), `round ${round}, ${key}`);
  }
  assert.equal(idx.size(), subs.length);
  for (const s of subs) s.remove();
  assert.equal(idx.size(), 0);
  assert.equal(idx.bucketCount(), 0, 'every set and map is dropped once empty');
});

test('should visit an item once when several of its hinted values appear on the event', () => {
  const idx = createWatchIndex<string>();
  idx.add('in', '/core/secrets/', { label: { key: 'cluster', values: ['c1', 'c2', 'c1'] } });
  assert.deepEqual(matched(idx, ev('/core/secrets/ns/a', obj({ cluster: 'c2' }), obj({ cluster: 'c1' }))), ['in']);
  assert.deepEqual(matched(idx, ev('/core/secrets/ns/a', obj({ cluster: 'c1' }), obj({ cluster: 'c1' }))), ['in']);
  assert.deepEqual(matched(idx, ev('/core/secrets/ns/a', obj({ cluster: 'c3' }))), []);
});

test('should remove idempotently, keep other items of the bucket, and file again after pruning', () => {
  const idx = createWatchIndex<string>();
  const hint: SelectorHints = { label: { key: 'cluster', values: ['c1'] } };
  const rmA = idx.add('a', '/core/secrets/', hint);
  const rmB = idx.add('b', '/core/secrets/', hint);
  const e = ev('/core/secrets/ns/x', obj({ cluster: 'c1' }));
  rmA();
  rmA();
  assert.equal(idx.size(), 1);
  assert.deepEqual(matched(idx, e), ['b']);
  rmB();
  assert.equal(idx.bucketCount(), 0);
  const rmC = idx.add('c', '/core/secrets/', hint);
  rmA(); // a stale removal must not disturb the bucket filed anew
  rmB();
  assert.deepEqual(matched(idx, e), ['c']);
  rmC();
  assert.equal(idx.bucketCount(), 0);
});

test('should let a visit remove items, itself included, without skipping the others', () => {
  const idx = createWatchIndex<string>();
  const removers = new Map<string, () => void>();
  for (const n of ['a', 'b', 'c']) removers.set(n, idx.add(n, '/core/secrets/ns/', undefined));
  const seen: string[] = [];
  idx.forEachMatch(ev('/core/secrets/ns/x', obj()), (item) => {
    seen.push(item);
    removers.get(item)!();
  });
  assert.deepEqual(seen, ['a', 'b', 'c']);
  assert.equal(idx.size(), 0);
  assert.equal(idx.bucketCount(), 0);
});
