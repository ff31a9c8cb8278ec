// JSON Patch (RFC 6902). Our own small implementation so that every failure maps to the status
// kube-apiserver answers with: a malformed document → 400, an operation that cannot be applied →
// 422 (message = the patch error text, worded like the evanphx/json-patch library kube-apiserver
// uses), more than 10 000 operations → 413.

import { errorMessage } from '../../util/errors.js';
import { isPlainObject, jsonEqual } from '../../util/merge-patch.js';
import { errors } from '../http/errors.js';
import { jsonTextTooDeep, nestingDepthMessage } from '../http/json-depth.js';
import type { JsonValue } from './json.js';

export const MAX_JSON_PATCH_OPERATIONS = 10000;

export interface JsonPatchOperation {
  op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';
  path: string;
  from?: string;
  value?: JsonValue;
}

const OPS = new Set(['add', 'remove', 'replace', 'move', 'copy', 'test']);

/** Decodes and checks the shape of a JSON Patch body; throws 400/413 ApiErrors. */
export function decodeJsonPatch(body: string): JsonPatchOperation[] {
  if (jsonTextTooDeep(body)) throw errors.badRequest(`error decoding patch: ${nestingDepthMessage()}`);
  let doc: unknown;
  try {
    doc = JSON.parse(body);
  } catch (e) {
    throw errors.badRequest(`error decoding patch: ${errorMessage(e)}`);
  }
  if (!Array.isArray(doc)) {
    throw errors.badRequest(`json: cannot unmarshal ${jsonKind(doc)} into Go value of type jsonpatch.Patch`);
  }
  if (doc.length > MAX_JSON_PATCH_OPERATIONS) {
    throw errors.tooManyPatchOperations(MAX_JSON_PATCH_OPERATIONS, doc.length);
  }
  return doc.map((raw: unknown, i) => {
    if (!isPlainObject(raw)) {
      throw errors.badRequest(`json: cannot unmarshal ${jsonKind(raw)} into Go value of type jsonpatch.Operation`);
    }
    const op = raw['op'];
    if (typeof op !== 'string' || !OPS.has(op)) throw errors.badRequest(`Unexpected kind: ${typeof op === 'string' ? op : 'unknown'}`);
    const path = raw['path'];
    if (typeof path !== 'string') throw errors.badRequest(`operation ${i} (${op}): missing path field`);
    const out: JsonPatchOperation = { op: op as JsonPatchOperation['op'], path };
    if (op === 'move' || op === 'copy') {
      if (typeof raw['from'] !== 'string') throw errors.badRequest(`operation ${i} (${op}): missing from field`);
      out.from = raw['from'];
    }
    if (op === 'add' || op === 'replace' || op === 'test') {
      if (!('value' in raw)) throw errors.badRequest(`operation ${i} (${op}): missing value field`);
      out.value = raw['value'] as JsonValue;
    }
    return out;
  });
}

function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  if (typeof v === 'object') return 'object';
  return typeof v === 'string' ? 'string' : typeof v === 'number' ? 'number' : 'bool';
}

/** Parses an RFC 6901 pointer into unescaped tokens. */
function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw errors.unprocessable(`JSON pointer must be empty or start with a "/": ${JSON.stringify(pointer)}`);
  return pointer.slice(1).split('/').map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

type Container = Record<string, JsonValue> | JsonValue[];

/** Resolves the parent container of a pointer; throws 422 when it does not exist. */
function parentOf(doc: JsonValue, tokens: string[], opName: string, pointer: string): { parent: Container; key: string } {
  let cur: JsonValue = doc;
  for (const t of tokens.slice(0, -1)) {
    const next = child(cur, t);
    if (next === undefined) throw errors.unprocessable(`${opName} operation does not apply: doc is missing path: "${pointer}": missing value`);
    cur = next;
  }
  if (!isPlainObject(cur) && !Array.isArray(cur)) {
    throw errors.unprocessable(`${opName} operation does not apply: doc is missing path: "${pointer}": missing value`);
  }
  return { parent: cur, key: tokens[tokens.length - 1] as string };
}

function child(v: JsonValue, token: string): JsonValue | undefined {
  if (Array.isArray(v)) {
    const i = arrayIndex(token, v.length - 1);
    return i === undefined ? undefined : v[i];
  }
  if (isPlainObject(v)) return Object.prototype.hasOwnProperty.call(v, token) ? v[token] : undefined;
  return undefined;
}

