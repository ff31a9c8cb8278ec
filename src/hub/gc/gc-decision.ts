// Decisions of GCController: the cleanup priority order and the Deleting condition. Pure.

import { annotations, conditionTypes, reasons } from '../../api/constants.js';
import type { KubeObject, Condition } from '../../api/meta.js';

/** Cleanup priority: integer 0..100 from the annotation; missing or invalid → 0. */
export function cleanupPriority(obj: KubeObject): number {
  const raw = obj.metadata.annotations?.[annotations.cleanupPriority];
  if (raw === undefined || !/^[+-]?\d+$/.test(raw.trim())) return 0;
  const n = Number.parseInt(raw.trim(), 10);
  return n < 0 || n > 100 ? 0 : n;
}

/** The items of the lowest priority group (those deleted in this round). */
export function firstDeleteGroup<T extends KubeObject>(items: readonly T[]): T[] {
  if (items.length === 0) return [];
  const min = Math.min(...items.map(cleanupPriority));
  return items.filter((i) => cleanupPriority(i) === min);
}

export function remainingCondition(resource: string, items: readonly KubeObject[]): Condition {
  const pending = items.filter((i) => (i.metadata.finalizers ?? []).length > 0).length;
  return {
    type: conditionTypes.deleting,
    status: 'False',
    reason: reasons.resourceRemaining,
    message: `The resource ${resource} is remaning, the remaining count is ${items.length}, the finalizer pending count is ${pending}`,
  };
}

export const NO_RESOURCE_CONDITION: Readonly<Condition> = Object.freeze({
  type: conditionTypes.deleting,
  status: 'True',
  reason: reasons.noResource,
  message: 'No cleaned resource in cluster ns.',
});

export function deletingErrorCondition(message: string): Condition {
  return { type: conditionTypes.deleting, status: 'False', reason: reasons.deletingError, message };
}
