// Pure helpers for the hub's write style (hub-controller.md §2.4): JSON merge patches computed as
// old→new diffs, and "semantic equality" where null, absent, [] and {} are all the same.

type Json = unknown;

function isPlainObject(v: Json): v is Record<string, Json> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Drops null/undefined values and empty lists/maps, recursively (for comparison only). */
export function normalizeEmpty(v: Json): Json {
  if (Array.isArray(v)) {
    const out = v.map(normalizeEmpty);
    return out.length === 0 ? undefined : out;
  }
  if (isPlainObject(v)) {
    const out: Record<string, Json> = {};
    for (const [k, x] of Object.entries(v)) {
      const n = normalizeEmpty(x);
      if (n !== undefined) out[k] = n;
    }
    return Object.keys(out).length === 0 ? undefined : out;
  }
  return v === null ? undefined : v;
}

function deepEqual(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isPlainObject(a) && isPlainObject(b)) {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    return ka.length === kb.length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

/** Semantic equality: null/absent/empty list/empty map are equal. */
export function semanticEqual(a: Json, b: Json): boolean {
  return deepEqual(normalizeEmpty(a), normalizeEmpty(b));
}

/**
 * RFC 7386 merge patch turning `oldV` into `newV`: maps recurse, removed keys become null, lists and
 * scalars are replaced wholesale. Returns undefined when nothing differs.
 */
export function mergePatchDiff(oldV: Json, newV: Json): Json {
  if (isPlainObject(oldV) && isPlainObject(newV)) {
    const out: Record<string, Json> = {};
    for (const [k, nv] of Object.entries(newV)) {
      if (nv === undefined) continue;
      const d = Object.prototype.hasOwnProperty.call(oldV, k) && oldV[k] !== undefined ? mergePatchDiff(oldV[k], nv) : nv;
      if (d !== undefined) out[k] = d;
    }
    for (const k of Object.keys(oldV)) {
      if (oldV[k] !== undefined && (!Object.prototype.hasOwnProperty.call(newV, k) || newV[k] === undefined)) out[k] = null;
    }
    return Object.keys(out).length === 0 ? undefined : out;
  }
  if (deepEqual(oldV, newV)) return undefined;
  return newV === undefined ? null : newV;
}

/** Deep copy of a JSON value (cached objects must never be mutated). */
export function clone<T>(v: T): T {
  return structuredClone(v);
}
