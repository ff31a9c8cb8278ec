// Server-side apply: field ownership per manager in managedFields, conflicts
// (409 unless force), removal of fields the applier stopped applying, and the Update bookkeeping
// for every other write. Maps merge key by key, lists merge by `x-kubernetes-list-type`/merge key
// (map, set); other lists and atomic maps are replaced whole.

import type { KubeObject, ManagedFieldsEntry } from '../../api/meta.js';
import { errors } from '../http/errors.js';
import { listKindOf, memberType, type ApplyType } from './apply-types.js';
import {
  difference, fieldSetOf, fromFieldsV1, getAt, intersection, keyElement, newFieldSet, pathString, removeAt, toFieldsV1, union,
  type FieldPath, type FieldSet,
} from './field-set.js';
import { isPlainObject, jsonEqual } from '../../util/merge-patch.js';
import type { JsonObject, JsonValue } from './json.js';

export interface ServerSideApplyOptions {
  /** The stored object, or undefined to create. */
  current: KubeObject | undefined;
  /** The applied configuration (parsed YAML/JSON). */
  applied: JsonObject;
  manager: string;
  /** apiVersion of the request (recorded in the entry and in conflict messages). */
  apiVersion: string;
  force: boolean;
  /** RFC 3339 time recorded in changed entries (omitted when not given). */
  time?: string;
  type?: ApplyType;
  /** '' for the main resource, 'status' for /status. */
  subresource?: string;
  /**
   * Top-level fields this endpoint ignores (kube's "reset fields"): e.g. ['status'] on the main
   * resource of a kind with a status subresource. They are dropped from the applied configuration,
   * so they are neither changed nor owned.
   */
  ignoredFields?: string[];
}

interface OwnedEntry {
  entry: ManagedFieldsEntry;
  set: FieldSet;
}

function readEntries(obj: KubeObject | undefined): OwnedEntry[] {
  const mf = obj?.metadata?.managedFields;
  if (!Array.isArray(mf)) return [];
  return mf.filter((e) => isPlainObject(e)).map((e) => ({ entry: { ...e }, set: fromFieldsV1(e.fieldsV1) }));
}

function writeEntries(entries: OwnedEntry[]): ManagedFieldsEntry[] {
  return entries.map(({ entry, set }) => {
    const { manager, operation, apiVersion, time, subresource } = entry;
    return {
      ...(manager !== undefined ? { manager } : {}),
      ...(operation !== undefined ? { operation } : {}),
      ...(apiVersion !== undefined ? { apiVersion } : {}),
      ...(time !== undefined ? { time } : {}),
      fieldsType: 'FieldsV1' as const,
      fieldsV1: toFieldsV1(set),
      ...(subresource ? { subresource } : {}),
    };
  });
}

function sameOwner(e: ManagedFieldsEntry, manager: string, op: 'Apply' | 'Update', subresource: string): boolean {
  return e.manager === manager && e.operation === op && (e.subresource ?? '') === subresource;
}

/** Whether the value at `p` differs between two objects (items: presence only). */
function differsAt(a: JsonValue, b: JsonValue, p: FieldPath): boolean {
  const x = getAt(a, p);
  const y = getAt(b, p);
  if (x.found !== y.found) return true;
  const last = p[p.length - 1] ?? '';
  if (last.startsWith('k:') || last.startsWith('v:')) return false;
  return !jsonEqual(x.value, y.value);
}

/** Merges an applied configuration into a live value following the type information. */
function mergeApplied(live: JsonValue | undefined, applied: JsonValue, type: ApplyType | undefined): JsonValue {
  if (isPlainObject(applied) && !type?.atomic) {
    const out: JsonObject = isPlainObject(live) ? { ...live } : {};
    for (const [k, v] of Object.entries(applied)) {
      if (v === null) delete out[k];
      else out[k] = mergeApplied(out[k], v, memberType(type, k));
    }
    return out;
  }
  if (Array.isArray(applied) && Array.isArray(live)) {
    const lk = listKindOf(type);
    if (lk.type === 'map') {
      const out = [...live];
      for (const item of applied) {
        const el = isPlainObject(item) ? keyElement(item, lk.keys) : undefined;
        const idx = el === undefined ? -1 : out.findIndex((x) => isPlainObject(x) && keyElement(x, lk.keys) === el);
        if (idx >= 0) out[idx] = mergeApplied(out[idx], item, type?.items);
        else out.push(structuredClone(item));
      }
      return out;
    }
    if (lk.type === 'set') {
      const out = [...live];
      for (const item of applied) if (!out.some((x) => jsonEqual(x, item))) out.push(structuredClone(item));
      return out;
    }
  }
  return structuredClone(applied);
}

