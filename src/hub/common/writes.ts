// Finalizer writes in the hub's style: merge patches guarded by uid and resourceVersion, skipped
// when there is nothing to change.

import type { KubeObject } from '../../api/meta.js';
import { isNotFound } from '../../client/errors.js';
import { preconditions } from '../../client/patch-writer.js';
import type { ResourceClient } from '../../client/types.js';

/** Adds a finalizer if missing; returns the patched object, or undefined when already present. */
export async function addFinalizer<T extends KubeObject>(rc: ResourceClient<T>, obj: T, finalizer: string, signal?: AbortSignal): Promise<T | undefined> {
  const existing = obj.metadata.finalizers ?? [];
  if (existing.includes(finalizer)) return undefined;
  return rc.patch(obj.metadata.name ?? '', 'merge', { metadata: { ...preconditions(obj), finalizers: [...existing, finalizer] } }, signal ? { signal } : {});
}

/** Removes a finalizer if present (NotFound is success); returns true when a patch was sent. */
export async function removeFinalizer<T extends KubeObject>(rc: ResourceClient<T>, obj: T, finalizer: string, signal?: AbortSignal): Promise<boolean> {
  const existing = obj.metadata.finalizers ?? [];
  if (!existing.includes(finalizer)) return false;
  try {
    await rc.patch(obj.metadata.name ?? '', 'merge', { metadata: { ...preconditions(obj), finalizers: existing.filter((f) => f !== finalizer) } }, signal ? { signal } : {});
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  return true;
}
