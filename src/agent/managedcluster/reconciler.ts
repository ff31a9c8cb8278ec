// The step type of ManagedClusterStatusController: an ordered list of reconcilers,
// each owning one part of ManagedCluster.status. A step receives the (already deep-copied) cluster
// and returns it, possibly changed, with 'continue' or 'stop'; errors are collected by the
// controller, and 'stop' ends the chain (earlier changes are still patched).

import type { ManagedCluster } from '../../api/cluster.js';

type NextStep = 'continue' | 'stop';

export interface StepResult {
  obj: ManagedCluster;
  next: NextStep;
  /** Collected into the sync's AggregateError; does not by itself stop the chain. */
  error?: Error;
}

export interface StatusContext {
  readonly clusterName: string;
  readonly signal: AbortSignal;
  /** The sync's time, used for condition transition times. */
  readonly now: Date;
  /** A "log event", as OCM's controller-local recorder: an INFO line with a reason, not a Kubernetes Event. */
  event(reason: string, message: string): void;
  /** Schedule another sync of the cluster after `ms` (client-go AddAfter). */
  requeueAfter(ms: number): void;
}

export interface StatusReconciler {
  readonly name: string;
  reconcile(obj: ManagedCluster, ctx: StatusContext): Promise<StepResult>;
}
