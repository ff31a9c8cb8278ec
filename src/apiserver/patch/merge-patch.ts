// JSON Merge Patch (RFC 7386): objects merge recursively, `null` deletes a key, arrays
// and scalars replace wholesale. A patch whose top level is not an object is rejected (400).

import { errors } from '../http/errors.js';
import { isPlainObject, jsonEqual } from '../../util/merge-patch.js';
import { parseJson, type JsonObject, type JsonValue } from './json.js';

/** Decodes a merge patch body; throws 400 when it is not JSON or not an object. */
export function decodeMergePatch(body: string | Buffer): JsonObject {
  const parsed = parseJson(body);
  if (!parsed.ok || !isPlainObject(parsed.value)) throw errors.badRequest('Invalid JSON Patch');
  return parsed.value;
}

/** RFC 7386 MergePatch(target, patch); never mutates its inputs. */
export function applyMergePatch(target: JsonValue | undefined, patch: JsonValue): JsonValue {
  if (!isPlainObject(patch)) return structuredClone(patch);
  const out: JsonObject = isPlainObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = applyMergePatch(out[k], v);
  }
  return out;
}

/**
 * Builds the merge patch that turns `from` into `to` (what a client sends for "only what
 * changed"); `null` marks removed keys, arrays are sent whole. Returns `{}` when equal.
 */
export function createMergePatch(from: JsonValue, to: JsonValue): JsonValue {
  if (!isPlainObject(from) || !isPlainObject(to)) return structuredClone(to);
  const out: JsonObject = {};
  for (const k of Object.keys(from)) if (!(k in to)) out[k] = null;
  for (const [k, v] of Object.entries(to)) {
    const old = from[k];
    if (old === undefined) {
      out[k] = structuredClone(v);
    } else if (isPlainObject(old) && isPlainObject(v)) {
      const sub = createMergePatch(old, v);
      if (isPlainObject(sub) && Object.keys(sub).length > 0) out[k] = sub;
    } else if (!jsonEqual(old, v)) {
      out[k] = structuredClone(v);
    }
  }
  return out;
}
