import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nullLogger } from '../../util/logger.js';
import type { StoreEvent } from './types.js';
import { createWatchHub, type WatchHub } from './watch-hub.js';
import { waitFor } from '../../../test/helpers/wait-for.js';

function ev(revision: number, key = `/core/configmaps/ns/o${revision}`): StoreEvent {
  return { type: 'ADDED', key, revision, object: { metadata: { name: `o${revision}`, resourceVersion: String(revision) } } };
}

/** A hub over an in-memory log; `reads` records each replay page request. */
function hubOver(log: StoreEvent[], bufferLimit = 100, pageSize = 2): { hub: WatchHub; reads: [number, number][] } {
  const reads: [number, number][] = [];
  const hub = createWatchHub({
    bufferLimit,
    replayPageSize: pageSize,
    deliveryBatch: 3,
    log: nullLogger(),
    replay: (prefix, after, upTo, limit) => {
      reads.push([after, upTo]);
      const events = log.filter((e) => e.key.startsWith(prefix) && e.revision > after && e.revision <= upTo).slice(0, limit);
      return { events, rows: events.length, lastRevision: events[events.length - 1]?.revision ?? after };
    },
  });
  return { hub, reads };
}

test('should page through history, then live events, dropping duplicates', async () => {
  const log = Array.from({ length: 9 }, (_, i) => ev(i + 1));
  const { hub, reads } = hubOver(log);
  const got: number[] = [];
  hub.subscribe('/core/configmaps/', { fromRevision: 2, onEvent: (e) => void got.push(e.revision) }, 9);
  assert.equal(hub.minPinnedRevision(), 2, 'nothing read yet: the start pins the log');
  hub.publish(ev(9)); // a duplicate of history must not be delivered twice
  for (let r = 10; r <= 14; r++) {
    log.push(ev(r));
    hub.publish(ev(r));
    await new Promise((res) => setImmediate(res));
  }
  await waitFor(() => got.length === 12);
  assert.deepEqual(got, [3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]);
  assert.deepEqual(reads[0], [2, 9]);
  assert.ok(reads.every(([, upTo]) => upTo === 9), 'replay never reads past the live start');
  assert.equal(hub.minPinnedRevision(), undefined);
});

test('should filter by prefix and stop on close without calling onClose', async () => {
  const { hub } = hubOver([]);
  const got: string[] = [];
  const closes: string[] = [];
  const sub = hub.subscribe('/core/secrets/ns1/', { fromRevision: 0, onEvent: (e) => void got.push(e.key), onClose: (r) => void closes.push(r) }, 0);
  hub.publish(ev(1, '/core/secrets/ns1/a'));
  hub.publish(ev(2, '/core/secrets/ns2/a'));
  hub.publish(ev(3, '/core/secrets/ns1/b'));
  await waitFor(() => got.length === 2);
  sub.close();
  sub.close();
  hub.publish(ev(4, '/core/secrets/ns1/c'));
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(got, ['/core/secrets/ns1/a', '/core/secrets/ns1/b']);
  assert.deepEqual(closes, []);
  assert.equal(hub.subscriberCount(), 0);
});

test('should drop a subscriber whose live buffer overflows during a replay', async () => {
  const log = Array.from({ length: 4 }, (_, i) => ev(i + 1));
  const { hub } = hubOver(log, 3);
  const closes: string[] = [];
  const got: number[] = [];
  hub.subscribe('/core/configmaps/', { fromRevision: 1, onEvent: (e) => void got.push(e.revision), onClose: (r) => void closes.push(r) }, 4);
  for (let r = 5; r <= 8; r++) hub.publish(ev(r)); // 4 live events wait behind the replay: over the limit
  await waitFor(() => closes.length === 1);
  assert.deepEqual(closes, ['slow']);
  assert.deepEqual(got, []);
  assert.equal(hub.subscriberCount(), 0);
});

test('should close every subscriber once with closeAll', () => {
  const { hub } = hubOver([]);
  const closes: string[] = [];
  for (let i = 0; i < 3; i++) hub.subscribe('', { fromRevision: 0, onEvent: () => undefined, onClose: (r) => void closes.push(r) }, 0);
  hub.closeAll();
  hub.closeAll();
  assert.deepEqual(closes, ['closed', 'closed', 'closed']);
});

function labeled(revision: number, type: StoreEvent['type'], now: string | undefined, before?: string | undefined, key = '/certificates.k8s.io/certificatesigningrequests//csr'): StoreEvent {
  const o = (cluster: string | undefined): StoreEvent['object'] => ({
    metadata: { name: 'csr', resourceVersion: String(revision), ...(cluster !== undefined ? { labels: { cluster } } : {}) },
  });
  return { type, key, revision, object: o(now), ...(type === 'ADDED' ? {} : { prevObject: o(before) }) };
}

