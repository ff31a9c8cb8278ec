import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Lease } from '../../api/core.js';
import { realClock } from '../../util/clock.js';
import { nullLogger } from '../../util/logger.js';
import { createLeaseUpdater } from './lease-updater.js';

async function until(pred: () => boolean, ms = 2000): Promise<void> {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
}

test('lease updater: actions alternate get/update while running, none after stop', async () => {
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
    clock: realClock,
    random: () => 0,
    log: nullLogger(),
  });
  const parent = new AbortController();
  u.start(0.02, parent.signal);
  u.start(0.02, parent.signal); // idempotent
  await until(() => actions.length >= 6);
  u.stop();
  assert.equal(u.running(), false);
  await new Promise((r) => setTimeout(r, 10)); // let an in-flight round finish
  const n = actions.length;
  await new Promise((r) => setTimeout(r, 80));
  assert.equal(actions.length, n, 'no actions after stop');
  for (let i = 0; i < 6; i++) assert.equal(actions[i], i % 2 === 0 ? 'get' : 'update');
  assert.match(lease.spec?.renewTime ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
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
    clock: realClock,
    random: () => 0,
    log: nullLogger(),
  });
  await u.renew(new AbortController().signal);
  assert.deepEqual(actions, ['get']);
});

test('lease updater: parent abort stops the loop', async () => {
  let gets = 0;
  const u = createLeaseUpdater({
    clusterName: 'c1',
    leases: { get: async () => ({ metadata: { name: 'x' }, spec: {} }) as Lease, update: async (l) => (gets++, l) },
    clock: realClock,
    random: () => 0,
    log: nullLogger(),
  });
  const parent = new AbortController();
  u.start(0.01, parent.signal);
  await until(() => gets >= 2);
  parent.abort();
  assert.equal(u.running(), false);
});
