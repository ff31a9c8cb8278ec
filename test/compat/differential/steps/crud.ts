// Create, read, update (also with a stale resourceVersion), the four patch types (with a
// server-side apply conflict and its forced resolution), delete and read-after-delete, for each
// built-in kind and for custom resources.
import type { Step } from '../types.js';
import { del, get, patch, post, put, saveMeta } from './build.js';

type Obj = Record<string, unknown>;

export interface CrudCase {
  /** Names the steps and the saved values. */
  label: string;
  apiVersion: string;
  kind: string;
  /** The collection's path, e.g. /api/v1/namespaces/diff-crud/configmaps. */
  collection: string;
  name: string;
  namespace?: string;
  /** The object's fields besides apiVersion, kind and metadata. */
  fields: Obj;
  /** Fields after an update (PUT). */
  updated: Obj;
  merge: unknown;
  json: unknown;
  /** A strategic merge patch (custom resources answer 415 to it). */
  strategic: unknown;
  /** Fields set by server-side apply; `conflicting` sets one of them to another value. */
  applied: Obj;
  conflicting: Obj;
}

function object(c: CrudCase, fields: Obj, meta: Obj = {}): Obj {
  return {
    apiVersion: c.apiVersion,
    kind: c.kind,
    metadata: { name: c.name, ...(c.namespace ? { namespace: c.namespace } : {}), labels: { diff: 'crud' }, ...meta },
    ...fields,
  };
}

export function crudSteps(c: CrudCase): Step[] {
  const item = `${c.collection}/${c.name}`;
  const rv = `${c.label}_rv`;
  const applyAs = (manager: string, force = false): string => `${item}?fieldManager=${manager}${force ? '&force=true' : ''}`;
  return [
    post(`${c.label}: create`, c.collection, object(c, c.fields), { save: saveMeta(rv) }),
    post(`${c.label}: create again (AlreadyExists)`, c.collection, object(c, c.fields)),
    get(`${c.label}: get`, item),
    get(`${c.label}: list by label`, `${c.collection}?labelSelector=diff%3Dcrud`),
    put(`${c.label}: update`, item, undefined, { bodyFrom: (v) => object(c, c.updated, { resourceVersion: v[rv] }) }),
    put(`${c.label}: update with a stale resourceVersion (Conflict)`, item, undefined, { bodyFrom: (v) => object(c, c.fields, { resourceVersion: v[rv] }) }),
    patch(`${c.label}: merge patch`, item, 'merge', c.merge),
    patch(`${c.label}: json patch`, item, 'json', c.json),
    patch(`${c.label}: strategic merge patch`, item, 'strategic', c.strategic),
    patch(`${c.label}: apply`, applyAs('diff-a'), 'apply', object(c, c.applied)),
    patch(`${c.label}: apply by another manager (conflict)`, applyAs('diff-b'), 'apply', object(c, c.conflicting)),
    patch(`${c.label}: apply by another manager with force`, applyAs('diff-b', true), 'apply', object(c, c.conflicting)),
    get(`${c.label}: get after patches`, item),
    del(`${c.label}: delete`, item),
    get(`${c.label}: get after delete (NotFound)`, item),
    del(`${c.label}: delete again (NotFound)`, item),
  ];
}
