// "Set condition" semantics shared by every controller (Kubernetes' metav1.Condition upsert):
// conditions are a map keyed by type; lastTransitionTime changes only when status changes.
import type { Condition } from './meta.js';
import { isoUtc } from '../util/utc-time.js';

export function findCondition(conditions: readonly Condition[] | undefined, type: string): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

export function isConditionTrue(conditions: readonly Condition[] | undefined, type: string): boolean {
  return findCondition(conditions, type)?.status === 'True';
}

export function isConditionFalse(conditions: readonly Condition[] | undefined, type: string): boolean {
  return findCondition(conditions, type)?.status === 'False';
}

/**
 * Returns a new list with `next` set. `now` stamps lastTransitionTime when the condition is new or
 * its status changed; otherwise the existing time is kept (unless `next` carries one).
 */
export function setCondition(conditions: readonly Condition[] | undefined, next: Condition, now: Date): Condition[] {
  const list = [...(conditions ?? [])];
  const i = list.findIndex((c) => c.type === next.type);
  if (i < 0) {
    list.push({ ...next, lastTransitionTime: next.lastTransitionTime ?? rfc3339(now) });
    return list;
  }
  const prev = list[i]!;
  const lastTransitionTime =
    prev.status !== next.status ? next.lastTransitionTime ?? rfc3339(now) : prev.lastTransitionTime ?? next.lastTransitionTime ?? rfc3339(now);
  list[i] = { ...next, lastTransitionTime };
  return list;
}

/** RFC 3339 with second precision, as metav1.Time serialises. */
export function rfc3339(d: Date): string {
  return isoUtc(d.getTime()).replace(/\.\d{3}Z$/, 'Z');
}

/** metav1.MicroTime: RFC 3339 with microseconds. */
export function rfc3339Micro(d: Date): string {
  return isoUtc(d.getTime()).replace(/\.(\d{3})Z$/, '.$1000Z');
}
