// Leader election over a coordination.k8s.io/v1 Lease, with the record and timing rules of
// client-go's leaderelection package, so ocm-ts replicas and Go replicas of the same component can
// share one lock:
// - a candidate takes the lease when it is free, already its own, or expired: nobody changed the
//   record for `leaseDuration`, measured on this process's clock from when it last saw the record
//   change (never from the record's timestamps, so clock skew between nodes does not matter);
// - the leader renews every `retryPeriod`; when no renewal succeeds within `renewDeadline` it stops
//   leading (the callback's signal aborts) and the run ends, so the process can exit;
// - every write is an update with the read resourceVersion, so two candidates never both win.
// A cancelled run (the caller's signal) releases a lease it holds, as client-go's ReleaseOnCancel
// does, so a rolling update hands over at once instead of after a lease duration.

import type { Lease } from '../api/core.js';
import { rfc3339Micro } from '../api/conditions.js';
import { realClock, type Clock } from '../util/clock.js';
import { errorMessage } from '../util/errors.js';
import { nullLogger, type Logger } from '../util/logger.js';
import { isAlreadyExists, isConflict, isNotFound } from './errors.js';
import { resourceTypes } from './resource-types.js';
import type { KubeClient } from './types.js';
import { requestSignal } from './request-signal.js';

/** client-go's JitterFactor: acquisition retries wait retryPeriod plus up to 1.2 × retryPeriod. */
const JITTER_FACTOR = 1.2;

export interface LeaderElectionOptions {
  client: KubeClient;
  namespace: string;
  /** Name of the Lease (the lock). */
  name: string;
  /** This candidate's holderIdentity; unique per process (e.g. pod name plus a random suffix). */
  identity: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  /**
   * Runs once this candidate leads. `signal` aborts when leadership is lost or the run is
   * cancelled; the run waits for the returned promise before it calls onStoppedLeading.
   */
  onStartedLeading(signal: AbortSignal): void | Promise<void>;
  /** Called once when a run that led stops leading (lost or cancelled). */
  onStoppedLeading?(): void;
  /** Called when the observed holder changes (including to this candidate). */
  onNewLeader?(identity: string): void;
  log?: Logger;
  clock?: Clock;
  random?: () => number;
  /** Cancels the run: stop campaigning, or stop leading and release the lease. */
  signal?: AbortSignal;
  /** Release a held lease when `signal` aborts (default true). */
  releaseOnCancel?: boolean;
}

/** How a run ended: `lost` = could not renew within the deadline; `cancelled` = the signal aborted. */
export type LeaderElectionOutcome = 'lost' | 'cancelled';

export class LeaderElectionConfigError extends Error {}

/** The same checks client-go's NewLeaderElector makes. */
export function validateLeaderElectionTimings(t: { leaseDurationMs: number; renewDeadlineMs: number; retryPeriodMs: number }): void {
  if (!(t.leaseDurationMs > 0)) throw new LeaderElectionConfigError('leaseDuration must be greater than zero');
  if (!(t.renewDeadlineMs > 0)) throw new LeaderElectionConfigError('renewDeadline must be greater than zero');
  if (!(t.retryPeriodMs > 0)) throw new LeaderElectionConfigError('retryPeriod must be greater than zero');
  if (t.leaseDurationMs <= t.renewDeadlineMs) throw new LeaderElectionConfigError('leaseDuration must be greater than renewDeadline');
  if (t.renewDeadlineMs <= JITTER_FACTOR * t.retryPeriodMs) throw new LeaderElectionConfigError(`renewDeadline must be greater than retryPeriod*JitterFactor(${JITTER_FACTOR})`);
}

/** The lock record as client-go's LeaderElectionRecord holds it. */
interface LockRecord {
  holderIdentity: string;
  leaseDurationSeconds: number;
  acquireTime: string;
  renewTime: string;
  leaseTransitions: number;
}

