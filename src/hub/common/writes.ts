// Finalizer writes in the hub's style: merge patches guarded by uid and resourceVersion, skipped
// when there is nothing to change.

import type { KubeObject } from '../../api/meta.js';
import { isConflict, isNotFound } from '../../client/errors.js';
import { preconditions } from '../../client/patch-writer.js';
import type { KubeClient, ResourceClient, ResourceType } from '../../client/types.js';

/**
 * Attempts of writeNewest: each retry follows another controller's successful write, and four of
 * them may write a cluster at once as it joins (acceptance, finalizers, taints).
 */
const NEWEST_ATTEMPTS = 5;

/**
 * Runs `write` against the newest copy of `obj` the hub's client has (its own last write of the
 * object when that replaced `obj`), and again when it fails with a conflict because another of
 * the hub's controllers wrote the object meanwhile: the client then holds the copy that write
 * answered. Several controllers react to the same change of a cluster at once; without this all
 * but one conflict, and each retries after a backoff from a cache that may still be behind.
 * Conflicts with other writers (an agent) are thrown as before.
 */
export async function writeNewest<T extends KubeObject, R>(client: KubeClient, type: ResourceType, obj: T, write: (base: T) => Promise<R>): Promise<R> {
  const newest = (o: T): T => client.newest?.(type, o) ?? o;
  let base = newest(obj);
  for (let attempt = 1; ; attempt++) {
    try {
      return await write(base);
    } catch (err) {
      const next = isConflict(err) && attempt < NEWEST_ATTEMPTS ? newest(base) : base;
      if (next === base) throw err;
      base = next;
    }
  }
}

/**
 * Adds a finalizer if missing; returns the patched object, or undefined when already present or
 * when the object is being deleted (no new finalizer is accepted then).
 */
export async function addFinalizer<T extends KubeObject>(rc: ResourceClient<T>, obj: T, finalizer: string, signal?: AbortSignal): Promise<T | undefined> {
  const existing = obj.metadata.finalizers ?? [];
  if (existing.includes(finalizer) || obj.metadata.deletionTimestamp) return undefined;
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
