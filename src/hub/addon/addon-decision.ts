// Decisions of ManagedClusterAddonHealthCheckController and AddOnFeatureDiscoveryController. Pure.

import type { ManagedClusterAddOn } from '../../api/addon.js';
import { findCondition } from '../../api/conditions.js';
import { conditionTypes, labels as wellKnownLabels } from '../../api/constants.js';
import type { Condition } from '../../api/meta.js';

/** `available` (True), `unhealthy` (False), `unreachable` (missing or Unknown). */
export function addonLabelValue(addon: ManagedClusterAddOn): 'available' | 'unhealthy' | 'unreachable' {
  const s = findCondition(addon.status?.conditions, conditionTypes.addonAvailable)?.status;
  return s === 'True' ? 'available' : s === 'False' ? 'unhealthy' : 'unreachable';
}

/**
 * Label changes for the cluster: desired `feature.open-cluster-management.io/addon-<name>` entries for
 * non-deleting addons; stale keys with that prefix map to null. Empty object when nothing changes.
 */
export function addonLabelPatch(clusterLabels: Record<string, string> | undefined, addons: readonly ManagedClusterAddOn[]): Record<string, string | null> {
  const current = clusterLabels ?? {};
  const desired: Record<string, string> = {};
  for (const a of addons) {
    if (a.metadata.deletionTimestamp) continue;
    desired[`${wellKnownLabels.addonFeaturePrefix}${a.metadata.name ?? ''}`] = addonLabelValue(a);
  }
  const patch: Record<string, string | null> = {};
  for (const [k, v] of Object.entries(desired)) if (current[k] !== v) patch[k] = v;
  for (const k of Object.keys(current)) if (k.startsWith(wellKnownLabels.addonFeaturePrefix) && !(k in desired)) patch[k] = null;
  return patch;
}

/** The addon Available condition copied from the cluster's Unknown Available condition. */
export function addonUnknownCondition(clusterAvailable: Condition): Condition {
  return { type: conditionTypes.addonAvailable, status: 'Unknown', reason: clusterAvailable.reason, message: clusterAvailable.message };
}
