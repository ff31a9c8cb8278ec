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
