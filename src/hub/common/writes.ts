// Writes in the hub's style (hub-controller.md §2.4): merge patches carrying uid + resourceVersion,
// skipped when nothing changed; finalizer add/remove.

import type { KubeObject } from '../../api/meta.js';
import { isNotFound } from '../../client/errors.js';
import type { ResourceClient } from '../../client/types.js';
import { mergePatchDiff, semanticEqual } from './merge-patch.js';

function guard(obj: KubeObject): { uid?: string; resourceVersion?: string } {
  return {
    ...(obj.metadata.uid !== undefined ? { uid: obj.metadata.uid } : {}),
    ...(obj.metadata.resourceVersion !== undefined ? { resourceVersion: obj.metadata.resourceVersion } : {}),
  };
}

/** Patches `status` (status subresource) from old to new; returns false when nothing was sent. */
export async function patchStatus<T extends KubeObject>(rc: ResourceClient<T>, old: T, newStatus: unknown, signal?: AbortSignal): Promise<boolean> {
  if (semanticEqual(old['status'], newStatus)) return false;
  const diff = mergePatchDiff(old['status'] ?? {}, newStatus ?? {});
  if (diff === undefined) return false;
  await rc.patch(old.metadata.name ?? '', 'merge', { metadata: guard(old), status: diff }, { subresource: 'status', ...(signal ? { signal } : {}) });
  return true;
}

/** Patches `spec` (main resource) from old to new; returns false when nothing was sent. */
export async function patchSpec<T extends KubeObject>(rc: ResourceClient<T>, old: T, newSpec: unknown, signal?: AbortSignal): Promise<boolean> {
  if (semanticEqual(old['spec'], newSpec)) return false;
  const diff = mergePatchDiff(old['spec'] ?? {}, newSpec ?? {});
  if (diff === undefined) return false;
  await rc.patch(old.metadata.name ?? '', 'merge', { metadata: guard(old), spec: diff }, signal ? { signal } : {});
  return true;
}

/** Adds a finalizer if missing; returns the patched object, or undefined when already present. */
export async function addFinalizer<T extends KubeObject>(rc: ResourceClient<T>, obj: T, finalizer: string, signal?: AbortSignal): Promise<T | undefined> {
  const existing = obj.metadata.finalizers ?? [];
  if (existing.includes(finalizer)) return undefined;
  return rc.patch(obj.metadata.name ?? '', 'merge', { metadata: { ...guard(obj), finalizers: [...existing, finalizer] } }, signal ? { signal } : {});
}

/** Removes a finalizer if present (NotFound is success); returns true when a patch was sent. */
export async function removeFinalizer<T extends KubeObject>(rc: ResourceClient<T>, obj: T, finalizer: string, signal?: AbortSignal): Promise<boolean> {
  const existing = obj.metadata.finalizers ?? [];
  if (!existing.includes(finalizer)) return false;
  try {
    await rc.patch(obj.metadata.name ?? '', 'merge', { metadata: { ...guard(obj), finalizers: existing.filter((f) => f !== finalizer) } }, signal ? { signal } : {});
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  return true;
}

/** Deletes by name; NotFound is success. */
export async function deleteIgnoreNotFound(rc: ResourceClient, name: string, signal?: AbortSignal): Promise<void> {
  try {
    await rc.delete(name, signal ? { signal } : {});
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}
