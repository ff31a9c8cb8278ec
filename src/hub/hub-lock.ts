// The Lease the hub replicas elect their leader with: OCM's lock name for the registration
// controller and library-go's timings, so ocm-ts and OCM replicas never both run the controllers.

import type { LeaderElectionOptions } from '../client/leader-election.js';

/** The lock and timings of runWithLeaderElection; identity is unique per replica (pod name plus a random suffix). */
export type HubLeaderElection = Pick<LeaderElectionOptions, 'namespace' | 'name' | 'identity' | 'leaseDurationMs' | 'renewDeadlineMs' | 'retryPeriodMs' | 'releaseOnCancel'>;

export const HUB_LOCK_DEFAULTS = Object.freeze({
  name: 'registration-controller-lock',
  leaseDurationMs: 137_000,
  renewDeadlineMs: 107_000,
  retryPeriodMs: 26_000,
});

/** OCM's hub namespace: where the lock lives when neither --namespace nor a pod says otherwise. */
export const DEFAULT_HUB_NAMESPACE = 'open-cluster-management-hub';
