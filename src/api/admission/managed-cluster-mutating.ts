// ManagedCluster mutating admission, as OCM's mutating webhook: the server owns taints' `timeAdded`,
// and with the DefaultClusterSet gate a cluster always belongs to a cluster set (`default` unless
// labelled otherwise). Pure functions over plain objects; the embedded API server and the webhook
// server both run mutateManagedCluster.

import type { KubeObject } from '../meta.js';
import { admissionErrors } from './admission-error.js';

export const CLUSTER_SET_LABEL = 'cluster.open-cluster-management.io/clusterset';
const DEFAULT_CLUSTER_SET = 'default';
const DEFAULT_LEASE_DURATION_SECONDS = 60;

interface Taint {
  key?: string;
  value?: string;
  effect?: string;
  timeAdded?: string | null;
}

function taintsOf(obj: KubeObject | undefined): Taint[] {
  const spec = obj?.spec as { taints?: unknown } | undefined;
  return Array.isArray(spec?.taints) ? (spec.taints as Taint[]) : [];
}

const isZero = (t: string | null | undefined): boolean => t === undefined || t === null || t === '';

function sameTime(a: string | null | undefined, b: string | null | undefined): boolean {
  if (isZero(a) || isZero(b)) return isZero(a) && isZero(b);
  const ta = Date.parse(a as string);
  const tb = Date.parse(b as string);
  return Number.isNaN(ta) || Number.isNaN(tb) ? a === b : Math.floor(ta / 1000) === Math.floor(tb / 1000);
}

/**
 * Sets or checks `timeAdded` of every taint. `old` is undefined on CREATE.
 * Throws 400 `It is not allowed to set TimeAdded of Taint "<k1>,<k2>".` for client-set times.
 */
export function mutateTaints(obj: KubeObject, old: KubeObject | undefined, nowRfc3339: string): void {
  const taints = taintsOf(obj);
  if (taints.length === 0) return;
  const oldTaints = taintsOf(old);
  const invalid: string[] = [];
  for (const t of taints) {
    if (typeof t !== 'object' || t === null) continue;
    if (!old) {
      t.timeAdded = nowRfc3339;
      continue;
    }
    const prev = oldTaints.find((o) => typeof o === 'object' && o !== null && o.key === t.key);
    if (prev && (prev.value ?? '') === (t.value ?? '') && prev.effect === t.effect) {
      if (!sameTime(t.timeAdded, prev.timeAdded)) invalid.push(t.key ?? '');
      continue;
    }
    if (!isZero(t.timeAdded)) {
      invalid.push(t.key ?? '');
      continue;
    }
    t.timeAdded = nowRfc3339;
  }
  if (invalid.length > 0) throw admissionErrors.badRequest(`It is not allowed to set TimeAdded of Taint "${invalid.join(',')}".`);
}

/** Adds `cluster.open-cluster-management.io/clusterset=default` when missing or empty. */
export function defaultClusterSetLabel(obj: KubeObject): void {
  const labels = obj.metadata.labels ?? {};
  if (!labels[CLUSTER_SET_LABEL]) {
    obj.metadata.labels = { ...labels, [CLUSTER_SET_LABEL]: DEFAULT_CLUSTER_SET };
  }
}

/** `spec.leaseDurationSeconds` defaults to 60 (the CRD default) when absent. */
function defaultLeaseDuration(obj: KubeObject): void {
  const spec = typeof obj.spec === 'object' && obj.spec !== null ? (obj.spec as Record<string, unknown>) : {};
  if (spec.leaseDurationSeconds === undefined || spec.leaseDurationSeconds === null) {
    obj.spec = { ...spec, leaseDurationSeconds: DEFAULT_LEASE_DURATION_SECONDS };
  }
}

export interface MutateClusterOptions {
  /** RFC 3339 time given to new or changed taints. */
  nowRfc3339: string;
  /** The DefaultClusterSet feature gate. */
  defaultClusterSet: boolean;
}

/** Every ManagedCluster mutation of a CREATE (`old` undefined) or UPDATE, in place; throws 400 on client-set taint times. */
export function mutateManagedCluster(obj: KubeObject, old: KubeObject | undefined, opts: MutateClusterOptions): void {
  mutateTaints(obj, old, opts.nowRfc3339);
  if (opts.defaultClusterSet) defaultClusterSetLabel(obj);
  defaultLeaseDuration(obj);
}
