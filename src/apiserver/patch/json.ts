// JSON value helpers shared by the patch algorithms.

import { jsonTextTooDeep, nestingDepthMessage } from '../http/json-depth.js';

export type JsonValue = null | boolean | number | string | JsonValue[] | { [k: string]: JsonValue };
export type JsonObject = { [k: string]: JsonValue };

export function isPlainObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Structural equality of JSON values (object key order ignored). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

/** Parses a JSON body; a syntax error or a document nested too deeply comes back as `error`. */
export function parseJson(body: string | Buffer): { ok: true; value: JsonValue } | { ok: false; error: string } {
  const text = typeof body === 'string' ? body : body.toString('utf8');
  if (jsonTextTooDeep(text)) return { ok: false, error: nestingDepthMessage() };
  try {
    return { ok: true, value: JSON.parse(text) as JsonValue };
  } catch (e) {
    return { ok: false, error: (e as Error).message };
  }
}
