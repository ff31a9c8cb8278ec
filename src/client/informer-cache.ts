// The informer's cache: plain data (key → object) with pure helpers for watch events and relists,
// so "objects missing from a relist become deletes" is tested without a server.

import type { KubeObject } from '../api/meta.js';
import { keyOf } from './keys.js';

export type CacheDelta<T extends KubeObject> =
  | { type: 'add'; obj: T }
  | { type: 'update'; oldObj: T; obj: T }
  | { type: 'delete'; obj: T };

export type Cache<T extends KubeObject> = Map<string, T>;

/** Inserts or replaces; no delta when the stored copy has the same resourceVersion (opaque, equality only). */
export function upsert<T extends KubeObject>(cache: Cache<T>, obj: T): CacheDelta<T> | undefined {
  const key = keyOf(obj);
  const old = cache.get(key);
  cache.set(key, obj);
  if (old === undefined) return { type: 'add', obj };
  if (old.metadata.resourceVersion !== undefined && old.metadata.resourceVersion === obj.metadata.resourceVersion) return undefined;
  return { type: 'update', oldObj: old, obj };
}

/** Removes; the delta carries the event's (final) object, or the cached one when the event's is empty. */
export function remove<T extends KubeObject>(cache: Cache<T>, obj: T): CacheDelta<T> | undefined {
  const key = keyOf(obj);
  const old = cache.get(key);
  if (old === undefined) return undefined;
  cache.delete(key);
  return { type: 'delete', obj: obj.metadata.name ? obj : old };
}

/** Replaces the whole content with a fresh list: adds, updates (changed RV) and deletes for vanished keys. */
export function replaceAll<T extends KubeObject>(cache: Cache<T>, items: readonly T[]): CacheDelta<T>[] {
  const deltas: CacheDelta<T>[] = [];
  const seen = new Set<string>();
  for (const obj of items) {
    seen.add(keyOf(obj));
    const d = upsert(cache, obj);
    if (d) deltas.push(d);
  }
  for (const [key, obj] of cache) {
    if (!seen.has(key)) {
      cache.delete(key);
      deltas.push({ type: 'delete', obj });
    }
  }
  return deltas;
}
