// The one way the agent and the hub write a status or a spec: a JSON merge patch from what the cache
// holds to what the controller computed, sent only when the two differ semantically, and carrying
// the cached uid and resourceVersion so that the server refuses it (409) when the object changed or
// was recreated since it was read.

import type { KubeObject } from '../api/meta.js';
import { mergePatchDiff, type JsonObject } from '../util/merge-patch.js';
import type { ResourceClient } from './types.js';

/** The optimistic-concurrency guard of a patch: the object's uid and resourceVersion, when known. */
export function preconditions(obj: KubeObject): { uid?: string; resourceVersion?: string } {
  return {
    ...(obj.metadata.uid !== undefined ? { uid: obj.metadata.uid } : {}),
    ...(obj.metadata.resourceVersion !== undefined ? { resourceVersion: obj.metadata.resourceVersion } : {}),
  };
}

/**
 * The guarded merge patch that sets `field` of `old` to `value`, or undefined when nothing differs.
 * Members are diffed one by one from an empty map, so an emptied status clears its members rather
 * than sending `status: null`.
 */
export function guardedPatch(old: KubeObject, field: 'status' | 'spec', value: unknown): JsonObject | undefined {
  const diff = mergePatchDiff(old[field] ?? {}, value ?? {});
  if (diff === undefined) return undefined;
  return { metadata: preconditions(old), [field]: diff };
}

/** Patches the status subresource from `old.status` to `status`; false when nothing was sent. */
export async function patchStatus<T extends KubeObject>(rc: ResourceClient<T>, old: T, status: unknown, signal?: AbortSignal): Promise<boolean> {
  const patch = guardedPatch(old, 'status', status);
  if (patch === undefined) return false;
  await rc.patch(old.metadata.name ?? '', 'merge', patch, { subresource: 'status', ...(signal ? { signal } : {}) });
  return true;
}

/** Patches the main resource from `old.spec` to `spec`; false when nothing was sent. */
export async function patchSpec<T extends KubeObject>(rc: ResourceClient<T>, old: T, spec: unknown, signal?: AbortSignal): Promise<boolean> {
  const patch = guardedPatch(old, 'spec', spec);
  if (patch === undefined) return false;
  await rc.patch(old.metadata.name ?? '', 'merge', patch, signal ? { signal } : {});
  return true;
}