function recordOf(lease: Lease): LockRecord {
  const s = lease.spec ?? {};
  return {
    holderIdentity: s.holderIdentity ?? '',
    leaseDurationSeconds: s.leaseDurationSeconds ?? 0,
    acquireTime: s.acquireTime ?? '',
    renewTime: s.renewTime ?? '',
    leaseTransitions: s.leaseTransitions ?? 0,
  };
}

const sameRecord = (a: LockRecord, b: LockRecord): boolean =>
  a.holderIdentity === b.holderIdentity &&
  a.leaseDurationSeconds === b.leaseDurationSeconds &&
  a.acquireTime === b.acquireTime &&
  a.renewTime === b.renewTime &&
  a.leaseTransitions === b.leaseTransitions;

/** What a candidate knows between attempts. */
interface Observation {
  record?: LockRecord;
  /** Local time at which `record` was first seen. */
  at: number;
}

/**
 * Pure decision of one attempt: given the stored record (undefined = no lease), what this
 * candidate observed before and the time now, the record to write, or undefined when another
 * holder's lease is still valid.
 */
export function nextLockRecord(
  stored: LockRecord | undefined,
  observed: Observation,
  o: { identity: string; leaseDurationMs: number; now: number },
): LockRecord | undefined {
  const leaseSeconds = Math.max(1, Math.round(o.leaseDurationMs / 1000));
  const nowText = rfc3339Micro(new Date(o.now));
  if (stored === undefined) {
    return { holderIdentity: o.identity, leaseDurationSeconds: leaseSeconds, acquireTime: nowText, renewTime: nowText, leaseTransitions: 0 };
  }
  const heldByOther = stored.holderIdentity !== '' && stored.holderIdentity !== o.identity;
  const durationMs = stored.leaseDurationSeconds > 0 ? stored.leaseDurationSeconds * 1000 : o.leaseDurationMs;
  if (heldByOther && observed.at + durationMs > o.now) return undefined;
  const mine = stored.holderIdentity === o.identity;
  return {
    holderIdentity: o.identity,
    leaseDurationSeconds: leaseSeconds,
    acquireTime: mine && stored.acquireTime !== '' ? stored.acquireTime : nowText,
    renewTime: nowText,
    leaseTransitions: mine ? stored.leaseTransitions : stored.leaseTransitions + 1,
  };
}

/**
 * Campaigns for the lease, runs `onStartedLeading` while leading, and resolves once leadership is
 * lost or the run is cancelled (after the callback's promise settled and onStoppedLeading ran).
 * Throws LeaderElectionConfigError for inconsistent timings.
 */
