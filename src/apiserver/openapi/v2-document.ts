// The Swagger 2.0 document of the whole API (`/openapi/v2`), from the same definitions and
// operations as the v3 documents, rewritten in Swagger 2.0 terms.

import { definitionsOf } from './definitions.js';
import { tagOf } from './names.js';
import { resourcePaths, type OperationSpec, type PathSpec } from './operations.js';
import type { OpenApiInfo, OpenApiResource, Schema } from './types.js';

const V3_REF = '#/components/schemas/';
const V2_REF = '#/definitions/';
/** Keywords Swagger 2.0 schemas do not have (kube-apiserver drops them from custom resource schemas in v2). */
const V3_ONLY = new Set(['nullable', 'oneOf', 'anyOf', 'not']);

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * A schema in Swagger 2.0 form: refs point into `#/definitions/`, a single-ref `allOf` becomes the
 * `$ref` itself, and the keywords Swagger 2.0 lacks go. Only schema-valued keywords are walked, so
 * values such as `default`, `enum` or `example` are copied untouched.
 */
export function toV2Schema(schema: Schema): Schema {
  const out: Schema = {};
  for (const [k, v] of Object.entries(schema)) {
    if (V3_ONLY.has(k)) continue;
    if (k === '$ref' && typeof v === 'string') out[k] = v.startsWith(V3_REF) ? V2_REF + v.slice(V3_REF.length) : v;
    else if (k === 'properties' && isRecord(v)) out[k] = Object.fromEntries(Object.entries(v).map(([p, s]) => [p, isRecord(s) ? toV2Schema(s) : s]));
    else if ((k === 'items' || k === 'additionalProperties') && isRecord(v)) out[k] = toV2Schema(v);
    else if (k === 'allOf' && Array.isArray(v)) out[k] = v.map((s) => (isRecord(s) ? toV2Schema(s) : s));
    else out[k] = v;
  }
  const all = out.allOf;
  if (Array.isArray(all) && all.length === 1 && isRecord(all[0]) && typeof all[0].$ref === 'string' && out.properties === undefined) {
    delete out.allOf;
    return { $ref: all[0].$ref, ...out };
  }
  return out;
}

const PATH_PARAMS: Record<'namespace' | 'name', Schema> = {
  namespace: { name: 'namespace', in: 'path', description: 'object name and auth scope, such as for teams and projects', required: true, type: 'string' },
  name: { name: 'name', in: 'path', description: 'name of the object', required: true, type: 'string' },
};

function operation(o: OperationSpec, tag: string): Schema {
  const parameters: Schema[] = o.query.map((p) => ({ name: p.name, in: 'query', description: p.description, type: p.type }));
  if (o.body) parameters.unshift({ name: 'body', in: 'body', required: o.method !== 'delete', schema: { $ref: V2_REF + o.body.definition } });
  return {
    description: o.description,
    consumes: o.body ? o.body.contentTypes : ['*/*'],
    produces: ['application/json', 'application/yaml'],
    schemes: ['https'],
    tags: [tag],
    operationId: o.operationId,
    ...(parameters.length > 0 ? { parameters } : {}),
    responses: {
      [String(o.code)]: { description: o.code === 201 ? 'Created' : 'OK', schema: { $ref: V2_REF + o.response } },
      401: { description: 'Unauthorized' },
    },
    'x-kubernetes-action': o.action,
    'x-kubernetes-group-version-kind': o.gvk,
  };
}

function pathItem(p: PathSpec, tag: string): Schema {
  const item: Schema = {
    parameters: [...p.params.map((name) => PATH_PARAMS[name]), { name: 'pretty', in: 'query', description: "If 'true', the output is indented.", type: 'string' }],
  };
  for (const o of p.operations) item[o.method] = operation(o, tag);
  return item;
}

/** The Swagger 2.0 document of every resource served. */
export function v2Document(resources: readonly OpenApiResource[], info: OpenApiInfo): Schema {
  const paths: Record<string, Schema> = {};
  for (const r of resources) {
    const tag = tagOf(r.group, r.version, r.custom);
    for (const p of resourcePaths(r)) paths[p.path] = pathItem(p, tag);
  }
  const definitions = Object.fromEntries(Object.entries(definitionsOf(resources)).map(([name, s]) => [name, toV2Schema(s)]));
  return {
    swagger: '2.0',
    info,
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => (a < b ? -1 : 1))),
    definitions,
    securityDefinitions: { BearerToken: { type: 'apiKey', description: 'Bearer Token authentication', name: 'authorization', in: 'header' } },
    security: [{ BearerToken: [] }],
  };
}
