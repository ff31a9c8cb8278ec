// Decisions of ManagedClusterLeaseController (lease expiry) and ClockSyncController. Pure.

import { DEFAULT_LEASE_DURATION_SECONDS, LEASE_DURATION_TIMES, conditionTypes, reasons } from '../../api/constants.js';
import type { Condition } from '../../api/meta.js';

/** 5 × leaseDurationSeconds, with 0/absent/invalid treated as 60 s. */
export function leaseGraceMs(leaseDurationSeconds: number | undefined): number {
  const d = typeof leaseDurationSeconds === 'number' && Number.isFinite(leaseDurationSeconds) && leaseDurationSeconds > 0 ? leaseDurationSeconds : DEFAULT_LEASE_DURATION_SECONDS;
  return LEASE_DURATION_TIMES * d * 1000;
}

/** Parses an RFC 3339 (Micro)Time to epoch ms; undefined when absent or unparsable. */
function parseTime(t: string | undefined | null): number | undefined {
  if (typeof t !== 'string' || t === '') return undefined;
  const ms = Date.parse(t);
  return Number.isFinite(ms) ? ms : undefined;
}

export interface LeaseCheck {
  expired: boolean;
  /** When to look again: the grace period after marking, else exactly at expiry. */
  requeueAfterMs: number;
}

/**
 * expired ⇔ now ≥ renewTime + grace. A lease without a (parsable) renewTime counts as never renewed, i.e.
 * expired. Fresh leases are looked at again exactly at their expiry (at least 1 ms from now).
 */
export function checkLease(renewTime: string | undefined, leaseDurationSeconds: number | undefined, nowMs: number): LeaseCheck {
  const grace = leaseGraceMs(leaseDurationSeconds);
  const renewed = parseTime(renewTime);
  if (renewed === undefined || nowMs >= renewed + grace) return { expired: true, requeueAfterMs: grace };
  return { expired: false, requeueAfterMs: Math.max(1, Math.ceil(renewed + grace - nowMs)) };
}

export const LEASE_STOPPED_CONDITION: Readonly<Condition> = Object.freeze({
  type: conditionTypes.available,
  status: 'Unknown',
  reason: reasons.leaseUpdateStopped,
  message: 'Registration agent stopped updating its lease.',
});

export function availableUnknownNote(cluster: string): string {
  return `The ${cluster} is successfully imported. However, the connection check from the managed cluster to the hub cluster has failed`;
}

/** synced ⇔ |now − renewTime| < 5 × leaseDurationSeconds (strict both ways), or the skip annotation is "true". */
export function clockSynced(renewTime: string | undefined, leaseDurationSeconds: number | undefined, nowMs: number, skipAnnotation: string | undefined): boolean {
  if (skipAnnotation === 'true') return true;
  const renewed = parseTime(renewTime);
  if (renewed === undefined) return false;
  const threshold = leaseGraceMs(leaseDurationSeconds);
  return nowMs - renewed < threshold && renewed - nowMs < threshold;
}

export function clockSyncedCondition(synced: boolean): Condition {
  return synced
    ? { type: conditionTypes.clockSynced, status: 'True', reason: reasons.clockSynced, message: 'The clock of the managed cluster is synced with the hub.' }
    : {
        type: conditionTypes.clockSynced,
        status: 'False',
        reason: reasons.clockOutOfSync,
        message: 'The clock of hub and agent is out of sync. This may cause the Unknown status and affect agent functionalities.',
      };
}
