// JSON values compared and diffed the way Kubernetes controllers do it, for the agent and the hub
// alike. Equality follows apimachinery's semantic equality on decoded objects: an absent member,
// null, an empty list and an empty map are the same thing (Go decodes each of them to a nil or empty
// value, and omitempty drops them again), while list order and every scalar, the empty string
// included, count. Diffs are JSON merge patches (RFC 7386): maps recurse, a member that is gone
// becomes null, lists are replaced whole. The API server, which stores what clients send, compares
// with the exact jsonEqual instead. Pure.

export type JsonObject = Record<string, unknown>;

export function isPlainObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The value when it is a map, else undefined: for reading optional members of decoded JSON. */
export function asPlainObject(v: unknown): JsonObject | undefined {
  return isPlainObject(v) ? v : undefined;
}

/** Absent, null, [] and {}, and maps holding nothing but such values. */
function isEmpty(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (Array.isArray(v)) return v.length === 0;
  return isPlainObject(v) && Object.values(v).every(isEmpty);
}

/** Semantic equality of two JSON values (see the header). */
export function semanticEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (isEmpty(a) || isEmpty(b)) return isEmpty(a) && isEmpty(b);
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => semanticEqual(x, b[i]));
  if (isPlainObject(a) && isPlainObject(b)) {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) if (!semanticEqual(a[k], b[k])) return false;
    return true;
  }
  return false;
}

/**
 * Exact equality of JSON values: the same encoding up to member order (a member holding undefined
 * is absent, as JSON.stringify drops it). The API server compares with this, not semanticEqual:
 * an update that turns an absent field into [] changes what clients read back, so it is stored and
 * not suppressed as a no-op (kube-apiserver compares the encoded bytes), and JSON Patch's test
 * operation, list merging and server-side apply's field ownership compare values as sent.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  if (!isPlainObject(a) || !isPlainObject(b)) return false;
  const ak = Object.keys(a).filter((k) => a[k] !== undefined);
  const bk = Object.keys(b).filter((k) => b[k] !== undefined);
  return ak.length === bk.length && ak.every((k) => Object.prototype.hasOwnProperty.call(b, k) && jsonEqual(a[k], b[k]));
}

/**
 * The RFC 7386 merge patch that turns `from` into `to`, or undefined when they are semantically
 * equal. Lists and scalars in `to` are sent as they are (an empty list stays an empty list, so a
 * required field is never deleted); a member that is absent or null in `to` becomes null.
 */
export function mergePatchDiff(from: unknown, to: unknown): unknown {
  if (semanticEqual(from, to)) return undefined;
  if (to === undefined || to === null) return null;
  if (!isPlainObject(to)) return jsonCopy(to);
  // A map applied onto anything but a map starts from an empty one, as RFC 7386 says.
  const base = isPlainObject(from) ? from : {};
  const out: JsonObject = {};
  for (const k of new Set([...Object.keys(base), ...Object.keys(to)])) {
    const d = mergePatchDiff(base[k], to[k]);
    if (d !== undefined) out[k] = d;
  }
  return out;
}

/** A copy with JSON's own rules for undefined: dropped from maps, null inside lists. */
function jsonCopy(v: unknown): unknown {
  if (Array.isArray(v)) return v.map((x) => (x === undefined ? null : jsonCopy(x)));
  if (!isPlainObject(v)) return v;
  const out: JsonObject = {};
  for (const [k, x] of Object.entries(v)) if (x !== undefined) out[k] = jsonCopy(x);
  return out;
}
