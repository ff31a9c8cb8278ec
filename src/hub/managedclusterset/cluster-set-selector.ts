// Cluster-set membership and the desired built-in sets (`default`, `global`). Pure.

import type { ManagedClusterSet } from '../../api/cluster.js';
import { conditionTypes, labels as wellKnownLabels, reasons } from '../../api/constants.js';
import type { Condition } from '../../api/meta.js';
import { labelSelectorFromObject, matchesLabels, type LabelSelector, type LabelSelectorObject } from '../../api/label-selectors.js';
import { semanticEqual } from '../../util/merge-patch.js';

/**
 * The labels of the set's members: its own name as the cluster-set label (ExclusiveClusterSetLabel,
 * the default) or its label selector. Throws `selectorType is not right: <t>` for unknown types.
 */
export function memberSelector(set: ManagedClusterSet): LabelSelector {
  const sel = set.spec?.clusterSelector;
  const type = sel?.selectorType ?? '';
  if (type === '' || type === 'ExclusiveClusterSetLabel') return { requirements: [{ key: wellKnownLabels.clusterSet, operator: 'Equals', values: [set.metadata.name ?? ''] }] };
  if (type === 'LabelSelector') return labelSelectorFromObject((sel?.labelSelector ?? null) as LabelSelectorObject | null);
  throw new Error(`selectorType is not right: ${String(type)}`);
}

/** Whether the set selects a cluster with these labels; throws `selectorType is not right: <t>` for unknown types. */
export function setSelects(set: ManagedClusterSet, clusterLabels: Record<string, string> | undefined): boolean {
  return matchesLabels(memberSelector(set), clusterLabels);
}

/** Names of the sets that select the labels; sets with a bad selector are skipped. */
export function setsSelecting(sets: readonly ManagedClusterSet[], clusterLabels: Record<string, string> | undefined): string[] {
  const out: string[] = [];
  for (const s of sets) {
    try {
      if (setSelects(s, clusterLabels)) out.push(s.metadata.name ?? '');
    } catch {
      // unknown selector type: reported by the set's own sync
    }
  }
  return out;
}

/** Symmetric difference of two name lists. */
export function symmetricDifference(a: readonly string[], b: readonly string[]): string[] {
  const sa = new Set(a);
  const sb = new Set(b);
  return [...a.filter((x) => !sb.has(x)), ...b.filter((x) => !sa.has(x))];
}

export function clusterSetEmptyCondition(selected: number): Condition {
  return selected === 0
    ? { type: conditionTypes.clusterSetEmpty, status: 'True', reason: reasons.noClusterMatched, message: 'No ManagedCluster selected' }
    : { type: conditionTypes.clusterSetEmpty, status: 'False', reason: reasons.clustersSelected, message: `${selected} ManagedClusters selected` };
}

export type BuiltinSetName = 'default' | 'global';

function desiredClusterSelector(name: BuiltinSetName): NonNullable<NonNullable<ManagedClusterSet['spec']>['clusterSelector']> {
  return name === 'default' ? { selectorType: 'ExclusiveClusterSetLabel' } : { selectorType: 'LabelSelector', labelSelector: {} };
}

export type BuiltinSetAction = { kind: 'none' } | { kind: 'create'; set: ManagedClusterSet } | { kind: 'update'; set: ManagedClusterSet };

/** Built-in set: create when missing; restore only spec.clusterSelector unless autoupdate is "false". */
export function builtinSetAction(name: BuiltinSetName, existing: ManagedClusterSet | undefined): BuiltinSetAction {
  const desired = desiredClusterSelector(name);
  if (!existing) {
    return { kind: 'create', set: { apiVersion: 'cluster.open-cluster-management.io/v1beta2', kind: 'ManagedClusterSet', metadata: { name }, spec: { clusterSelector: desired } } };
  }
  if (existing.metadata.annotations?.['cluster.open-cluster-management.io/autoupdate'] === 'false') return { kind: 'none' };
  const current = existing.spec?.clusterSelector;
  // labelSelector {} must stay present for global: compare with {} preserved.
  const same = name === 'default'
    ? semanticEqual(current, desired) || (current !== undefined && current.selectorType === 'ExclusiveClusterSetLabel' && current.labelSelector === undefined)
    : current?.selectorType === 'LabelSelector' && current.labelSelector !== undefined && current.labelSelector !== null && semanticEqual(current.labelSelector, {});
  if (same) return { kind: 'none' };
  const set = structuredClone(existing);
  set.spec = { ...(set.spec ?? {}), clusterSelector: desired };
  return { kind: 'update', set };
}
