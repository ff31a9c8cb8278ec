// Which garbage-collection finalizers a DELETE leaves on an object, as kube-apiserver's generic
// store and namespace registry decide it from the propagation policy (or the deprecated
// orphanDependents), the finalizers already present and the resource's default policy. Pure.

/** The garbage collector removes the owner's references from its dependents, then this finalizer. */
export const ORPHAN_FINALIZER = 'orphan';
/** The garbage collector deletes the dependents (waiting for the blocking ones), then this finalizer. */
export const FOREGROUND_FINALIZER = 'foregroundDeletion';

/**
 * What a DELETE without a policy does to dependents: `Unsupported` resources (Events) never get a
 * garbage-collection finalizer, whatever the request asks.
 */
export type DefaultGcPolicy = 'DeleteDependents' | 'OrphanDependents' | 'Unsupported';

export interface PropagationRequest {
  propagationPolicy?: string;
  /** Deprecated form: true = Orphan; false = no orphaning (Background; Foreground for namespaces). */
  orphanDependents?: boolean;
}

/** Every built-in we serve deletes dependents by default except Events (no garbage collection). */
export function defaultGcPolicy(storageGroup: string, storageResource: string): DefaultGcPolicy {
  return storageGroup === '' && storageResource === 'events' ? 'Unsupported' : 'DeleteDependents';
}

function shouldOrphan(policy: DefaultGcPolicy, req: PropagationRequest, finalizers: string[]): boolean {
  if (policy === 'Unsupported') return false;
  if (req.orphanDependents !== undefined) return req.orphanDependents;
  if (req.propagationPolicy === 'Orphan') return true;
  if (req.propagationPolicy === 'Background' || req.propagationPolicy === 'Foreground') return false;
  // Without an explicit request the finalizer already there wins (the first one found).
  for (const f of finalizers) {
    if (f === ORPHAN_FINALIZER) return true;
    if (f === FOREGROUND_FINALIZER) return false;
  }
  return policy === 'OrphanDependents';
}

function shouldDeleteDependents(policy: DefaultGcPolicy, req: PropagationRequest, finalizers: string[]): boolean {
  if (policy === 'Unsupported') return false;
  if (req.orphanDependents !== undefined) return false;
  if (req.propagationPolicy === 'Foreground') return true;
  if (req.propagationPolicy === 'Background' || req.propagationPolicy === 'Orphan') return false;
  for (const f of finalizers) {
    if (f === FOREGROUND_FINALIZER) return true;
    if (f === ORPHAN_FINALIZER) return false;
  }
  return false;
}

const isGcFinalizer = (f: string): boolean => f === ORPHAN_FINALIZER || f === FOREGROUND_FINALIZER;

/** The finalizers after a DELETE of an ordinary object: others kept in order, then orphan/foregroundDeletion. */
export function deletionFinalizers(policy: DefaultGcPolicy, req: PropagationRequest, finalizers: string[]): string[] {
  const out = finalizers.filter((f) => !isGcFinalizer(f));
  if (shouldOrphan(policy, req, finalizers)) out.push(ORPHAN_FINALIZER);
  if (shouldDeleteDependents(policy, req, finalizers)) out.push(FOREGROUND_FINALIZER);
  return sameSet(out, finalizers) ? finalizers : out;
}

/**
 * The finalizers after the first DELETE of a namespace. Its registry has its own rules: an explicit
 * `orphanDependents: false` means Foreground there, and without a request the finalizers stay.
 */
export function namespaceDeletionFinalizers(req: PropagationRequest, finalizers: string[]): string[] {
  const has = (f: string): boolean => finalizers.includes(f);
  const orphan = req.orphanDependents !== undefined ? req.orphanDependents
    : req.propagationPolicy !== undefined ? req.propagationPolicy === 'Orphan' : has(ORPHAN_FINALIZER);
  const foreground = req.orphanDependents !== undefined ? !req.orphanDependents
    : req.propagationPolicy !== undefined ? req.propagationPolicy === 'Foreground' : has(FOREGROUND_FINALIZER);
  if (orphan === has(ORPHAN_FINALIZER) && foreground === has(FOREGROUND_FINALIZER)) return finalizers;
  const out = finalizers.filter((f) => !isGcFinalizer(f));
  if (orphan) out.push(ORPHAN_FINALIZER);
  if (foreground) out.push(FOREGROUND_FINALIZER);
  return out;
}

function sameSet(a: string[], b: string[]): boolean {
  const sa = new Set(a);
  const sb = new Set(b);
  return sa.size === sb.size && [...sa].every((x) => sb.has(x));
}