export async function runWithLeaderElection(o: LeaderElectionOptions): Promise<LeaderElectionOutcome> {
  validateLeaderElectionTimings(o);
  if (o.identity === '') throw new LeaderElectionConfigError('leader election requires a non-empty identity');
  const clock = o.clock ?? realClock;
  const random = o.random ?? Math.random;
  const log = (o.log ?? nullLogger()).child({ lease: `${o.namespace}/${o.name}`, identity: o.identity });
  const leases = o.client.resource<Lease>(resourceTypes.leases, o.namespace);
  const cancel = o.signal ?? new AbortController().signal;
  const observed: Observation = { at: clock.now() };
  let lastLeader = '';
  let held: Lease | undefined;

  const observe = (lease: Lease | undefined): void => {
    const rec = lease === undefined ? undefined : recordOf(lease);
    if (rec === undefined || observed.record === undefined || !sameRecord(rec, observed.record)) {
      observed.record = rec;
      observed.at = clock.now();
    }
    const leader = rec?.holderIdentity ?? '';
    if (leader !== lastLeader) {
      lastLeader = leader;
      if (leader !== '') {
        log.info('new leader elected', { leader });
        o.onNewLeader?.(leader);
      }
    }
  };

  /** One attempt to acquire or renew; true when this candidate holds the lease afterwards. */
  const tryAcquireOrRenew = async (signal: AbortSignal): Promise<boolean> => {
    let current: Lease | undefined;
    try {
      current = await leases.get(o.name, { signal });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    if (current !== undefined) observe(current);
    const next = nextLockRecord(current === undefined ? undefined : recordOf(current), observed, { identity: o.identity, leaseDurationMs: o.leaseDurationMs, now: clock.now() });
    if (next === undefined) return false;
    const body: Lease = current === undefined
      ? { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: o.name, namespace: o.namespace }, spec: next }
      : { ...current, spec: { ...current.spec, ...next } };
    try {
      held = current === undefined ? await leases.create(body, { signal }) : await leases.update(body, { signal });
    } catch (err) {
      // Another candidate wrote first: it wins this round.
      if (isConflict(err) || isAlreadyExists(err)) return false;
      throw err;
    }
    observe(held);
    return true;
  };

  const attempt = async (signal: AbortSignal, what: string): Promise<boolean> => {
    try {
      return await tryAcquireOrRenew(signal);
    } catch (err) {
      if (!signal.aborted) log.warn(`error ${what} lease`, { err: errorMessage(err) });
      return false;
    }
  };

  const sleep = async (ms: number, signal: AbortSignal): Promise<boolean> => {
    try {
      await clock.sleep(ms, signal);
      return true;
    } catch {
      return false;
    }
  };

  // Acquire: retry with jitter until this candidate holds the lease or the run is cancelled.
  log.info('attempting to acquire leader lease');
  for (;;) {
    if (cancel.aborted) return 'cancelled';
    if (await attempt(cancel, 'acquiring')) break;
    if (!(await sleep(o.retryPeriodMs + random() * JITTER_FACTOR * o.retryPeriodMs, cancel))) return 'cancelled';
  }
  log.info('successfully acquired lease');

  const leading = new AbortController();
  const onCancel = (): void => leading.abort();
  cancel.addEventListener('abort', onCancel, { once: true });
  let outcome: LeaderElectionOutcome = 'cancelled';
  const work = Promise.resolve()
    .then(() => o.onStartedLeading(leading.signal))
    .catch((err: unknown) => log.error('leader callback failed', { err: errorMessage(err) }));

  // Renew: each round retries every retryPeriod until it succeeds or renewDeadline has passed.
  renew: while (!leading.signal.aborted) {
    const deadline = clock.now() + o.renewDeadlineMs;
    for (;;) {
      const round = requestSignal(leading.signal, Math.max(1, deadline - clock.now()));
      let renewed: boolean;
      try {
        renewed = await attempt(round.signal!, 'renewing');
      } finally {
        round.release();
      }
      if (renewed) break;
      if (leading.signal.aborted) break renew;
      const left = deadline - clock.now();
      if (left <= 0 || !(await sleep(Math.min(o.retryPeriodMs, left), leading.signal))) {
        if (leading.signal.aborted) break renew;
        outcome = 'lost';
        log.warn('failed to renew lease within the renew deadline; stopping leading', { renewDeadlineMs: o.renewDeadlineMs });
        break renew;
      }
    }
    if (!(await sleep(o.retryPeriodMs, leading.signal))) break;
  }
  cancel.removeEventListener('abort', onCancel);
  leading.abort();
  await work;
  if (outcome === 'cancelled' && (o.releaseOnCancel ?? true)) await release(held);
  log.info('stopped leading', { outcome });
  o.onStoppedLeading?.();
  return outcome;

  /** Gives the lease up (holder cleared, one-second duration) if this candidate still holds it. */
  async function release(lease: Lease | undefined): Promise<void> {
    if (lease === undefined) return;
    const now = rfc3339Micro(new Date(clock.now()));
    const spec = lease.spec ?? {};
    const body: Lease = { ...lease, spec: { ...spec, holderIdentity: '', leaseDurationSeconds: 1, acquireTime: now, renewTime: now, leaseTransitions: spec.leaseTransitions ?? 0 } };
    try {
      await leases.update(body, { signal: AbortSignal.timeout(Math.max(1000, o.retryPeriodMs)) });
      log.info('released leader lease');
    } catch (err) {
      log.warn('failed to release lease', { err: errorMessage(err) });
    }
  }
}
