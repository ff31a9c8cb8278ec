import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FleetSample } from './fleet.js';
import { formatReport, joinRate, peak, progressLine } from './figures.js';
import { countsBetween, quantile, Reservoir } from './stats.js';

const sample = (atMs: number, joined: number, extra: Partial<FleetSample> = {}): FleetSample => ({
  atMs,
  counts: { registered: joined, joined, available: joined, unknown: 0 },
  started: 10,
  failed: 0,
  openWatches: 30,
  simulatorRssBytes: 100 * 1024 * 1024,
  ...extra,
});

test('should compute join rates and peaks from samples', () => {
  assert.equal(joinRate(sample(0, 0), sample(2000, 10)), 5);
  assert.equal(joinRate(sample(0, 0), sample(0, 10)), 0);
  assert.equal(peak([sample(0, 0, { hubCores: 0.5 }), sample(1, 0), sample(2, 0, { hubCores: 1.5 })], (s) => s.hubCores), 1.5);
  assert.equal(peak([sample(0, 0)], (s) => s.hubCores), undefined);
});

test('should print a progress line with the hub figures when known', () => {
  const line = progressLine(10, sample(0, 0), sample(1000, 4, { hubCores: 0.25, hubRssBytes: 200 * 1024 * 1024, hubConnections: 50 }));
  assert.match(line, /joined 4\/10, available 4, failed 0, started 10, 4\.0 joins\/s, hub 0\.25 cores 200 MiB, 50 hub connections, 30 watches/);
});

test('should print the final report, with the hub restart when there was one', () => {
  const text = formatReport({
    clusters: 2,
    started: 2,
    joined: 2,
    available: 2,
    failed: 0,
    storm: { durationMs: 4000, joinsPerSecond: 0.5 },
    leaseUpdate: { count: 4, failures: 0, p50Ms: 3, p99Ms: 9, simulatorLongestLoopDelayMs: 120.4 },
    openWatches: 6,
    hubRestart: {
      downMs: 3000,
      hubStartMs: 2000,
      servedBeforeReadyMs: 100,
      availableMs: 200,
      recoverMs: 500,
      recoverP50Ms: 300,
      markedUnknown: 0,
      newCsrs: 0,
      rebootstraps: 0,
      agentRestarts: 0,
      leaseRequests: { untilReady: { total: 6, max: 4, mean: 3 }, afterReady: { total: 4, max: 2, mean: 2 } },
    },
  });
  assert.match(text, /join storm: 4\.0 s \(0\.5 joins\/s\)/);
  assert.match(text, /p50 3\.0 ms, p99 9\.0 ms; the agents' longest event-loop delay 120 ms/);
  assert.match(text, /serving 0\.1 s before it\); all Available 0\.2 s and every lease renewed 0\.5 s \(median 0\.3 s\) after the hub was back; marked Unknown 0, new CSRs 0, re-bootstraps 0/);
  assert.match(text, /lease requests per cluster: 3\.0 \(at most 4\) from the kill until the hub's ready line, 2\.0 \(at most 2\) from then/);
});

test('should count per-cluster growth between two snapshots over the members only', () => {
  const before = new Map([['a', 5], ['b', 1], ['x', 0]]);
  const after = new Map([['a', 8], ['b', 1], ['c', 2], ['x', 9]]);
  assert.deepEqual(countsBetween(before, after, ['a', 'b', 'c']), { total: 5, max: 3, mean: 5 / 3 });
  assert.deepEqual(countsBetween(before, after, []), { total: 0, max: 0, mean: 0 });
});

test('should keep a bounded uniform sample and nearest-rank quantiles', () => {
  const r = new Reservoir(3, () => 0.99);
  for (let i = 1; i <= 10; i++) r.add(i);
  assert.equal(r.count(), 10);
  assert.equal(r.sorted().length, 3);
  assert.equal(quantile([1, 2, 3, 4], 0.5), 2);
  assert.equal(quantile([1, 2, 3, 4], 0.99), 4);
  assert.ok(Number.isNaN(quantile([], 0.5)));
});
