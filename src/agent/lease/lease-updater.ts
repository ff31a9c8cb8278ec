// The lease updater of the lease controller: while started, renew the hub Lease
// `managed-cluster-lease` in the cluster namespace at once (the updater's very first renewal after
// `firstRenewalAfter`, bounded by FIRST_RENEWAL_WAIT_MS), then again on the schedule of
// renew-schedule.ts: every duration × (1 + 0.25 U) while renewals succeed (the wait starts after
// each update finishes), sooner with a capped backoff after a failure. A renewal sets
// spec.renewTime (MicroTime) on the lease and UPDATEs it; the lease is the one the previous
// successful update returned, or a fresh GET when there is none (the first renewal, after any
// failure). A 409 on the update is retried at once from a fresh GET, once. Skipping the GET while
// nobody else writes the lease halves the requests a fleet of agents sends its hub each lease period;
// when someone else did write it, the update's resourceVersion no longer matches and the 409 path
// reads it again, so nothing of theirs is overwritten. The agent never creates the lease (the hub does).
//
// A failure streak is logged once at warn (its first failure) and once at info when a renewal
// succeeds again; the retries between are debug lines, so a hub outage does not flood the logs of
// thousands of agents.

import { rfc3339Micro } from '../../api/conditions.js';
import { names } from '../../api/constants.js';
import type { Lease } from '../../api/core.js';
import { ApiStatusError, isConflict } from '../../client/errors.js';
import type { ResourceClient } from '../../client/types.js';
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { nextRenewDelayMs, type RenewState } from './renew-schedule.js';

export interface LeaseUpdaterOptions {
  clusterName: string;
  /** Leases of the cluster namespace on the hub. */
  leases: Pick<ResourceClient<Lease>, 'get' | 'update'>;
  clock: Clock;
  random: () => number;
  log: Logger;
  /** The updater's very first renewal waits for this, at most FIRST_RENEWAL_WAIT_MS. */
  firstRenewalAfter?: Promise<void>;
}

/** Longest the first renewal waits for `firstRenewalAfter`. */
export const FIRST_RENEWAL_WAIT_MS = 1000;

type RenewOutcome = { ok: true } | { ok: false; step: 'get' | 'update'; err: unknown };

export interface LeaseUpdater {
  /** No-op when already running. `parent` ends the loop too. */
  start(durationSeconds: number, parent: AbortSignal): void;
  stop(): void;
  running(): boolean;
  /** One renewal, with its one conflict retry (exposed for tests). */
  renew(signal: AbortSignal): Promise<RenewOutcome>;
}

export function createLeaseUpdater(o: LeaseUpdaterOptions): LeaseUpdater {
  let current: AbortController | undefined;
  const leaseRef = `${o.clusterName}/${names.clusterLease}`;

  /** The lease as our last successful update left it; undefined until then and after any failure. */
  let last: Lease | undefined;
  let waitBeforeFirst = o.firstRenewalAfter;

  /** Waits for `firstRenewalAfter` once in the updater's life, bounded; the signal ends it too. */
  const waitFirst = async (signal: AbortSignal): Promise<void> => {
    const gate = waitBeforeFirst;
    waitBeforeFirst = undefined;
    if (!gate) return;
    const bound = new AbortController();
    const onAbort = (): void => bound.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      await Promise.race([gate, o.clock.sleep(FIRST_RENEWAL_WAIT_MS, bound.signal).catch(() => undefined)]);
    } finally {
      bound.abort();
      signal.removeEventListener('abort', onAbort);
    }
  };

  const attempt = async (signal: AbortSignal, known: Lease | undefined): Promise<RenewOutcome> => {
    let lease: Lease;
    if (known) {
      lease = known;
    } else {
      try {
        lease = await o.leases.get(names.clusterLease, { signal });
      } catch (err) {
        return { ok: false, step: 'get', err };
      }
    }
    const next: Lease = { ...lease, spec: { ...(lease.spec ?? {}), renewTime: rfc3339Micro(new Date(o.clock.now())) } };
    try {
      const stored = await o.leases.update(next, { signal });
      // Only an answer the server stored (a new resourceVersion) can stand for the lease next time;
      // a driver that echoes what it sent (the gRPC one reads from its own cache anyway) gets a read.
      const rv = stored.metadata.resourceVersion;
      last = rv !== undefined && rv !== '' && rv !== next.metadata.resourceVersion ? stored : undefined;
      return { ok: true };
    } catch (err) {
      last = undefined;
      return { ok: false, step: 'update', err };
    }
  };

  const renew = async (signal: AbortSignal): Promise<RenewOutcome> => {
    const first = await attempt(signal, last);
    // Someone else wrote the lease since the version we updated from: a fresh GET will do.
    if (!first.ok && first.step === 'update' && isConflict(first.err) && !signal.aborted) return attempt(signal, undefined);
    return first;
  };

  const loop = async (durationSeconds: number, signal: AbortSignal): Promise<void> => {
    const state: RenewState = { failures: 0 };
    let streakStart = 0;
    await waitFirst(signal);
    while (!signal.aborted) {
      const r = await renew(signal);
      if (signal.aborted) return;
      if (r.ok) {
        if (state.failures > 0) o.log.info('cluster lease renewed on hub again', { lease: leaseRef, failedAttempts: state.failures, afterMs: o.clock.now() - streakStart });
        state.failures = 0;
        delete state.retryAfterSeconds;
      } else {
        const msg = r.step === 'get' ? 'unable to get cluster lease on hub' : 'unable to update cluster lease on hub';
        if (state.failures === 0) {
          streakStart = o.clock.now();
          o.log.warn(`${msg}; retrying with backoff`, { lease: leaseRef, err: r.err });
        } else {
          o.log.debug(msg, { lease: leaseRef, failedAttempts: state.failures + 1, err: r.err });
        }
        state.failures++;
        const ra = r.err instanceof ApiStatusError ? r.err.retryAfterSeconds : undefined;
        if (ra !== undefined) state.retryAfterSeconds = ra;
        else delete state.retryAfterSeconds;
      }
      try {
        await o.clock.sleep(nextRenewDelayMs(durationSeconds, state, o.random()), signal);
      } catch {
        return; // aborted
      }
    }
  };

  return {
    start(durationSeconds, parent) {
      if (current && !current.signal.aborted) return;
      const ac = new AbortController();
      const onParentAbort = (): void => ac.abort(parent.reason);
      if (parent.aborted) return;
      parent.addEventListener('abort', onParentAbort, { once: true });
      ac.signal.addEventListener('abort', () => parent.removeEventListener('abort', onParentAbort), { once: true });
      current = ac;
      // A new run starts from what the hub holds now.
      last = undefined;
      o.log.info(`Start to update lease "${names.clusterLease}" on cluster "${o.clusterName}"`, { reason: 'ManagedClusterLeaseUpdateStarted', durationSeconds });
      void loop(durationSeconds, ac.signal);
    },
    stop() {
      if (!current || current.signal.aborted) return;
      current.abort();
      current = undefined;
      o.log.info(`Stop to update lease "${names.clusterLease}" on cluster "${o.clusterName}"`, { reason: 'ManagedClusterLeaseUpdateStoped' });
    },
    running: () => current !== undefined && !current.signal.aborted,
    renew,
  };
}
