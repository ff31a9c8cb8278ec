import { test } from 'node:test';
import assert from 'node:assert/strict';
import { quantile, Reservoir } from './stats.js';

test('should merge a full sample exactly as adding each value', () => {
  const seq = [0.1, 0.7, 0.3, 0.9, 0.5, 0.2];
  const a = new Reservoir(3, ((i) => () => seq[i++ % seq.length]!)(0));
  const b = new Reservoir(3, ((i) => () => seq[i++ % seq.length]!)(0));
  const values = [5, 1, 4, 2, 3, 6];
  for (const v of values) a.add(v);
  b.merge(values, values.length);
  assert.deepEqual(b.sorted(), a.sorted());
  assert.equal(b.count(), 6);
});

test('should count every value a merged sample stands for', () => {
  const cases = [
    { name: 'no values', values: [], seen: 4, count: 4, kept: [] },
    { name: 'a thinned sample', values: [3, 1], seen: 10, count: 10, kept: [1, 3] },
    { name: 'under capacity', values: [2, 2, 1], seen: 3, count: 3, kept: [1, 2, 2] },
  ];
  for (const c of cases) {
    const r = new Reservoir(100, () => 0);
    r.merge(c.values, c.seen);
    assert.equal(r.count(), c.count, c.name);
    assert.deepEqual(r.sorted(), c.kept, c.name);
  }
});

test('should refuse a sample larger than what it stands for', () => {
  assert.throws(() => new Reservoir(10).merge([1, 2, 3], 2), /cannot stand for 2/);
});

test('should keep the merged quantiles of two halves', () => {
  const r = new Reservoir(1000);
  r.merge([1, 2, 3, 4, 5], 5);
  r.merge([6, 7, 8, 9, 10], 5);
  assert.equal(quantile(r.sorted(), 0.5), 5);
  assert.equal(quantile(r.sorted(), 0.99), 10);
});
