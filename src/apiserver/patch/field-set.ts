// Field sets for managedFields (server-side apply): a set of paths, each a list of FieldsV1 path
// elements — `f:<field>`, `k:<json of key fields>` (list-map item), `v:<json>` (set item),
// `i:<n>` (index) — with conversion to and from the nested `fieldsV1` encoding
// (`.` marks a node that is itself a member and also has members below it).

import { errors } from '../http/errors.js';
import { listKindOf, memberType, type ApplyType } from './apply-types.js';
import { isPlainObject, jsonEqual } from '../../util/merge-patch.js';
import type { JsonObject, JsonValue } from './json.js';

export type FieldPath = string[];

/** A set of paths, keyed by JSON of the path. */
export type FieldSet = Map<string, FieldPath>;

export function newFieldSet(paths: FieldPath[] = []): FieldSet {
  const s: FieldSet = new Map();
  for (const p of paths) s.set(JSON.stringify(p), p);
  return s;
}

/** Server-maintained fields that never count as owned (as kube-apiserver strips them). */
const IGNORED_PREFIXES: FieldPath[] = [
  ['f:apiVersion'], ['f:kind'],
  ...['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'generation', 'managedFields', 'resourceVersion',
    'deletionTimestamp', 'deletionGracePeriodSeconds'].map((f) => ['f:metadata', `f:${f}`]),
];

function ignored(p: FieldPath): boolean {
  // metadata itself is never owned (only its members are), even where every object counts as a map.
  if (p.length === 1 && p[0] === 'f:metadata') return true;
  return IGNORED_PREFIXES.some((pre) => pre.every((e, i) => p[i] === e));
}

/** Canonical key-fields element of a list-map item; undefined when a key field is missing. */
export function keyElement(item: JsonObject, keys: string[]): string | undefined {
  const sorted = [...keys].sort();
  const kv: JsonObject = {};
  for (const k of sorted) {
    if (!(k in item)) return undefined;
    kv[k] = item[k] as JsonValue;
  }
  return `k:${JSON.stringify(kv)}`;
}

/**
 * The set of fields a value sets: leaves (scalars, atomic lists and maps, empty maps), list-map
 * items and set items. Intermediate object fields are implied by their members.
 */
/**
 * `mapNodes`: also list the objects that are maps, as an update that adds one owns it: 'maps' for
 * objects without named fields (built-in kinds, whose named objects are structs), 'objects' for
 * every object (custom resources, where kube-apiserver treats every object as a map).
 */
export function fieldSetOf(value: JsonObject, type: ApplyType | undefined, opts: { mapNodes?: 'maps' | 'objects' } = {}): FieldSet {
  const out = newFieldSet();
  walkObject(value, type, [], out, opts.mapNodes ?? false);
  for (const [k, p] of out) if (ignored(p)) out.delete(k);
  return out;
}

type MapNodes = 'maps' | 'objects' | false;

function walkObject(obj: JsonObject, type: ApplyType | undefined, prefix: FieldPath, out: FieldSet, mapNodes: MapNodes): void {
  // Every write walks the object before and after it: for...in spares a key/value array per object.
  for (const k in obj) walkValue(obj[k] as JsonValue, memberType(type, k), [...prefix, `f:${k}`], out, mapNodes);
}

function walkValue(v: JsonValue, type: ApplyType | undefined, path: FieldPath, out: FieldSet, mapNodes: MapNodes = false): void {
  if (isPlainObject(v) && !type?.atomic && Object.keys(v).length > 0) {
    if (mapNodes === 'objects' || (mapNodes === 'maps' && !type?.fields)) out.set(JSON.stringify(path), path);
    walkObject(v, type, path, out, mapNodes);
    return;
  }
  if (Array.isArray(v)) {
    const lk = listKindOf(type);
    if (lk.type === 'map') {
      v.forEach((item, i) => {
        const el = isPlainObject(item) ? keyElement(item, lk.keys) : undefined;
        if (el === undefined) {
          throw errors.unprocessable(
            `${pathString(path)}: element ${i}: associative list with keys has an element that omits key field ${JSON.stringify(lk.keys[0] ?? '')}`);
        }
        const itemPath = [...path, el];
        out.set(JSON.stringify(itemPath), itemPath);
        walkObject(item as JsonObject, type?.items, itemPath, out, mapNodes);
      });
      return;
    }
    if (lk.type === 'set') {
      for (const item of v) {
        const itemPath = [...path, `v:${JSON.stringify(item)}`];
        out.set(JSON.stringify(itemPath), itemPath);
      }
      return;
    }
  }
  out.set(JSON.stringify(path), path);
}

