// Queue keys: `namespace/name` for namespaced objects, `name` for cluster-scoped ones.

import type { KubeObject } from '../api/meta.js';

export function keyOf(obj: KubeObject | { metadata: { name?: string | undefined; namespace?: string | undefined } }): string {
  const name = obj.metadata.name ?? '';
  const ns = obj.metadata.namespace;
  return ns ? `${ns}/${name}` : name;
}

/** Inverse of keyOf; namespace is undefined for cluster-scoped keys. */
export function splitKey(key: string): { namespace: string | undefined; name: string } {
  const i = key.indexOf('/');
  if (i < 0) return { namespace: undefined, name: key };
  return { namespace: key.slice(0, i), name: key.slice(i + 1) };
}
