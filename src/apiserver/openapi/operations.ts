// The REST operations of a resource, independent of the OpenAPI version they are written in: one
// entry per path, with its path parameters and, per HTTP method, the action, the query parameters,
// the body and the response. The v2 and v3 builders render these.

import { kindName, listKindName, gvkOf } from './kind-schemas.js';
import { metaName, operationStem } from './names.js';
import type { GroupVersionKind, OpenApiResource } from './types.js';

type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'patch';

interface QueryParam {
  name: string;
  type: 'string' | 'integer' | 'boolean';
  description: string;
}

export interface OperationSpec {
  method: HttpMethod;
  operationId: string;
  description: string;
  /** kube-apiserver's `x-kubernetes-action`: get, list, post, put, patch, delete, deletecollection. */
  action: string;
  gvk: GroupVersionKind;
  query: QueryParam[];
  /** Request body: the definition it is typed by and the content types accepted. */
  body?: { definition: string; contentTypes: string[] };
  /** Definition of the success response. */
  response: string;
  /** Success code (201 for creates that only create). */
  code: number;
}

export interface PathSpec {
  path: string;
  /** Path parameters, in order: namespace, name. */
  params: ('namespace' | 'name')[];
  operations: OperationSpec[];
}

const q = (name: string, type: QueryParam['type'], description: string): QueryParam => ({ name, type, description });

const DRY_RUN = q('dryRun', 'string', "'All' runs every stage of the request without persisting the result.");
const FIELD_MANAGER = q('fieldManager', 'string', 'Name of the actor making the change, recorded in managedFields.');
const FIELD_VALIDATION = q('fieldValidation', 'string', 'What to do with unknown or duplicate fields in the body: Ignore, Warn (the default) or Strict (reject).');
const FORCE = q('force', 'boolean', 'Apply requests only: take over fields owned by other managers instead of failing with a conflict.');
const LIST_PARAMS = [
  q('allowWatchBookmarks', 'boolean', 'Watch only: ask for BOOKMARK events.'),
  q('continue', 'string', 'Token from a previous page, to fetch the next one.'),
  q('fieldSelector', 'string', 'Restricts the results by fields (metadata.name, metadata.namespace and kind-specific fields).'),
  q('labelSelector', 'string', 'Restricts the results by labels.'),
  q('limit', 'integer', 'Largest number of items to return; the rest can be fetched with the continue token.'),
  q('resourceVersion', 'string', 'Version the list is read at, or a watch starts after.'),
  q('resourceVersionMatch', 'string', 'How resourceVersion applies to a list: Exact or NotOlderThan.'),
  q('sendInitialEvents', 'boolean', 'Watch only: start with synthetic ADDED events for the current state.'),
  q('timeoutSeconds', 'integer', 'Time limit of the list or watch call.'),
  q('watch', 'boolean', 'Stream changes instead of returning a list.'),
];
const DELETE_PARAMS = [
  DRY_RUN,
  q('gracePeriodSeconds', 'integer', 'Seconds before the object is deleted; zero means immediately.'),
  q('propagationPolicy', 'string', 'What happens to dependents: Orphan, Background or Foreground.'),
];

/**
 * Patch content types. Custom resources take no strategic merge patch (as upstream). Built-ins do,
 * but our built-in schemas carry no patch merge keys: a kubectl that read strategic merge patch here
 * would build its patches from those schemas instead of its compiled-in types, replacing lists it
 * should merge. Leaving it out keeps kubectl on its compiled-in types.
 */
const PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml'];

const WRITE_TYPES = ['*/*'];

interface Names {
  stem: string;
  kind: string;
  kindDef: string;
  gvk: GroupVersionKind;
}

function op(method: HttpMethod, action: string, idVerb: string, n: Names, rest: Partial<OperationSpec> & { description: string; response: string }): OperationSpec {
  return { method, action, operationId: `${idVerb}${n.stem}${n.kind}`, gvk: n.gvk, query: [], code: 200, ...rest };
}

