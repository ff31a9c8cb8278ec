// Taint decision of taintController from the Available condition. Pure.

import type { Taint } from '../../api/cluster.js';
import { findCondition } from '../../api/conditions.js';
import { conditionTypes, taints as taintKeys } from '../../api/constants.js';
import type { Condition } from '../../api/meta.js';

const UNAVAILABLE_TAINT: Readonly<Taint> = Object.freeze({ key: taintKeys.unavailable, value: '', effect: 'NoSelect' });
const UNREACHABLE_TAINT: Readonly<Taint> = Object.freeze({ key: taintKeys.unreachable, value: '', effect: 'NoSelect' });

/** Same key, value and effect (timeAdded ignored; absent value equals ''). */
function sameTaint(a: Taint, b: Taint): boolean {
  return a.key === b.key && (a.value ?? '') === (b.value ?? '') && a.effect === b.effect;
}

/** The taint list the cluster should have; returns the input list (same reference) when unchanged. */
export function desiredTaints(current: readonly Taint[] | undefined, conditions: readonly Condition[] | undefined): readonly Taint[] {
  const status = findCondition(conditions, conditionTypes.available)?.status;
  const remove: Taint[] = [];
  const add: Taint[] = [];
  if (status === 'True') remove.push(UNAVAILABLE_TAINT, UNREACHABLE_TAINT);
  else if (status === 'False') {
    remove.push(UNREACHABLE_TAINT);
    add.push(UNAVAILABLE_TAINT);
  } else {
    remove.push(UNAVAILABLE_TAINT);
    add.push(UNREACHABLE_TAINT);
  }
  const list = current ?? [];
  let next = list.filter((t) => !remove.some((r) => sameTaint(t, r)));
  for (const a of add) if (!next.some((t) => sameTaint(t, a))) next = [...next, { key: a.key, value: a.value ?? '', effect: a.effect }];
  const changed = next.length !== list.length || next.some((t, i) => t !== list[i]);
  return changed ? next : list;
}

/** The taint list to write, or undefined when the cluster's taints are right already. */
export function taintsToWrite(current: readonly Taint[] | undefined, conditions: readonly Condition[] | undefined): readonly Taint[] | undefined {
  const next = desiredTaints(current, conditions);
  return next === current || (current === undefined && next.length === 0) ? undefined : next;
}