function arrayIndex(token: string, max: number): number | undefined {
  if (!/^(0|[1-9][0-9]*)$/.test(token)) return undefined;
  const i = Number(token);
  return i <= max ? i : undefined;
}

function get(doc: JsonValue, pointer: string, opName: string): JsonValue {
  let cur: JsonValue = doc;
  for (const t of parsePointer(pointer)) {
    const next = child(cur, t);
    if (next === undefined) throw errors.unprocessable(`${opName} operation does not apply: doc is missing path: "${pointer}": missing value`);
    cur = next;
  }
  return cur;
}

function add(doc: JsonValue, pointer: string, value: JsonValue): JsonValue {
  const tokens = parsePointer(pointer);
  if (tokens.length === 0) return value;
  const { parent, key } = parentOf(doc, tokens, 'add', pointer);
  if (Array.isArray(parent)) {
    const i = key === '-' ? parent.length : arrayIndex(key, parent.length);
    if (i === undefined) throw errors.unprocessable(`add operation does not apply: doc is missing path: "${pointer}": invalid index referenced: ${key}`);
    parent.splice(i, 0, value);
  } else {
    parent[key] = value;
  }
  return doc;
}

function remove(doc: JsonValue, pointer: string, opName = 'remove'): { doc: JsonValue; removed: JsonValue } {
  const tokens = parsePointer(pointer);
  if (tokens.length === 0) throw errors.unprocessable(`${opName} operation does not apply: cannot remove the document root`);
  const { parent, key } = parentOf(doc, tokens, opName, pointer);
  if (Array.isArray(parent)) {
    const i = arrayIndex(key, parent.length - 1);
    if (i === undefined) throw errors.unprocessable(`${opName} operation does not apply: doc is missing path: "${pointer}": missing value`);
    const [removed] = parent.splice(i, 1);
    return { doc, removed: removed as JsonValue };
  }
  if (!Object.prototype.hasOwnProperty.call(parent, key)) {
    throw errors.unprocessable(`${opName} operation does not apply: doc is missing path: "${pointer}": missing value`);
  }
  const removed = parent[key] as JsonValue;
  delete parent[key];
  return { doc, removed };
}

function replace(doc: JsonValue, pointer: string, value: JsonValue): JsonValue {
  const tokens = parsePointer(pointer);
  if (tokens.length === 0) return value;
  const { parent, key } = parentOf(doc, tokens, 'replace', pointer);
  if (Array.isArray(parent)) {
    const i = arrayIndex(key, parent.length - 1);
    if (i === undefined) throw errors.unprocessable(`replace operation does not apply: doc is missing key: ${pointer}: missing value`);
    parent[i] = value;
  } else {
    if (!Object.prototype.hasOwnProperty.call(parent, key)) {
      throw errors.unprocessable(`replace operation does not apply: doc is missing key: ${pointer}: missing value`);
    }
    parent[key] = value;
  }
  return doc;
}

/**
 * Applies the operations to a deep copy of `doc` and returns the result. Operation failures
 * throw 422 Invalid ApiErrors.
 */
export function applyJsonPatch(doc: JsonValue, ops: JsonPatchOperation[]): JsonValue {
  let cur: JsonValue = structuredClone(doc);
  for (const op of ops) {
    switch (op.op) {
      case 'add':
        cur = add(cur, op.path, structuredClone(op.value as JsonValue));
        break;
      case 'remove':
        cur = remove(cur, op.path).doc;
        break;
      case 'replace':
        cur = replace(cur, op.path, structuredClone(op.value as JsonValue));
        break;
      case 'move': {
        const from = op.from as string;
        if (op.path.startsWith(`${from}/`)) {
          throw errors.unprocessable(`move operation does not apply: "from" location "${from}" is a prefix of "path" "${op.path}"`);
        }
        if (from === op.path) break;
        const r = remove(cur, from, 'move');
        cur = add(r.doc, op.path, r.removed);
        break;
      }
      case 'copy': {
        const v = get(cur, op.from as string, 'copy');
        cur = add(cur, op.path, structuredClone(v));
        break;
      }
      case 'test': {
        const v = get(cur, op.path, 'test');
        if (!jsonEqual(v, op.value as JsonValue)) throw errors.unprocessable(`testing value ${op.path} failed: test failed`);
        break;
      }
    }
  }
  return cur;
}
