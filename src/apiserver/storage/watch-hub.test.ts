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
      return log.filter((e) => e.key.startsWith(prefix) && e.revision > after && e.revision <= upTo).slice(0, limit);
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
