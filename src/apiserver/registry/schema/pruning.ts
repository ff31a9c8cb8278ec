// Structural pruning, as apiextensions-apiserver prunes custom resources: at every object level,
// fields not declared in `properties`
// (and not covered by `additionalProperties`) are removed, unless
// `x-kubernetes-preserve-unknown-fields`. At the root `apiVersion`, `kind` and `metadata` are always
// kept and `metadata` is reduced to ObjectMeta fields; embedded resources keep their own
// `apiVersion`, `kind`, `metadata`. Mutates `value` and returns the pruned paths.

import { isPlainObject } from '../../../util/merge-patch.js';
import { childPath } from './structural-schema.js';
import type { JSONSchemaProps } from './types.js';

const OBJECT_META_FIELDS = new Set([
  'name', 'generateName', 'namespace', 'selfLink', 'uid', 'resourceVersion', 'generation', 'creationTimestamp',
  'deletionTimestamp', 'deletionGracePeriodSeconds', 'labels', 'annotations', 'ownerReferences', 'finalizers', 'managedFields',
]);
const RESOURCE_FIELDS = ['apiVersion', 'kind', 'metadata'];

/** Prunes a whole custom resource; returns the removed field paths (`spec.foo`, `metadata.bar`). */
export function pruneObject(schema: JSONSchemaProps, obj: Record<string, unknown>): string[] {
  const pruned: string[] = [];
  pruneNode(schema, obj, '', pruned, true);
  return pruned;
}

function pruneMetadata(meta: unknown, path: string, pruned: string[]): void {
  if (!isPlainObject(meta)) return;
  for (const k of Object.keys(meta)) {
    if (!OBJECT_META_FIELDS.has(k)) {
      delete meta[k];
      pruned.push(childPath(path, k));
    }
  }
}

function pruneNode(s: JSONSchemaProps, v: unknown, path: string, pruned: string[], isResource: boolean): void {
  if (Array.isArray(v)) {
    if (s.items) v.forEach((item, i) => pruneNode(s.items as JSONSchemaProps, item, `${path}[${i}]`, pruned, false));
    return;
  }
  if (!isPlainObject(v)) return;
  const resource = isResource || s['x-kubernetes-embedded-resource'] === true;
  if (resource) pruneMetadata(v['metadata'], childPath(path, 'metadata'), pruned);
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  const additional = typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
  for (const k of Object.keys(v)) {
    const p = childPath(path, k);
    if (resource && RESOURCE_FIELDS.includes(k)) continue;
    const prop = s.properties?.[k] ?? additional;
    if (prop) pruneNode(prop, v[k], p, pruned, false);
    else if (!preserve && s.additionalProperties !== true) {
      delete v[k];
      pruned.push(p);
    }
  }
}