/** Locates the value at a path; `found` is false when any step is missing. */
export function getAt(root: JsonValue, path: FieldPath): { found: boolean; value?: JsonValue } {
  let cur: JsonValue = root;
  for (const el of path) {
    const next = step(cur, el);
    if (next === undefined) return { found: false };
    cur = next.value;
  }
  return { found: true, value: cur };
}

function step(cur: JsonValue, el: string): { value: JsonValue; index?: number } | undefined {
  if (el.startsWith('f:')) {
    const name = el.slice(2);
    if (!isPlainObject(cur) || !Object.prototype.hasOwnProperty.call(cur, name)) return undefined;
    return { value: cur[name] as JsonValue };
  }
  if (!Array.isArray(cur)) return undefined;
  const idx = findIndex(cur, el);
  return idx < 0 ? undefined : { value: cur[idx] as JsonValue, index: idx };
}

function findIndex(list: JsonValue[], el: string): number {
  if (el.startsWith('k:')) {
    const kv = JSON.parse(el.slice(2)) as JsonObject;
    return list.findIndex((x) => isPlainObject(x) && Object.entries(kv).every(([k, v]) => jsonEqual(x[k], v)));
  }
  if (el.startsWith('v:')) {
    const v = JSON.parse(el.slice(2)) as JsonValue;
    return list.findIndex((x) => jsonEqual(x, v));
  }
  if (el.startsWith('i:')) {
    const i = Number(el.slice(2));
    return i < list.length ? i : -1;
  }
  return -1;
}

/** Removes the member at `path` from `root` (mutates); a missing path is a no-op. */
export function removeAt(root: JsonValue, path: FieldPath): void {
  if (path.length === 0) return;
  const parent = getAt(root, path.slice(0, -1));
  if (!parent.found) return;
  const last = path[path.length - 1] as string;
  const container = parent.value as JsonValue;
  if (last.startsWith('f:')) {
    if (isPlainObject(container)) delete container[last.slice(2)];
    return;
  }
  if (Array.isArray(container)) {
    const idx = findIndex(container, last);
    if (idx >= 0) container.splice(idx, 1);
  }
}

/** kube's rendering of a path in conflict messages: `.spec.list[name="a"].x`, `[=v]`, `[3]`. */
export function pathString(path: FieldPath): string {
  return path.map((el) => {
    const body = el.slice(2);
    if (el.startsWith('f:')) return `.${body}`;
    if (el.startsWith('k:')) {
      const kv = JSON.parse(body) as JsonObject;
      return `[${Object.entries(kv).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(',')}]`;
    }
    if (el.startsWith('v:')) return `[=${body}]`;
    return `[${body}]`;
  }).join('');
}

interface Node {
  member: boolean;
  children: Map<string, Node>;
}

/** Encodes a set as `fieldsV1`. */
export function toFieldsV1(set: FieldSet): JsonObject {
  const root: Node = { member: false, children: new Map() };
  for (const p of set.values()) {
    let n = root;
    for (const el of p) {
      let c = n.children.get(el);
      if (!c) {
        c = { member: false, children: new Map() };
        n.children.set(el, c);
      }
      n = c;
    }
    n.member = true;
  }
  const enc = (n: Node): JsonObject => {
    const o: JsonObject = {};
    if (n.member && n.children.size > 0) o['.'] = {};
    for (const k of [...n.children.keys()].sort()) o[k] = enc(n.children.get(k) as Node);
    return o;
  };
  return enc(root);
}

/** Decodes `fieldsV1` into a set; malformed input yields the members that could be read. */
export function fromFieldsV1(v: unknown): FieldSet {
  const out = newFieldSet();
  const dec = (o: unknown, prefix: FieldPath): void => {
    if (!isPlainObject(o)) return;
    const keys = Object.keys(o);
    if (prefix.length > 0 && (keys.length === 0 || keys.includes('.'))) out.set(JSON.stringify(prefix), prefix);
    for (const k of keys) if (k !== '.') dec(o[k], [...prefix, k]);
  };
  dec(v, []);
  return out;
}

export function union(a: FieldSet, b: FieldSet): FieldSet {
  const out = new Map(a);
  for (const [k, p] of b) out.set(k, p);
  return out;
}

export function difference(a: FieldSet, b: FieldSet): FieldSet {
  const out = newFieldSet();
  for (const [k, p] of a) if (!b.has(k)) out.set(k, p);
  return out;
}

export function intersection(a: FieldSet, b: FieldSet): FieldSet {
  const out = newFieldSet();
  for (const [k, p] of a) if (b.has(k)) out.set(k, p);
  return out;
}
