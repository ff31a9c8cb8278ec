import { test } from 'node:test';
import assert from 'node:assert/strict';
import { realClock } from '../../util/clock.js';
import { nullLogger } from '../../util/logger.js';
import { openSqliteStore } from '../storage/sqlite-store.js';
import { waitFor } from '../../../test/helpers/wait-for.js';
import { startKeyLoop } from './key-loop.js';

const busy = (ms: number): void => {
  const end = performance.now() + ms;
  while (performance.now() < end) { /* spin: a reconcile that costs CPU */ }
};

test('should yield to the event loop once a turn has used its budget, then finish the rest', async () => {
  const store = openSqliteStore({ path: ':memory:' });
  const ac = new AbortController();
  const done: string[] = [];
  const loop = startKeyLoop({
    name: 't', store, prefix: '/none/', keyOf: () => undefined, initialKeys: () => [],
    reconcile: (k) => { busy(3); done.push(k); return undefined; },
    retryMs: 10, turnBudgetMs: 5, clock: realClock, log: nullLogger(), signal: ac.signal,
  });
  try {
    for (let i = 0; i < 10; i++) loop.enqueue(`k${i}`);
    const seenBetween = await new Promise<number>((resolve) => setImmediate(() => setImmediate(() => resolve(done.length))));
    assert.ok(seenBetween > 0 && seenBetween < 10, `a turn ran ${seenBetween} of 10 keys`);
    await waitFor(() => done.length === 10, 2000);
    assert.deepEqual(done, Array.from({ length: 10 }, (_, i) => `k${i}`), 'keys keep their order across turns');
  } finally {
    ac.abort();
    store.close();
  }
});

test('should enqueue every key keysOfEvent returns for a store event', async () => {
  const store = openSqliteStore({ path: ':memory:' });
  const ac = new AbortController();
  const done: string[] = [];
  startKeyLoop({
    name: 't', store, prefix: '/', keyOf: () => 'unused', initialKeys: () => [],
    keysOfEvent: (ev) => [`a:${ev.key}`, `b:${ev.key}`],
    reconcile: (k) => { done.push(k); return undefined; },
    retryMs: 10, clock: realClock, log: nullLogger(), signal: ac.signal,
  });
  try {
    store.create('/core/configmaps/ns/x', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'ns' } });
    await waitFor(() => done.length === 2, 2000);
    assert.deepEqual(done.sort(), ['a:/core/configmaps/ns/x', 'b:/core/configmaps/ns/x']);
  } finally {
    ac.abort();
    store.close();
  }
});
