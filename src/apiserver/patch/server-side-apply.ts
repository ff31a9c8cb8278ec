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

/** A time as kube-apiserver stores it (RFC 3339, whole seconds), whatever precision the client sent. */
function storedTime(t: unknown): string | undefined {
  if (typeof t !== 'string') return undefined;
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? t : new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function readEntries(obj: KubeObject | undefined): OwnedEntry[] {
  const mf = obj?.metadata?.managedFields;
  if (!Array.isArray(mf)) return [];
  return mf.filter((e) => isPlainObject(e)).map((e) => {
    const time = storedTime(e.time);
    const entry = { ...e };
    if (time === undefined) delete entry.time;
    else entry.time = time;
    return { entry, set: fromFieldsV1(e.fieldsV1) };
  });
}

/** kube-apiserver's order of entries: appliers first, then by time, manager, apiVersion, subresource. */
function compareEntries(p: ManagedFieldsEntry, q: ManagedFieldsEntry): number {
  const by = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  const seconds = (t: string | undefined): number => (t ? Math.floor(Date.parse(t) / 1000) || 0 : 0);
  return by(p.operation ?? '', q.operation ?? '')
    || seconds(p.time) - seconds(q.time)
    || by(p.manager ?? '', q.manager ?? '')
    || by(p.apiVersion ?? '', q.apiVersion ?? '')
    || by(p.subresource ?? '', q.subresource ?? '');
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
  }).sort(compareEntries);
}

/** Whether an entry is the given manager's: appliers by name, updaters also by apiVersion (as kube-apiserver keys them). */
function sameOwner(e: ManagedFieldsEntry, manager: string, op: 'Apply' | 'Update', subresource: string, apiVersion?: string): boolean {
  return e.manager === manager && e.operation === op && (e.subresource ?? '') === subresource
    && (op === 'Apply' || e.apiVersion === apiVersion);
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
  /** Top-level fields this endpoint does not track (status on a main resource that has /status). */
  ignoredFields?: string[];
  /** Custom resources: every object counts as a map, owned by the update that adds it. */
  isCustomResource?: boolean;
}

/** Most `Update` entries kept; older ones are merged into one entry per apiVersion, as kube-apiserver does. */
const MAX_UPDATE_MANAGERS = 10;
const ANCIENT_CHANGES = 'ancient-changes';

/** An empty list, or a list of one empty entry, asks the server to forget every owner. */
function isReset(sent: unknown): boolean {
  if (!Array.isArray(sent)) return false;
  if (sent.length === 0) return true;
  return sent.length === 1 && isPlainObject(sent[0]) && Object.keys(sent[0]).length === 0;
}

function withoutIgnored(set: FieldSet, ignored: string[] | undefined): FieldSet {
  if (!ignored?.length) return set;
  const heads = new Set(ignored.map((f) => `f:${f}`));
  for (const [k, p] of set) if (heads.has(p[0] ?? '')) set.delete(k);
  return set;
}

/** Whether the path names a non-empty object that has members of its own in the set. */
function isMapNode(root: JsonValue, p: FieldPath): boolean {
  const at = getAt(root, p);
  return at.found && isPlainObject(at.value) && Object.keys(at.value).length > 0;
}

/** Merges the oldest `Update` entries, per apiVersion, until at most MAX_UPDATE_MANAGERS remain. */
function capUpdateManagers(entries: OwnedEntry[]): OwnedEntry[] {
  const updaters = entries.filter((e) => e.entry.operation !== 'Apply');
  if (updaters.length <= MAX_UPDATE_MANAGERS) return entries;
  const oldestFirst = [...updaters].sort((a, b) => compareEntries({ ...a.entry, operation: 'Update' }, { ...b.entry, operation: 'Update' }));
  const gone = new Set<OwnedEntry>();
  const buckets = new Map<string, OwnedEntry>();
  let count = updaters.length;
  for (const e of oldestFirst) {
    if (count <= MAX_UPDATE_MANAGERS) break;
    const version = e.entry.apiVersion ?? '';
    const bucket = buckets.get(version);
    if (!bucket) {
      // The first of a version becomes the bucket; the next one of that version is merged into it.
      buckets.set(version, e);
      continue;
    }
    bucket.entry = { manager: ANCIENT_CHANGES, operation: 'Update', apiVersion: version, ...(e.entry.time ? { time: e.entry.time } : {}) };
    bucket.set = union(bucket.set, e.set);
    gone.add(e);
    count--;
  }
  return entries.filter((e) => !gone.has(e));
}

/**
 * managedFields after a non-apply write (create, update, patch): the writer's `Update` entry gains
 * the fields it changed, every other manager loses them, removed fields leave every set. A client
 * that sends `managedFields: []` (or `[{}]`) makes the server forget every earlier owner, as
 * kube-apiserver does; on a subresource the request's managedFields are not read.
 */
export function updateManagedFields(o: UpdateManagedFieldsOptions): ManagedFieldsEntry[] {
  const sub = o.subresource ?? '';
  const sent = sub ? undefined : o.after.metadata?.managedFields;
  const live = o.before?.metadata?.managedFields;
  let entries: OwnedEntry[];
  if (isReset(sent)) entries = [];
  else if (Array.isArray(sent) && sent.length > 0 && !jsonEqual(sent, live ?? undefined)) {
    // Entries read back by a client may differ only in encoding (a time with milliseconds, say).
    const fromRequest = readEntries(o.after);
    const stored = readEntries(o.before);
    entries = jsonEqual(writeEntries(fromRequest), writeEntries(stored)) ? stored : fromRequest;
  } else entries = readEntries(o.before);
  const beforeVal = (o.before ?? { metadata: {} }) as unknown as JsonObject;
  const afterVal = o.after as unknown as JsonObject;
  const mapNodes = o.isCustomResource ? 'objects' as const : 'maps' as const;
  const beforeSet = o.before ? withoutIgnored(fieldSetOf(beforeVal, o.type, { mapNodes }), o.ignoredFields) : newFieldSet();
  const afterSet = withoutIgnored(fieldSetOf(afterVal, o.type, { mapNodes }), o.ignoredFields);
  const changed = newFieldSet();
  for (const [k, p] of afterSet) {
    // A map node counts as changed only when it is new; its members say what else changed.
    const added = !beforeSet.has(k);
    if (added || (!isMapNode(afterVal, p) && differsAt(beforeVal, afterVal, p))) changed.set(k, p);
  }
  const removed = difference(beforeSet, afterSet);
  const lost = union(changed, removed);

  const mine = entries.find((e) => sameOwner(e.entry, o.manager, 'Update', sub, o.apiVersion));
  const result: OwnedEntry[] = [];
  for (const e of entries) {
    if (e === mine) {
      const set = difference(union(e.set, changed), removed);
      const entry = changed.size > 0 ? { ...e.entry, time: o.time } : e.entry;
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
  return writeEntries(capUpdateManagers(result));
}
