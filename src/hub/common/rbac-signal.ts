// Which clusters' RBAC this hub has just written, as its own writes' answers say: the CSR approver
// waits for a new cluster's role and bindings before it approves the cluster's first CSR, and its
// caches learn of the last binding only when that binding's watch event comes, a round trip through
// a busy hub after the write was answered. The acceptance confirms here once every one of its RBAC
// writes succeeded, and the approver goes on at once. A cluster the hub denies or removes is
// forgotten, so that only the caches speak for it again.

export interface ClusterRbacSignal {
  /** Every RBAC write of the cluster's acceptance was answered with success. */
  confirm(cluster: string): void;
  /** The cluster was denied or is being removed: its RBAC is no longer known written. */
  forget(cluster: string): void;
  confirmed(cluster: string): boolean;
  /** Called when a cluster becomes confirmed (not again while it stays so). */
  onConfirm(fn: (cluster: string) => void): void;
}

export function createClusterRbacSignal(): ClusterRbacSignal {
  const written = new Set<string>();
  const listeners: Array<(cluster: string) => void> = [];
  return {
    confirm(cluster) {
      // The acceptance runs again at every change of an accepted cluster: only news is passed on.
      if (written.has(cluster)) return;
      written.add(cluster);
      for (const fn of listeners) fn(cluster);
    },
    forget: (cluster) => void written.delete(cluster),
    confirmed: (cluster) => written.has(cluster),
    onConfirm: (fn) => void listeners.push(fn),
  };
}