test('should deliver an event only to subscribers whose key range holds its key', async () => {
  const { hub } = hubOver([]);
  const ranges = ['', '/', '/core/', '/core/secrets/', '/core/secrets/ns1/', '/core/secrets/ns1/a', '/core/secrets/ns1/ab', '/core/secrets/ns2/', '/core/configmaps/', '/core/secrets/ns1/a/'];
  const got = new Map<string, number[]>(ranges.map((r) => [r, []]));
  for (const r of ranges) hub.subscribe(r, { fromRevision: 0, onEvent: (e) => void got.get(r)!.push(e.revision) }, 0);
  hub.publish(ev(1, '/core/secrets/ns1/a'));
  hub.publish(ev(2, '/core/secrets/ns2/a'));
  hub.publish(ev(3, '/core/configmaps/ns1/a'));
  hub.publish(ev(4, '/apps/deployments/ns1/a'));
  await waitFor(() => got.get('')!.length === 4);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(Object.fromEntries(got), {
    '': [1, 2, 3, 4],
    '/': [1, 2, 3, 4],
    '/core/': [1, 2, 3],
    '/core/secrets/': [1, 2],
    '/core/secrets/ns1/': [1],
    '/core/secrets/ns1/a': [1],
    '/core/secrets/ns1/ab': [],
    '/core/secrets/ns2/': [2],
    '/core/configmaps/': [3],
    '/core/secrets/ns1/a/': [],
  });
});

test('should deliver to a label-hinted subscriber the events whose new or previous object carries the label', async () => {
  const { hub } = hubOver([]);
  const got = { c1: [] as number[], c1c2: [] as number[], plain: [] as number[], otherKey: [] as number[], otherRange: [] as number[] };
  const csrs = '/certificates.k8s.io/certificatesigningrequests/';
  hub.subscribe(csrs, { fromRevision: 0, hints: { label: { key: 'cluster', values: ['c1'] } }, onEvent: (e) => void got.c1.push(e.revision) }, 0);
  hub.subscribe(csrs, { fromRevision: 0, hints: { label: { key: 'cluster', values: ['c1', 'c2'] } }, onEvent: (e) => void got.c1c2.push(e.revision) }, 0);
  hub.subscribe(csrs, { fromRevision: 0, onEvent: (e) => void got.plain.push(e.revision) }, 0);
  hub.subscribe(csrs, { fromRevision: 0, hints: { label: { key: 'zone', values: ['c1'] } }, onEvent: (e) => void got.otherKey.push(e.revision) }, 0);
  hub.subscribe('/core/secrets/', { fromRevision: 0, hints: { label: { key: 'cluster', values: ['c1'] } }, onEvent: (e) => void got.otherRange.push(e.revision) }, 0);
  const events = [
    labeled(1, 'ADDED', 'c1'),
    labeled(2, 'ADDED', 'c2'),
    labeled(3, 'ADDED', undefined),
    labeled(4, 'MODIFIED', 'c1', undefined), // label added
    labeled(5, 'MODIFIED', undefined, 'c1'), // label removed
    labeled(6, 'MODIFIED', 'c2', 'c1'), // value changed away from c1
    labeled(7, 'MODIFIED', 'c1', 'c2'), // value changed to c1
    labeled(8, 'MODIFIED', 'c3', 'c2'),
    labeled(9, 'MODIFIED', 'c3', 'c3'),
    labeled(10, 'DELETED', 'c1', 'c1'),
    labeled(11, 'DELETED', 'c2', 'c2'),
    { ...labeled(12, 'DELETED', 'c1'), prevObject: undefined } as StoreEvent,
  ];
  for (const e of events) hub.publish(e);
  await waitFor(() => got.plain.length === events.length);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(got, {
    c1: [1, 4, 5, 6, 7, 10, 12],
    c1c2: [1, 2, 4, 5, 6, 7, 8, 10, 11, 12],
    plain: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
    otherKey: [],
    otherRange: [],
  });
});

test('should keep buffering live events (hinted) for a replaying subscriber and deliver them after its history', async () => {
  const csrs = '/certificates.k8s.io/certificatesigningrequests/';
  const log = [labeled(1, 'ADDED', 'c1'), labeled(2, 'ADDED', 'c2'), labeled(3, 'MODIFIED', 'c2', 'c1'), labeled(4, 'ADDED', 'c1')];
  const { hub } = hubOver(log);
  const got: number[] = [];
  hub.subscribe(csrs, { fromRevision: 1, hints: { label: { key: 'cluster', values: ['c1'] } }, onEvent: (e) => void got.push(e.revision) }, 4);
  // published before the replay has read anything: they wait behind the history
  hub.publish(labeled(5, 'ADDED', 'c2'));
  hub.publish(labeled(6, 'MODIFIED', undefined, 'c1'));
  hub.publish(labeled(7, 'ADDED', 'c1'));
  await waitFor(() => got.includes(7));
  hub.publish(labeled(8, 'ADDED', 'c3'));
  hub.publish(labeled(9, 'ADDED', 'c1'));
  await waitFor(() => got.includes(9));
  // history is replayed from the log under the range (the hint only narrows live fan-out)
  assert.deepEqual(got, [2, 3, 4, 6, 7, 9]);
});

