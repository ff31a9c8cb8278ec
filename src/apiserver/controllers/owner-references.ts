// What the garbage collector does with one object, decided from its owner references and what it
// found about each owner, as kube-controller-manager's garbage collector decides it. Pure: the
// controller looks the owners up and carries the decision out.

import type { KubeObject, OwnerReference } from '../../api/meta.js';
import { FOREGROUND_FINALIZER, ORPHAN_FINALIZER } from '../registry/deletion-finalizers.js';

/** One entry of `metadata.ownerReferences`. */
export type OwnerRef = OwnerReference;

/** What looking an owner up found. */
export type OwnerState =
  /** No object of that kind and name in the dependent's namespace, or one with another uid. */
  | { kind: 'absent' }
  /** The owner exists; `deletingDependents` when it waits in a Foreground deletion. */
  | { kind: 'live'; deletingDependents: boolean }
  /** apiVersion/kind served by nobody (yet): a CRD may come, so look again later. */
  | { kind: 'unresolved' }
  /** A cluster-scoped dependent naming a namespaced kind: there is nowhere to look, ever. */
  | { kind: 'invalidScope' };

export interface Classification {
  /** Live owners not being deleted in the foreground: the dependent stays. */
  solid: OwnerRef[];
  dangling: OwnerRef[];
  /** Owners deleting in the foreground, waiting for their dependents. */
  waiting: OwnerRef[];
  /** The first lookup that could not be answered; it stops the classification. */
  error?: 'unresolved' | 'invalidScope';
}

type DeletionPolicy = 'Background' | 'Foreground' | 'Orphan';

export type DependentAction =
  | { kind: 'none' }
  /** Try again later (an owner kind not served yet). */
  | { kind: 'retry' }
  /** Keep the object; drop the references to these owner uids. */
  | { kind: 'removeRefs'; uids: string[] }
  /** Delete it; `unblockFirst`: clear its blockOwnerDeletion flags first (breaks a Foreground cycle). */
  | { kind: 'delete'; policy: DeletionPolicy; unblockFirst: boolean };

function isOwnerRef(v: unknown): v is OwnerRef {
  if (typeof v !== 'object' || v === null) return false;
  const r = v as Record<string, unknown>;
  return typeof r.apiVersion === 'string' && typeof r.kind === 'string' && typeof r.name === 'string' && typeof r.uid === 'string' && r.uid !== '';
}

/** The well-formed owner references of an object (the server validated them on write). */
export function ownerRefsOf(obj: KubeObject): OwnerRef[] {
  const refs: unknown = obj.metadata.ownerReferences;
  return Array.isArray(refs) ? refs.filter(isOwnerRef) : [];
}

/** Same references in the same order, blockOwnerDeletion included. */
export function sameOwnerRefs(a: OwnerRef[], b: OwnerRef[]): boolean {
  return a.length === b.length && a.every((r, i) => {
    const o = b[i];
    return o !== undefined && r.uid === o.uid && r.name === o.name && r.kind === o.kind && r.apiVersion === o.apiVersion
      && Boolean(r.blockOwnerDeletion) === Boolean(o.blockOwnerDeletion) && Boolean(r.controller) === Boolean(o.controller);
  });
}

export function classifyOwners(refs: OwnerRef[], stateOf: (ref: OwnerRef) => OwnerState): Classification {
  const out: Classification = { solid: [], dangling: [], waiting: [] };
  for (const ref of refs) {
    const s = stateOf(ref);
    if (s.kind === 'unresolved' || s.kind === 'invalidScope') return { solid: [], dangling: [], waiting: [], error: s.kind };
    if (s.kind === 'absent') out.dangling.push(ref);
    else if (s.deletingDependents) out.waiting.push(ref);
    else out.solid.push(ref);
  }
  return out;
}

export interface DependentFacts {
  finalizers: string[];
  /** Other objects name this one as their owner. */
  hasDependents: boolean;
  /** One of those is itself deleting in the foreground. */
  aDependentIsDeletingDependents: boolean;
}

/** The decision for an object that is not being deleted and has owner references. */
export function decideForDependent(c: Classification, facts: DependentFacts): DependentAction {
  if (c.error === 'invalidScope') return { kind: 'none' };
  if (c.error === 'unresolved') return { kind: 'retry' };
  if (c.solid.length > 0) {
    // A live owner keeps it; references to gone owners, and to owners waiting for it, are dropped
    // so that those owners do not wait forever.
    const uids = [...c.dangling, ...c.waiting].map((r) => r.uid);
    return uids.length === 0 ? { kind: 'none' } : { kind: 'removeRefs', uids };
  }
  if (c.waiting.length > 0 && facts.hasDependents) {
    // The Foreground deletion goes on down the tree.
    return { kind: 'delete', policy: 'Foreground', unblockFirst: facts.aDependentIsDeletingDependents };
  }
  // No live owner: deleted, with the policy its own finalizers already ask for.
  const policy: DeletionPolicy = facts.finalizers.includes(ORPHAN_FINALIZER) ? 'Orphan'
    : facts.finalizers.includes(FOREGROUND_FINALIZER) ? 'Foreground' : 'Background';
  return { kind: 'delete', policy, unblockFirst: false };
}

/** The references left once those to `uids` are dropped. */
export function withoutOwners(refs: OwnerRef[], uids: Iterable<string>): OwnerRef[] {
  const drop = new Set(uids);
  return refs.filter((r) => !drop.has(r.uid));
}

/** The references with every blockOwnerDeletion cleared. */
export function unblockedRefs(refs: OwnerRef[]): OwnerRef[] {
  return refs.map((r) => (r.blockOwnerDeletion ? { ...r, blockOwnerDeletion: false } : r));
}

/** Whether `obj` blocks the Foreground deletion of the owner with this uid. */
export function blocksOwner(obj: KubeObject, ownerUid: string): boolean {
  return ownerRefsOf(obj).some((r) => r.uid === ownerUid && r.blockOwnerDeletion === true);
}

/** Being deleted, with the finalizer: the garbage collector has work to do on it. */
export function hasDeletionFinalizer(obj: KubeObject, finalizer: string): boolean {
  return Boolean(obj.metadata.deletionTimestamp) && (obj.metadata.finalizers ?? []).includes(finalizer);
}
