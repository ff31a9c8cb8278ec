// Pure decision of the lease controller's sync: whether the lease updater must
// stop, and with which duration it must run.

import type { ManagedCluster } from '../../api/cluster.js';
import { isConditionTrue } from '../../api/conditions.js';
import { DEFAULT_LEASE_DURATION_SECONDS, conditionTypes } from '../../api/constants.js';

export interface LeaseDecision {
  /** Stop the updater first (not accepted, missing cluster, or the duration changed). */
  stop: boolean;
  /** Then ensure it runs with this duration (seconds); undefined = leave it stopped. */
  runWithSeconds?: number;
  /** The duration to remember for the next sync. */
  lastDurationSeconds: number | undefined;
  /** Set when the cluster is missing from the cache. */
  error?: string;
}

function leaseDurationSeconds(cluster: ManagedCluster): number {
  const d = cluster.spec?.leaseDurationSeconds ?? 0;
  return d > 0 ? d : DEFAULT_LEASE_DURATION_SECONDS;
}

export function decideLease(input: { clusterName: string; cluster: ManagedCluster | undefined; lastDurationSeconds: number | undefined }): LeaseDecision {
  const { cluster, clusterName } = input;
  if (!cluster) {
    return {
      stop: true,
      lastDurationSeconds: input.lastDurationSeconds,
      error: `unable to get managed cluster "${clusterName}" from hub: managedcluster.cluster.open-cluster-management.io "${clusterName}" not found`,
    };
  }
  if (!isConditionTrue(cluster.status?.conditions, conditionTypes.hubAccepted)) return { stop: true, lastDurationSeconds: input.lastDurationSeconds };
  const d = leaseDurationSeconds(cluster);
  const changed = d !== input.lastDurationSeconds;
  return { stop: changed, runWithSeconds: d, lastDurationSeconds: d };
}

/** Wait before the next renewal: duration × (1 + 0.25 × U), U in [0, 1). */
export function jitteredIntervalMs(durationSeconds: number, u: number): number {
  return Math.round(durationSeconds * 1000 * (1 + 0.25 * u));
}
