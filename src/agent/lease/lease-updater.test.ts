import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Lease } from '../../api/core.js';
import { rfc3339Micro } from '../../api/conditions.js';
import { createManualClock } from '../../client/manual-clock.js';
import { nullLogger } from '../../util/logger.js';
import { waitFor } from '../../../test/helpers/wait-for.js';
import { createLeaseUpdater, type LeaseUpdaterOptions } from './lease-updater.js';

/** Lets the fake client's promises settle (they resolve in microtasks, never on a timer). */
const settle = (): Promise<void> => new Promise((r) => setImmediate(r));

function setup(over: Partial<LeaseUpdaterOptions> = {}) {
  const clock = createManualClock();
  const actions: string[] = [];
  let lease: Lease = { metadata: { name: 'managed-cluster-lease', namespace: 'c1' }, spec: {} };
  const u = createLeaseUpdater({
    clusterName: 'c1',
    leases: {
      get: async () => {
        actions.push('get');
        return structuredClone(lease);
      },
      update: async (l) => {
        actions.push('update');
        lease = l;
        return l;
      },
    },
    clock,
    random: () => 0,
    log: nullLogger(),
    ...over,
  });
  /** One round finished and the next wait started. */
  const sleeping = (rounds: number): Promise<boolean> => waitFor(() => actions.length === 2 * rounds && clock.pending() === 1);
  return { clock, actions, u, lease: () => lease, sleeping };
}

test('lease updater: renews at once, then every duration × (1 + 0.25 U); nothing after stop', async () => {
  const { clock, actions, u, lease, sleeping } = setup({ random: () => 0.5 });
  const parent = new AbortController();
  const t0 = clock.now();
  u.start(1, parent.signal);
  u.start(1, parent.signal); // idempotent: still one loop
  await sleeping(1);
  assert.deepEqual(actions, ['get', 'update']);
  assert.equal(lease().spec?.renewTime, rfc3339Micro(new Date(t0)));
  assert.match(lease().spec?.renewTime ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  assert.equal(clock.nextDue(), t0 + 1125, '1 s lease, U = 0.5');

  clock.advance(1124);
  await settle();
  assert.equal(actions.length, 2, 'no renewal before the interval');
  clock.advance(1);
  await sleeping(2);
  assert.equal(lease().spec?.renewTime, rfc3339Micro(new Date(t0 + 1125)));
  clock.advance(1125);
  await sleeping(3);
  assert.deepEqual(actions, ['get', 'update', 'get', 'update', 'get', 'update']);

  u.stop();
  assert.equal(u.running(), false);
  assert.equal(clock.pending(), 0, 'the wait for the next round is cancelled');
  clock.advance(10 * 1125);
  await settle();
  assert.equal(actions.length, 6, 'no renewal in ten intervals after stop');
  parent.abort();
});

test('lease updater: a failed get skips the round', async () => {
  const actions: string[] = [];
  const u = createLeaseUpdater({
    clusterName: 'c1',
    leases: {
      get: async () => {
        actions.push('get');
        throw new Error('not found');
      },
      update: async (l) => {
        actions.push('update');
        return l;
      },
    },
    clock: createManualClock(),
    random: () => 0,
    log: nullLogger(),
  });
  await u.renew(new AbortController().signal);
  assert.deepEqual(actions, ['get']);
});

test('lease updater: parent abort stops the loop', async () => {
  const { clock, actions, u, sleeping } = setup();
  const parent = new AbortController();
  u.start(1, parent.signal);
  await sleeping(1);
  clock.advance(1000);
  await sleeping(2);
  parent.abort();
  assert.equal(u.running(), false);
  assert.equal(clock.pending(), 0);
  clock.advance(10_000);
  await settle();
  assert.equal(actions.length, 4, 'no renewal after the parent aborted');
});
