import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Lease } from '../../api/core.js';
import { rfc3339Micro } from '../../api/conditions.js';
import { ApiStatusError, NetworkError, statusFromCode } from '../../client/errors.js';
import { createManualClock } from '../../client/manual-clock.js';
import { createLogger, nullLogger } from '../../util/logger.js';
import { waitFor } from '../../../test/helpers/wait-for.js';
import { createLeaseUpdater, FIRST_RENEWAL_WAIT_MS, type LeaseUpdaterOptions } from './lease-updater.js';

/** Lets the fake client's promises settle (they resolve in microtasks, never on a timer). */
const settle = (): Promise<void> => new Promise((r) => setImmediate(r));

function setup(over: Partial<LeaseUpdaterOptions> = {}) {
  const clock = createManualClock();
  const actions: string[] = [];
  let lease: Lease = { metadata: { name: 'managed-cluster-lease', namespace: 'c1', resourceVersion: '1' }, spec: {} };
  // As the API server: an update must carry the stored resourceVersion, and bumps it.
  const write = (l: Lease): Lease => {
    lease = structuredClone({ ...l, metadata: { ...l.metadata, resourceVersion: String(Number(lease.metadata.resourceVersion) + 1) } });
    return structuredClone(lease);
  };
  const u = createLeaseUpdater({
    clusterName: 'c1',
    leases: {
      get: async () => {
        actions.push('get');
        return structuredClone(lease);
      },
      update: async (l) => {
        actions.push('update');
        if (l.metadata.resourceVersion !== lease.metadata.resourceVersion) throw new ApiStatusError({ ...statusFromCode(409), reason: 'Conflict' });
        return write(l);
      },
    },
    clock,
    random: () => 0,
    log: nullLogger(),
    ...over,
  });
  /** One round finished and the next wait started. */
  const sleeping = (rounds: number): Promise<boolean> => waitFor(() => actions.filter((a) => a === 'update').length === rounds && clock.pending() === 1);
  /** Someone else writes the lease (another agent of the same cluster, an admin). */
  const writeElsewhere = (change: (l: Lease) => void): void => {
    const l = structuredClone(lease);
    change(l);
    write(l);
  };
  return { clock, actions, u, lease: () => lease, sleeping, writeElsewhere };
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
  assert.deepEqual(actions, ['get', 'update', 'update', 'update'], 'later renewals update the lease the previous one returned');

  u.stop();
  assert.equal(u.running(), false);
  assert.equal(clock.pending(), 0, 'the wait for the next round is cancelled');
  clock.advance(10 * 1125);
  await settle();
  assert.equal(actions.length, 4, 'no renewal in ten intervals after stop');
  parent.abort();
});

test('lease updater: a driver that echoes the lease it was sent (no new resourceVersion) gets a read before each renewal', async () => {
  const actions: string[] = [];
  const u = createLeaseUpdater({
    clusterName: 'c1',
    leases: {
      get: async () => {
        actions.push('get');
        return { metadata: { name: 'managed-cluster-lease', namespace: 'c1', resourceVersion: '5' }, spec: {} };
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
  const signal = new AbortController().signal;
  assert.equal((await u.renew(signal)).ok, true);
  assert.equal((await u.renew(signal)).ok, true);
  assert.deepEqual(actions, ['get', 'update', 'get', 'update']);
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
  assert.equal(actions.length, 3, 'no renewal after the parent aborted');
});

test('lease updater: a lease someone else wrote since our last renewal is read again, and their change kept', async () => {
  const { clock, actions, u, lease, sleeping, writeElsewhere } = setup();
  const parent = new AbortController();
  u.start(1, parent.signal);
  await sleeping(1);
  writeElsewhere((l) => {
    l.spec = { ...l.spec, holderIdentity: 'someone-else' };
  });
  clock.advance(1000);
  await sleeping(3);
  assert.deepEqual(actions, ['get', 'update', 'update', 'get', 'update'], 'the stale update met a conflict; a fresh get and update followed');
  assert.equal(lease().spec?.holderIdentity, 'someone-else');
  assert.equal(lease().spec?.renewTime, rfc3339Micro(new Date(clock.now())));
  clock.advance(1000);
  await sleeping(4);
  assert.deepEqual(actions.slice(5), ['update'], 'then back to updates alone');
  u.stop();
  parent.abort();
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
        return { ...l, metadata: { ...l.metadata, resourceVersion: `${l.metadata.resourceVersion ?? ''}+` } };
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
  await waitFor(() => actions.length === hubDown + 3 && clock.pending() === 1);
  assert.equal(actions.at(-1), 'update', 'a renewal after a success updates the lease it holds, without a get');
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
  await waitFor(() => actions.length === 7 && clock.pending() === 1);
  assert.deepEqual(actions.slice(4), ['update', 'get', 'update']);
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

test('lease updater: the very first renewal waits for firstRenewalAfter, and no longer than FIRST_RENEWAL_WAIT_MS', async () => {
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  const { actions, u } = setup({ firstRenewalAfter: gate });
  const parent = new AbortController();
  u.start(60, parent.signal);
  await settle();
  assert.deepEqual(actions, []);
  open();
  await waitFor(() => actions.length === 2);
  assert.deepEqual(actions, ['get', 'update']);
  parent.abort();

  // A gate that never opens holds the first renewal for FIRST_RENEWAL_WAIT_MS only; a restart does not wait again.
  const never = setup({ firstRenewalAfter: new Promise<void>(() => undefined) });
  const p2 = new AbortController();
  never.u.start(60, p2.signal);
  await settle();
  assert.deepEqual(never.actions, []);
  never.clock.advance(FIRST_RENEWAL_WAIT_MS - 1);
  await settle();
  assert.deepEqual(never.actions, []);
  never.clock.advance(1);
  await waitFor(() => never.actions.length === 2);
  never.u.stop();
  never.u.start(60, p2.signal);
  await waitFor(() => never.actions.length === 4);
  p2.abort();
});
