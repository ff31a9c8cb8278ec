// Wire form (the requested version) ↔ storage form (the storage version) of objects.

import { apiVersionOf, type KubeObject } from '../../api/meta.js';
import type { ServedResource } from './types.js';

/** Stored object → what the client asked for (`kind`/`apiVersion` always set). */
export function toWire(served: ServedResource, version: string, obj: KubeObject): KubeObject {
  if (served.toVersion) return served.toVersion(obj, version);
  return { ...obj, apiVersion: apiVersionOf({ group: served.def.group, version }), kind: served.def.kind };
}

/** Incoming object in `version` → storage form. */
export function toStorage(served: ServedResource, version: string, obj: KubeObject): KubeObject {
  if (served.fromVersion) return served.fromVersion(obj, version);
  return { ...obj, apiVersion: apiVersionOf({ group: served.def.group, version: served.def.storageVersion }), kind: served.def.kind };
}

export function keyOf(served: ServedResource, namespace: string, name: string): string {
  return `/${served.storageGroup || 'core'}/${served.storageResource}/${served.def.namespaced ? namespace : ''}/${name}`;
}

export function prefixOf(served: ServedResource, namespace: string): string {
  const base = `/${served.storageGroup || 'core'}/${served.storageResource}/`;
  return served.def.namespaced && namespace ? `${base}${namespace}/` : base;
}

/**
 * The narrowest key prefix a list or watch in `namespace` can match when its selectors pin the
 * name or the namespace: one key for a name (where the namespace is known), one namespace for a
 * cluster-wide read of a namespaced resource. An agent reading its own ManagedCluster by name then
 * costs one row, not a scan of every cluster. A path namespace wins over a selector's (they can
 * only disagree on a read that matches nothing, which the filter still decides).
 */
export function selectionPrefix(served: ServedResource, namespace: string, pinned: { name?: string; namespace?: string }): string {
  const ns = served.def.namespaced ? namespace || (pinned.namespace ?? '') : '';
  // An empty name would make the key a prefix of its whole namespace: no narrowing then.
  if (pinned.name && (ns || !served.def.namespaced) && !pinned.name.includes('/')) return keyOf(served, ns, pinned.name);
  return prefixOf(served, ns);
}
