// The Lease the hub replicas elect their leader with: OCM's lock name for the registration
// controller and library-go's timings, so ocm-ts and OCM replicas never both run the controllers.

export interface HubLeaderElection {
  namespace: string;
  name: string;
  /** Unique per replica (the pod name plus a random suffix). */
  identity: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  /** Hand the Lease over at once when stopped (default true, as OCM's); false behaves like a crash. */
  releaseOnCancel?: boolean;
}

export const HUB_LOCK_DEFAULTS = Object.freeze({
  name: 'registration-controller-lock',
  leaseDurationMs: 137_000,
  renewDeadlineMs: 107_000,
  retryPeriodMs: 26_000,
});

/** OCM's hub namespace: where the lock lives when neither --namespace nor a pod says otherwise. */
export const DEFAULT_HUB_NAMESPACE = 'open-cluster-management-hub';
