import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../api/meta.js';
import type { Clock } from '../../util/clock.js';
import { nullLogger } from '../../util/logger.js';
import { openSqliteStore } from '../storage/sqlite-store.js';
import { startEventTtl } from './event-ttl.js';
import { waitFor } from '../../../test/helpers/wait-for.js';

const NOW = Date.parse('2026-12-07T00:00:00Z');

/** Real time for nothing: timers fire on the next turn, the clock stands still at NOW. */
const clock: Clock = {
  now: () => NOW,
  sleep: () => new Promise<void>((resolve) => setImmediate(resolve)),
  setTimeout: (fn) => {
    const t = setImmediate(fn);
    return { cancel: () => clearImmediate(t) };
  },
};

function event(name: string, lastTimestamp: string, finalizers?: string[]): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name, namespace: 'ns', ...(finalizers ? { finalizers } : {}) },
    involvedObject: { name: 'x' },
    reason: 'R',
    lastTimestamp,
  };
}

test('should expire the Events older than the TTL, reading them a page at a time', async (t) => {
  const store = openSqliteStore({ path: ':memory:', clock });
  const signal = new AbortController();
  t.after(() => {
    signal.abort();
    store.close();
  });
  const old = '2026-12-06T22:00:00Z';
  const recent = '2026-12-06T23:59:00Z';
  // the expired ones are spread over the pages of two
  const events = [event('a', old), event('b', recent), event('c', recent), event('d', old), event('e', recent), event('f', old, ['keep']), event('g', old)];
  for (const ev of events) store.create(`/core/events/ns/${ev.metadata.name}`, ev);
  startEventTtl({ store, ttlMs: 3_600_000, intervalMs: 1000, clock, log: nullLogger(), signal: signal.signal, pageSize: 2 });
  const names = (): string[] => store.list('/core/events/').items.map((i) => i.object.metadata.name ?? '');
  await waitFor(() => names().length === 4);
  assert.deepEqual(names(), ['b', 'c', 'e', 'f'], 'an Event with a finalizer stays');
});
