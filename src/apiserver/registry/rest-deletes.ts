// Delete, with finalizers and graceful deletion, and the protections of the system namespaces. The
// propagation policy becomes the garbage collector's `orphan` or `foregroundDeletion` finalizer; the
// garbage collector (controllers/garbage-collector.ts) then handles the dependents.

import { rfc3339 } from '../../api/conditions.js';
import type { KubeObject, Status } from '../../api/meta.js';
import { errors } from '../http/errors.js';
import { defaultGcPolicy, deletionFinalizers, namespaceDeletionFinalizers } from './deletion-finalizers.js';
import { qr, runAdmission, translateStoreError, type RegistryContext, type RequestScope } from './rest-context.js';
import { loadCurrent } from './rest-writes.js';
import { keyOf } from './versions.js';

export interface DeleteOptions {
  preconditions?: { uid?: string; resourceVersion?: string };
  propagationPolicy?: string;
  /** Deprecated: true = propagationPolicy Orphan. */
  orphanDependents?: boolean;
  gracePeriodSeconds?: number;
}

export type DeleteResult =
  | { kind: 'removed'; object: KubeObject; status: Status }
  | { kind: 'pending'; object: KubeObject };

const UNDELETABLE_NAMESPACES = new Set(['default', 'kube-system', 'kube-public']);

function successStatus(scope: RequestScope, obj: KubeObject): Status {
  const { group, resource } = qr(scope.served);
  return {
    apiVersion: 'v1', kind: 'Status', metadata: {}, status: 'Success',
    details: { name: obj.metadata.name, ...(group ? { group } : {}), kind: resource, uid: obj.metadata.uid },
    code: 200,
  } as Status;
}

function hasSpecFinalizers(obj: KubeObject): boolean {
  const specFin = (obj.spec as { finalizers?: unknown } | undefined)?.finalizers;
  return obj.kind === 'Namespace' && Array.isArray(specFin) && specFin.length > 0;
}

/**
 * The finalizers the object keeps after this DELETE. A namespace's first DELETE follows the namespace
 * registry's rules, and a terminating namespace still waiting for its content keeps its finalizers;
 * everything else (a repeated DELETE too, so Orphan or Background can release a Foreground deletion)
 * follows the generic store's rules.
 */
function finalizersAfterDelete(scope: RequestScope, obj: KubeObject, finalizers: string[], opts: DeleteOptions): string[] {
  if (obj.kind === 'Namespace' && !scope.served.custom) {
    if (!obj.metadata.deletionTimestamp) return namespaceDeletionFinalizers(opts, finalizers);
    if (hasSpecFinalizers(obj)) return finalizers;
  }
  return deletionFinalizers(defaultGcPolicy(scope.served.storageGroup, scope.served.storageResource), opts, finalizers);
}

export function deleteObject(ctx: RegistryContext, scope: RequestScope, name: string, opts: DeleteOptions): DeleteResult {
  const { served } = scope;
  const current = loadCurrent(ctx, scope, name);
  const obj = current.object;
  const pre = opts.preconditions;
  // kube-apiserver names the kind, not the resource, in these two refusals.
  const byKind = { group: served.def.group, resource: served.def.kind };
  if (pre?.uid && pre.uid !== obj.metadata.uid) {
    throw errors.conflict(byKind, name, `the UID in the precondition (${pre.uid}) does not match the UID in record (${obj.metadata.uid ?? ''}). The object might have been deleted and then recreated`);
  }
  if (pre?.resourceVersion && pre.resourceVersion !== obj.metadata.resourceVersion) {
    throw errors.conflict(byKind, name, `the ResourceVersion in the precondition (${pre.resourceVersion}) does not match the ResourceVersion in record (${obj.metadata.resourceVersion ?? ''}). The object might have been modified`);
  }
  if (!served.custom && served.def.group === '' && served.def.resource === 'namespaces' && UNDELETABLE_NAMESPACES.has(name)) {
    throw errors.forbidden(qr(served), name, 'this namespace may not be deleted');
  }
  runAdmission(ctx, scope, 'DELETE', '', name, undefined, obj, 'validate');
  const key = keyOf(served, scope.namespace, name);
  const before = obj.metadata.finalizers ?? [];
  const finalizers = finalizersAfterDelete(scope, obj, before, opts);
  const changed = finalizers !== before;
  try {
    if (finalizers.length > 0 || hasSpecFinalizers(obj)) {
      if (obj.metadata.deletionTimestamp && !changed) return { kind: 'pending', object: obj };
      const next = structuredClone(obj);
      if (finalizers.length > 0) next.metadata.finalizers = finalizers;
      else delete next.metadata.finalizers;
      if (!next.metadata.deletionTimestamp) {
        next.metadata.deletionTimestamp = rfc3339(new Date(ctx.now()));
        if ((next.metadata.generation ?? 0) > 0) next.metadata.generation = (next.metadata.generation ?? 0) + 1;
      }
      next.metadata.deletionGracePeriodSeconds = 0;
      if (next.kind === 'Namespace') next.status = { ...((next.status as object | undefined) ?? {}), phase: 'Terminating' };
      if (scope.dryRun) return { kind: 'pending', object: next };
      return { kind: 'pending', object: ctx.store.update(key, next, current.revision).object };
    }
    if (scope.dryRun) return { kind: 'removed', object: obj, status: successStatus(scope, obj) };
    const removed = ctx.store.delete(key, current.revision).object;
    return { kind: 'removed', object: removed, status: successStatus(scope, removed) };
  } catch (err) {
    throw translateStoreError(err, served, name);
  }
}
