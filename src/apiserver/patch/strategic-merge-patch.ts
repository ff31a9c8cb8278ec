// Strategic merge patch for built-in kinds: JSON merge patch plus keyed list merging,
// set-like primitive lists and the `$patch`, `$retainKeys`, `$deleteFromPrimitiveList/<f>` and
// `$setElementOrder/<f>` directives, driven by the field table in merge-keys.ts.

import { errors } from '../http/errors.js';
import { isPlainObject, jsonEqual } from '../../util/merge-patch.js';
import type { JsonObject, JsonValue } from './json.js';
import type { FieldMeta } from './merge-keys.js';

const PATCH = '$patch';
const RETAIN_KEYS = '$retainKeys';
const DELETE_FROM = '$deleteFromPrimitiveList/';
const SET_ORDER = '$setElementOrder/';

function isDirective(k: string): boolean {
  return k === PATCH || k === RETAIN_KEYS || k.startsWith(DELETE_FROM) || k.startsWith(SET_ORDER);
}

/**
 * Applies a strategic merge patch to `original` (an object) using `meta` for the whole object.
 * Throws 400 BadRequest for malformed directives.
 */
export function applyStrategicMergePatch(original: JsonObject, patch: JsonObject, meta: FieldMeta): JsonObject {
  const out = mergeMap(original, patch, meta);
  // `$patch: delete` at the top level empties the object.
  return out ?? {};
}

/** Merges a patch map into an original map. Returns undefined when the map is deleted. */
function mergeMap(original: JsonObject | undefined, patch: JsonObject, meta: FieldMeta | undefined): JsonObject | undefined {
  const directive = patch[PATCH];
  if (directive !== undefined) {
    if (directive === 'delete') return undefined;
    if (directive === 'replace') return stripDirectives(patch);
    if (directive !== 'merge') throw errors.badRequest(`unknown patch type: ${String(directive)} in map: ${JSON.stringify(patch)}`);
  }
  const out: JsonObject = isPlainObject(original) ? { ...original } : {};

  for (const [k, v] of Object.entries(patch)) {
    if (isDirective(k)) continue;
    const fieldMeta = meta?.fields?.[k];
    if (v === null) {
      delete out[k];
      continue;
    }
    const merged = mergeValue(out[k], v, fieldMeta);
    if (merged === undefined) delete out[k];
    else out[k] = merged;
  }

  for (const [k, v] of Object.entries(patch)) {
    if (k.startsWith(DELETE_FROM)) {
      const field = k.slice(DELETE_FROM.length);
      if (!Array.isArray(v)) throw errors.badRequest(`invalid patch format for primitive list ${field}: ${JSON.stringify(v)}`);
      const cur = out[field];
      if (Array.isArray(cur)) out[field] = cur.filter((x) => !v.some((d) => jsonEqual(d, x)));
    }
  }
  for (const [k, v] of Object.entries(patch)) {
    if (k.startsWith(SET_ORDER)) {
      const field = k.slice(SET_ORDER.length);
      if (!Array.isArray(v)) throw errors.badRequest(`invalid patch format for $setElementOrder list ${field}: ${JSON.stringify(v)}`);
      const cur = out[field];
      if (Array.isArray(cur)) out[field] = applyOrder(cur, v, meta?.fields?.[field]?.mergeKey);
    }
  }

  const retain = patch[RETAIN_KEYS];
  if (retain !== undefined) {
    if (!Array.isArray(retain) || !retain.every((x) => typeof x === 'string')) {
      throw errors.badRequest(`invalid patch format for retainKeys: ${JSON.stringify(retain)}`);
    }
    const keep = new Set(retain as string[]);
    for (const k of Object.keys(patch)) {
      if (!isDirective(k) && patch[k] !== null && !keep.has(k)) throw errors.badRequest('patch content doesn\'t match retainKeys list');
    }
    for (const k of Object.keys(out)) if (!keep.has(k)) delete out[k];
  }
  return out;
}

function mergeValue(original: JsonValue | undefined, patch: JsonValue, meta: FieldMeta | undefined): JsonValue | undefined {
  if (isPlainObject(patch)) {
    return mergeMap(isPlainObject(original) ? original : undefined, patch, meta);
  }
  if (Array.isArray(patch)) {
    const orig = Array.isArray(original) ? original : [];
    if (meta?.mergeKey) return mergeKeyedList(orig, patch, meta.mergeKey, meta.items);
    if (meta?.primitiveSet) return mergePrimitiveList(orig, patch);
    return patch.map((x) => (isPlainObject(x) ? stripDirectives(x) : structuredClone(x)));
  }
  return patch;
}

function mergePrimitiveList(original: JsonValue[], patch: JsonValue[]): JsonValue[] {
  if (patch.some((x) => isPlainObject(x) && x[PATCH] === 'replace')) {
    return patch.filter((x) => !(isPlainObject(x) && PATCH in x));
  }
  const out = [...original];
  for (const x of patch) {
    if (isPlainObject(x) || Array.isArray(x)) throw errors.badRequest(`invalid patch format for primitive list: ${JSON.stringify(patch)}`);
    if (!out.some((o) => jsonEqual(o, x))) out.push(x);
  }
  return out;
}

function mergeKeyedList(original: JsonValue[], patch: JsonValue[], key: string, items: FieldMeta | undefined): JsonValue[] {
  if (patch.some((x) => isPlainObject(x) && x[PATCH] === 'replace')) {
    return patch
      .filter((x): x is JsonObject => isPlainObject(x) && x[PATCH] === undefined)
      .map((x) => stripDirectives(x));
  }
  const out: JsonValue[] = [...original];
  for (const p of patch) {
    if (!isPlainObject(p)) throw errors.badRequest(`invalid patch format for list with merge key ${key}: ${JSON.stringify(p)}`);
    if (!(key in p)) throw errors.badRequest(`map: ${JSON.stringify(p)} does not contain declared merge key: ${key}`);
    const idx = out.findIndex((o) => isPlainObject(o) && jsonEqual(o[key], p[key]));
    if (p[PATCH] === 'delete') {
      if (idx >= 0) out.splice(idx, 1);
      continue;
    }
    if (idx >= 0) {
      const merged = mergeMap(out[idx] as JsonObject, p, items);
      if (merged === undefined) out.splice(idx, 1);
      else out[idx] = merged;
    } else {
      const created = mergeMap(undefined, p, items);
      if (created !== undefined) out.push(created);
    }
  }
  return out;
}

/** Orders `list` as `order` says; elements not named keep their relative order after them. */
function applyOrder(list: JsonValue[], order: JsonValue[], key: string | undefined): JsonValue[] {
  const ident = (x: JsonValue): JsonValue => (key && isPlainObject(x) ? (x[key] ?? null) : x);
  const wanted = order.map((o) => (key && isPlainObject(o) ? (o[key] ?? null) : o));
  const rank = (x: JsonValue): number => {
    const i = wanted.findIndex((w) => jsonEqual(w, ident(x)));
    return i < 0 ? wanted.length : i;
  };
  return list.map((x, i) => ({ x, i, r: rank(x) })).sort((a, b) => a.r - b.r || a.i - b.i).map((e) => e.x);
}

/** A copy of a patch value with every directive removed (for values inserted as new). */
function stripDirectives(v: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [k, x] of Object.entries(v)) {
    if (isDirective(k) || x === null) continue;
    out[k] = isPlainObject(x) ? stripDirectives(x) : Array.isArray(x) ? x.map((e) => (isPlainObject(e) ? stripDirectives(e) : e)) : x;
  }
  return out;
}
