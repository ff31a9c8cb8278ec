// Desired `status.managedNamespaces` of a cluster. Pure.

import type { ManagedCluster, ManagedClusterSet, ManagedNamespaceConfig } from '../../api/cluster.js';
import { setSelects } from '../managedclusterset/cluster-set-selector.js';

/** Entries from every non-deleting set selecting the cluster, sorted by clusterSet then name, no conditions. */
export function desiredManagedNamespaces(cluster: ManagedCluster, sets: readonly ManagedClusterSet[]): ManagedNamespaceConfig[] {
  const out: ManagedNamespaceConfig[] = [];
  for (const s of sets) {
    if (s.metadata.deletionTimestamp) continue;
    let selects = false;
    try {
      selects = setSelects(s, cluster.metadata.labels);
    } catch {
      selects = false;
    }
    if (!selects) continue;
    for (const ns of s.spec?.managedNamespaces ?? []) out.push({ name: ns.name, clusterSet: s.metadata.name ?? '' });
  }
  out.sort((a, b) => (a.clusterSet < b.clusterSet ? -1 : a.clusterSet > b.clusterSet ? 1 : a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return out;
}

/** Clusters whose status references the set (previous members). */
export function clustersReferencingSet(clusters: readonly ManagedCluster[], set: string): string[] {
  return clusters.filter((c) => (c.status?.managedNamespaces ?? []).some((m) => m.clusterSet === set)).map((c) => c.metadata.name ?? '');
}