/** Renders the 409 of kube-apiserver's field manager for the given conflicts. */
function applyConflictError(conflicts: Array<{ manager: ManagedFieldsEntry; path: FieldPath }>): ReturnType<typeof errors.applyConflict> {
  const who = (e: ManagedFieldsEntry): string => {
    let s = JSON.stringify(e.manager ?? '');
    if (e.subresource) s += ` with subresource ${JSON.stringify(e.subresource)}`;
    if (e.operation === 'Update') s += ` using ${e.apiVersion ?? ''}`;
    return s;
  };
  const causes = conflicts.map((c) => ({
    reason: 'FieldManagerConflict', message: `conflict with ${who(c.manager)}`, field: pathString(c.path),
  }));
  let message: string;
  if (conflicts.length === 1) {
    const c = conflicts[0] as { manager: ManagedFieldsEntry; path: FieldPath };
    message = `Apply failed with 1 conflict: conflict with ${who(c.manager)}: ${pathString(c.path)}`;
  } else {
    const byManager = new Map<string, string[]>();
    for (const c of conflicts) {
      const k = who(c.manager);
      byManager.set(k, [...(byManager.get(k) ?? []), pathString(c.path)]);
    }
    const lines: string[] = [];
    for (const k of [...byManager.keys()].sort()) {
      lines.push(`conflicts with ${k}:`);
      for (const p of byManager.get(k) as string[]) lines.push(`- ${p}`);
    }
    message = `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
  }
  return errors.applyConflict(message, causes);
}

/** Applies a configuration; returns the new object with managedFields updated. Throws 409 on conflicts. */
export function serverSideApply(o: ServerSideApplyOptions): KubeObject {
  const sub = o.subresource ?? '';
  const live = (o.current ? structuredClone(o.current) : { metadata: {} }) as unknown as JsonObject;
  const applied = structuredClone(o.applied);
  for (const f of o.ignoredFields ?? []) delete applied[f];
  if (isPlainObject(applied['metadata'])) delete applied['metadata']['managedFields'];
  const configSet = fieldSetOf(applied, o.type);
  const entries = readEntries(o.current);
  const mine = entries.find((e) => sameOwner(e.entry, o.manager, 'Apply', sub));
  const others = entries.filter((e) => e !== mine);

  // Fields this applier owned alone and no longer applies are removed, shallowest first: a dropped
  // list-map item must go whole before removing its key fields could make it unfindable.
  const working = structuredClone(live);
  const dropped = difference(mine?.set ?? newFieldSet(), configSet);
  const ownedByOthers = others.reduce((acc, e) => union(acc, e.set), newFieldSet());
  [...dropped.entries()]
    .filter(([k]) => !ownedByOthers.has(k))
    .sort((a, b) => a[1].length - b[1].length)
    .forEach(([, p]) => removeAt(working, p));

  const merged = mergeApplied(working, applied, o.type) as JsonObject;

  const conflicts: Array<{ manager: ManagedFieldsEntry; path: FieldPath; key: string }> = [];
  for (const e of others) {
    for (const [k, p] of intersection(configSet, e.set)) {
      if (differsAt(live, merged, p)) conflicts.push({ manager: e.entry, path: p, key: k });
    }
  }
  if (conflicts.length > 0 && !o.force) throw applyConflictError(conflicts);

  for (const c of conflicts) others.find((e) => e.entry === c.manager)?.set.delete(c.key);
  const unchanged = mine !== undefined && jsonEqual(merged, live) && setsEqual(mine.set, configSet);
  const time = unchanged ? (mine.entry.time ?? o.time) : o.time;
  const myEntry: OwnedEntry = {
    entry: {
      manager: o.manager, operation: 'Apply', apiVersion: o.apiVersion,
      ...(time ? { time } : {}),
      ...(sub ? { subresource: sub } : {}),
    },
    set: configSet,
  };
  const result: OwnedEntry[] = [];
  for (const e of entries) {
    if (e === mine) result.push(myEntry);
    else if (e.set.size > 0) result.push(e);
  }
  if (!mine) result.push(myEntry);

  const out = merged as unknown as KubeObject;
  if (!isPlainObject(out.metadata)) out.metadata = {};
  out.metadata.managedFields = writeEntries(result);
  return out;
}

function setsEqual(a: FieldSet, b: FieldSet): boolean {
  return a.size === b.size && [...a.keys()].every((k) => b.has(k));
}

export interface UpdateManagedFieldsOptions {
  /** Stored object before the write (undefined on create). */
  before: KubeObject | undefined;
  /** Object about to be stored. */
  after: KubeObject;
  manager: string;
  apiVersion: string;
  time: string;
  type?: ApplyType;
  subresource?: string;
}

/**
 * managedFields after a non-apply write (create, update, patch): the writer's `Update` entry gains
 * the fields it changed, every other manager loses them, removed fields leave every set. A client
 * that sends `managedFields: []` clears them, as kube-apiserver does.
 */
export function updateManagedFields(o: UpdateManagedFieldsOptions): ManagedFieldsEntry[] {
  const sub = o.subresource ?? '';
  const sent = o.after.metadata?.managedFields;
  if (Array.isArray(sent) && sent.length === 0 && (o.before?.metadata?.managedFields?.length ?? 0) > 0) return [];
  const base = Array.isArray(sent) && !jsonEqual(sent, o.before?.metadata?.managedFields ?? undefined) ? o.after : o.before;
  const entries = readEntries(base);
  const beforeVal = (o.before ?? { metadata: {} }) as unknown as JsonObject;
  const afterVal = o.after as unknown as JsonObject;
  const beforeSet = o.before ? fieldSetOf(beforeVal, o.type) : newFieldSet();
  const afterSet = fieldSetOf(afterVal, o.type);
  const changed = newFieldSet();
  for (const [k, p] of afterSet) if (differsAt(beforeVal, afterVal, p)) changed.set(k, p);
  const removed = difference(beforeSet, afterSet);
  const lost = union(changed, removed);

  const mine = entries.find((e) => sameOwner(e.entry, o.manager, 'Update', sub));
  const result: OwnedEntry[] = [];
  for (const e of entries) {
    if (e === mine) {
      const set = difference(union(e.set, changed), removed);
      const entry = changed.size > 0 ? { ...e.entry, apiVersion: o.apiVersion, time: o.time } : e.entry;
      if (set.size > 0) result.push({ entry, set });
    } else {
      const set = difference(e.set, lost);
      if (set.size > 0) result.push({ entry: e.entry, set });
    }
  }
  if (!mine && changed.size > 0) {
    result.push({
      entry: { manager: o.manager, operation: 'Update', apiVersion: o.apiVersion, time: o.time, ...(sub ? { subresource: sub } : {}) },
      set: changed,
    });
  }
  return writeEntries(result);
}
