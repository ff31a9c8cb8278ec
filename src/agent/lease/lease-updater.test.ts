import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Lease } from '../../api/core.js';
import { rfc3339Micro } from '../../api/conditions.js';
import { ApiStatusError, NetworkError, statusFromCode } from '../../client/errors.js';
import { createManualClock } from '../../client/manual-clock.js';
import { createLogger, nullLogger } from '../../util/logger.js';
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

test('lease updater: a failed get fails the renewal without an update', async () => {
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
  const r = await u.renew(new AbortController().signal);
  assert.equal(r.ok, false);
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

/** A hub whose answers the test scripts: each call takes the next scripted failure, or succeeds. */
function scriptedHub() {
  const clock = createManualClock();
  const actions: string[] = [];
  const failures: { get: unknown[]; update: unknown[] } = { get: [], update: [] };
  const logs: { level: string; msg: string }[] = [];
  const u = createLeaseUpdater({
    clusterName: 'c1',
    leases: {
      get: async () => {
        actions.push('get');
        const f = failures.get.shift();
        if (f !== undefined) throw f;
        return { metadata: { name: 'managed-cluster-lease', namespace: 'c1', resourceVersion: String(actions.length) }, spec: {} };
      },
      update: async (l) => {
        actions.push('update');
        const f = failures.update.shift();
        if (f !== undefined) throw f;
        return l;
      },
    },
    clock,
    random: () => 0,
    log: createLogger({ level: 'debug', write: (line) => logs.push(JSON.parse(line) as { level: string; msg: string }) }),
  });
  return { clock, actions, failures, logs, u };
}

const refused = (): NetworkError => new NetworkError('connect ECONNREFUSED 127.0.0.1:6443');
const conflict = (): ApiStatusError => new ApiStatusError({ ...statusFromCode(409), reason: 'Conflict' });

test('lease updater: after failures, retries at 1 s, 2 s, 4 s ... capped at a quarter of the lease; back to the lease cadence after a success', async () => {
  const { clock, actions, failures, logs, u } = scriptedHub();
  const hubDown = 7;
  failures.get.push(...Array.from({ length: hubDown }, refused));
  const parent = new AbortController();
  const t0 = clock.now();
  u.start(10, parent.signal);
  const waits: number[] = [];
  for (let i = 1; i <= hubDown; i++) {
    await waitFor(() => actions.length === i && clock.pending() === 1);
    waits.push(clock.nextDue()! - clock.now());
    clock.advance(waits.at(-1)!);
  }
  assert.deepEqual(waits, [1000, 2000, 2500, 2500, 2500, 2500, 2500], '10 s lease: the backoff stops at 2.5 s');
  await waitFor(() => actions.length === hubDown + 2 && clock.pending() === 1);
  assert.deepEqual(actions.slice(-2), ['get', 'update'], 'the hub is back: renewed');
  assert.equal(clock.nextDue()! - clock.now(), 10_000, 'then the normal cadence');
  assert.equal(clock.now() - t0, 15_500);

  const warns = logs.filter((l) => l.level === 'warn');
  assert.equal(warns.length, 1, 'one warning for the whole streak');
  assert.match(warns[0]!.msg, /unable to get cluster lease on hub/);
  assert.equal(logs.filter((l) => l.level === 'debug').length, hubDown - 1, 'the retries are debug lines');
  assert.equal(logs.filter((l) => l.msg === 'cluster lease renewed on hub again').length, 1);

  // A second streak starts from 1 s again and warns again.
  failures.update.push(new ApiStatusError(statusFromCode(503)));
  clock.advance(10_000);
  await waitFor(() => actions.length === hubDown + 4 && clock.pending() === 1);
  assert.equal(clock.nextDue()! - clock.now(), 1000);
  assert.equal(logs.filter((l) => l.level === 'warn').length, 2);
  u.stop();
  parent.abort();
});

test('lease updater: a conflict on the update is retried at once from a fresh get, once', async () => {
  const { clock, actions, failures, logs, u } = scriptedHub();
  failures.update.push(conflict());
  const parent = new AbortController();
  u.start(10, parent.signal);
  await waitFor(() => actions.length === 4 && clock.pending() === 1);
  assert.deepEqual(actions, ['get', 'update', 'get', 'update']);
  assert.equal(clock.nextDue()! - clock.now(), 10_000, 'renewed: the normal cadence');
  assert.equal(logs.filter((l) => l.level === 'warn').length, 0);

  // Two conflicts in a row: the renewal failed, the backoff takes over.
  failures.update.push(conflict(), conflict());
  clock.advance(10_000);
  await waitFor(() => actions.length === 8 && clock.pending() === 1);
  assert.deepEqual(actions.slice(4), ['get', 'update', 'get', 'update']);
  assert.equal(clock.nextDue()! - clock.now(), 1000);
  assert.equal(logs.filter((l) => l.level === 'warn').length, 1);
  u.stop();
  parent.abort();
});

test('lease updater: a Retry-After from the hub stretches the retry', async () => {
  const { clock, actions, failures, u } = scriptedHub();
  failures.get.push(new ApiStatusError(statusFromCode(429), { retryAfterSeconds: 3 }));
  const parent = new AbortController();
  u.start(60, parent.signal);
  await waitFor(() => actions.length === 1 && clock.pending() === 1);
  assert.equal(clock.nextDue()! - clock.now(), 3000);
  u.stop();
  parent.abort();
});