test('should take closed and slow-dropped subscribers out of the fan-out', async () => {
  const { hub } = hubOver([], 2);
  const closes: string[] = [];
  const got: number[] = [];
  const subs = [
    hub.subscribe('/core/secrets/ns1/a', { fromRevision: 0, onEvent: () => undefined }, 0),
    hub.subscribe('/core/secrets/', { fromRevision: 0, hints: { label: { key: 'cluster', values: ['c1', 'c2'] } }, onEvent: () => undefined }, 0),
    hub.subscribe('', { fromRevision: 0, onEvent: () => undefined }, 0),
  ];
  // blocked forever on its first event, so its buffer overflows
  hub.subscribe('/core/secrets/ns1/', { fromRevision: 0, onEvent: (e) => { got.push(e.revision); return new Promise<void>(() => undefined); }, onClose: (r) => void closes.push(r) }, 0);
  hub.publish(ev(1, '/core/secrets/ns1/a'));
  await waitFor(() => got.length === 1);
  for (let r = 2; r <= 4; r++) hub.publish(ev(r, '/core/secrets/ns1/a'));
  await waitFor(() => closes.length === 1);
  assert.deepEqual(closes, ['slow']);
  for (const s of subs) s.close();
  assert.equal(hub.subscriberCount(), 0);
  hub.publish(ev(5, '/core/secrets/ns1/a'));
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(got, [1]);
  // a new subscriber on a range that was emptied is indexed afresh
  const again: number[] = [];
  hub.subscribe('/core/secrets/ns1/', { fromRevision: 0, onEvent: (e) => void again.push(e.revision) }, 5);
  hub.publish(ev(6, '/core/secrets/ns1/a'));
  await waitFor(() => again.length === 1);
  assert.deepEqual(again, [6]);
});

test('progress: an idle subscriber has seen everything up to the last published revision, a busy one only what it was handed', async () => {
  const { hub } = hubOver([]);
  let release: () => void = () => undefined;
  const got: number[] = [];
  const sub = hub.subscribe('/core/secrets/ns1/a', {
    fromRevision: 0,
    onEvent: (e) => {
      got.push(e.revision);
      // The socket is full after the first event: the next ones wait.
      if (got.length === 1) return new Promise<void>((r) => (release = r));
    },
  }, 0);
  hub.publish(ev(1, '/core/secrets/ns2/x'));
  hub.publish(ev(2, '/core/secrets/ns1/b'));
  assert.equal(sub.progress(), 2, 'events for other keys count as seen');
  hub.publish(ev(3, '/core/secrets/ns1/a'));
  hub.publish(ev(4, '/core/secrets/ns1/a'));
  hub.publish(ev(5, '/core/secrets/ns3/y'));
  await waitFor(() => got.length === 1);
  assert.equal(sub.progress(), 3, 'revision 4 is still waiting for this subscriber');
  release();
  await waitFor(() => got.length === 2);
  assert.equal(sub.progress(), 5);
  assert.deepEqual(got, [3, 4]);
});

test('should read on past replay pages that a hint emptied, yielding between long stretches of them', async () => {
  const log = Array.from({ length: 25_000 }, (_, i) => ev(i + 1));
  let pages = 0;
  const hub = createWatchHub({
    bufferLimit: 100,
    replayPageSize: 500,
    deliveryBatch: 3,
    log: nullLogger(),
    // Only every 12,000th row is kept, as a store's label prefilter would leave a hinted watch.
    replay: (_prefix, after, upTo, limit) => {
      pages++;
      const rows = log.filter((e) => e.revision > after && e.revision <= upTo).slice(0, limit);
      return { events: rows.filter((e) => e.revision % 12_000 === 0), rows: rows.length, lastRevision: rows[rows.length - 1]?.revision ?? after };
    },
  });
  const got: number[] = [];
  hub.subscribe('/core/configmaps/', { fromRevision: 1, onEvent: (e) => void got.push(e.revision) }, 25_000);
  hub.publish(ev(25_001));
  await waitFor(() => got.length === 3);
  assert.deepEqual(got, [12_000, 24_000, 25_001]);
  assert.equal(pages, 50, 'every row read once');
});
