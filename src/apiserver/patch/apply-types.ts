// Type information that server-side apply needs: how each list merges (by keys, as a set, or
// atomically) and which maps are atomic. Built from a CRD schema (x-kubernetes-list-type,
// x-kubernetes-list-map-keys, x-kubernetes-map-type) or from the built-in merge-key table.

import type { JSONSchemaProps } from '../registry/schema/types.js';
import type { FieldMeta } from './merge-keys.js';

export type ListKind = { type: 'map'; keys: string[] } | { type: 'set' } | { type: 'atomic' };

export interface ApplyType {
  /** Named members of an object. */
  fields?: Record<string, ApplyType>;
  /** Members of a map not named in `fields`. */
  additional?: ApplyType;
  /** Set for arrays; lists default to atomic. */
  list?: ListKind;
  /** Element type of a list. */
  items?: ApplyType;
  /** An atomic object: replaced whole, owned as one field. */
  atomic?: boolean;
}

/** Member type of an object field, or undefined when unknown (then: granular maps, atomic lists). */
export function memberType(t: ApplyType | undefined, name: string): ApplyType | undefined {
  return t?.fields?.[name] ?? t?.additional;
}

export function listKindOf(t: ApplyType | undefined): ListKind {
  return t?.list ?? { type: 'atomic' };
}

/** Apply type information from a CRD version's openAPIV3Schema. */
export function applyTypeFromSchema(s: JSONSchemaProps | undefined): ApplyType | undefined {
  if (!s) return undefined;
  const out: ApplyType = {};
  if (s.properties) {
    out.fields = {};
    for (const [k, v] of Object.entries(s.properties)) {
      const sub = applyTypeFromSchema(v);
      if (sub) out.fields[k] = sub;
    }
  }
  if (typeof s.additionalProperties === 'object') {
    const sub = applyTypeFromSchema(s.additionalProperties);
    if (sub) out.additional = sub;
  }
  if (s['x-kubernetes-map-type'] === 'atomic') out.atomic = true;
  if (s.type === 'array' || s.items) {
    const lt = s['x-kubernetes-list-type'];
    if (lt === 'map') out.list = { type: 'map', keys: s['x-kubernetes-list-map-keys'] ?? [] };
    else if (lt === 'set') out.list = { type: 'set' };
    else out.list = { type: 'atomic' };
    const items = applyTypeFromSchema(s.items);
    if (items) out.items = items;
  }
  return out;
}

/** Apply type information from the built-in strategic-merge field table. */
export function applyTypeFromFieldMeta(m: FieldMeta | undefined): ApplyType | undefined {
  if (!m) return undefined;
  const out: ApplyType = {};
  if (m.fields) {
    out.fields = {};
    for (const [k, v] of Object.entries(m.fields)) {
      const sub = applyTypeFromFieldMeta(v);
      if (sub) out.fields[k] = sub;
    }
  }
  if (m.mergeKey) {
    out.list = { type: 'map', keys: [m.mergeKey] };
    const items = applyTypeFromFieldMeta(m.items);
    if (items) out.items = items;
  } else if (m.primitiveSet) {
    out.list = { type: 'set' };
  }
  return out;
}