function collectionOps(r: OpenApiResource, n: Names, namespaced: boolean): OperationSpec[] {
  const scope = namespaced ? 'Namespaced' : '';
  const names = { ...n, kind: `${scope}${r.kind}` };
  const ops: OperationSpec[] = [];
  if (r.verbs.includes('list')) {
    ops.push(op('get', 'list', 'list', names, { description: `list or watch objects of kind ${r.kind}`, query: LIST_PARAMS, response: listKindName(r) }));
  }
  if (r.verbs.includes('create')) {
    ops.push(op('post', 'post', 'create', names, {
      description: `create a ${r.kind}`, query: [DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION],
      body: { definition: n.kindDef, contentTypes: WRITE_TYPES }, response: n.kindDef, code: 201,
    }));
  }
  if (r.verbs.includes('deletecollection')) {
    ops.push(op('delete', 'deletecollection', 'deleteCollection', names, {
      description: `delete collection of ${r.kind}`, query: [...DELETE_PARAMS, ...LIST_PARAMS.filter((p) => p.name !== 'watch' && p.name !== 'allowWatchBookmarks')],
      body: { definition: metaName('DeleteOptions'), contentTypes: WRITE_TYPES }, response: metaName('Status'),
    }));
  }
  return ops;
}

function itemOps(r: OpenApiResource, n: Names, verbs: string[], sub: string): OperationSpec[] {
  const scope = r.namespaced ? 'Namespaced' : '';
  const suffix = sub ? sub[0].toUpperCase() + sub.slice(1) : '';
  const names = { ...n, kind: `${scope}${r.kind}${suffix}` };
  const what = sub ? `${sub} of the specified ${r.kind}` : `the specified ${r.kind}`;
  const ops: OperationSpec[] = [];
  if (verbs.includes('get')) ops.push(op('get', 'get', 'read', names, { description: `read ${what}`, response: n.kindDef }));
  if (verbs.includes('update')) {
    ops.push(op('put', 'put', 'replace', names, {
      description: `replace ${what}`, query: [DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION],
      body: { definition: n.kindDef, contentTypes: WRITE_TYPES }, response: n.kindDef,
    }));
  }
  if (verbs.includes('patch')) {
    ops.push(op('patch', 'patch', 'patch', names, {
      description: `partially update ${what}`, query: [DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION, FORCE],
      body: { definition: metaName('Patch'), contentTypes: PATCH_TYPES }, response: n.kindDef,
    }));
  }
  if (verbs.includes('create') && sub) {
    ops.push(op('post', 'post', 'create', names, {
      description: `create ${what}`, query: [DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION],
      body: { definition: n.kindDef, contentTypes: WRITE_TYPES }, response: n.kindDef, code: 201,
    }));
  }
  if (verbs.includes('delete') && !sub) {
    ops.push(op('delete', 'delete', 'delete', names, {
      description: `delete ${what}`, query: DELETE_PARAMS,
      body: { definition: metaName('DeleteOptions'), contentTypes: WRITE_TYPES }, response: metaName('Status'),
    }));
  }
  return ops;
}

/** Every path of one resource in one version: collection, object, subresources, and the all-namespaces list. */
export function resourcePaths(r: OpenApiResource): PathSpec[] {
  const base = r.group === '' ? `/api/${r.version}` : `/apis/${r.group}/${r.version}`;
  const collection = r.namespaced ? `${base}/namespaces/{namespace}/${r.resource}` : `${base}/${r.resource}`;
  const scopeParams: PathSpec['params'] = r.namespaced ? ['namespace'] : [];
  const n: Names = { stem: operationStem(gvkOf(r), r.custom), kind: r.kind, kindDef: kindName(r), gvk: gvkOf(r) };
  const paths: PathSpec[] = [];
  const add = (p: PathSpec): void => {
    if (p.operations.length > 0) paths.push(p);
  };
  add({ path: collection, params: scopeParams, operations: collectionOps(r, n, r.namespaced) });
  add({ path: `${collection}/{name}`, params: [...scopeParams, 'name'], operations: itemOps(r, n, r.verbs, '') });
  for (const s of r.subresources) {
    const subNames = s.kind ? { ...n, kindDef: definitionOfSubresource(r, s.kind), gvk: s.kind } : n;
    add({ path: `${collection}/{name}/${s.name}`, params: [...scopeParams, 'name'], operations: itemOps(r, subNames, s.verbs, s.name) });
  }
  if (r.namespaced && r.verbs.includes('list')) {
    const all = { ...n, kind: `${r.kind}ForAllNamespaces` };
    add({ path: `${base}/${r.resource}`, params: [], operations: [op('get', 'list', 'list', all, { description: `list or watch objects of kind ${r.kind}`, query: LIST_PARAMS, response: listKindName(r) })] });
  }
  return paths;
}

/** A subresource typed by another kind (serviceaccounts/token → TokenRequest) refers to that kind's definition. */
function definitionOfSubresource(r: OpenApiResource, kind: GroupVersionKind): string {
  return kindName({ ...r, group: kind.group, version: kind.version, kind: kind.kind });
}
