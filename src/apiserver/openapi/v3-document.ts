// OpenAPI 3.0 documents: one per group version (`/openapi/v3/apis/<group>/<version>`), and the
// discovery document listing them with the hash of each (`/openapi/v3`).

import { definitionsOf } from './definitions.js';
import { ref } from './meta-schemas.js';
import { tagOf } from './names.js';
import { resourcePaths, type OperationSpec, type PathSpec } from './operations.js';
import type { OpenApiInfo, OpenApiResource, Schema } from './types.js';

const RESPONSE_TYPES = ['application/json', 'application/yaml'];

const PATH_PARAMS: Record<'namespace' | 'name', Schema> = {
  namespace: { name: 'namespace', in: 'path', description: 'object name and auth scope, such as for teams and projects', required: true, schema: { type: 'string' } },
  name: { name: 'name', in: 'path', description: 'name of the object', required: true, schema: { type: 'string' } },
};

function operation(o: OperationSpec, tag: string): Schema {
  const content = (types: readonly string[], definition: string): Schema => Object.fromEntries(types.map((t) => [t, { schema: ref(definition) }]));
  return {
    tags: [tag],
    description: o.description,
    operationId: o.operationId,
    ...(o.query.length > 0 ? { parameters: o.query.map((p) => ({ name: p.name, in: 'query', description: p.description, schema: { type: p.type } })) } : {}),
    ...(o.body ? { requestBody: { content: content(o.body.contentTypes, o.body.definition), required: o.method !== 'delete' } } : {}),
    responses: {
      [String(o.code)]: { description: o.code === 201 ? 'Created' : 'OK', content: content(RESPONSE_TYPES, o.response) },
      401: { description: 'Unauthorized' },
    },
    'x-kubernetes-action': o.action,
    'x-kubernetes-group-version-kind': o.gvk,
  };
}

function pathItem(p: PathSpec, tag: string): Schema {
  const item: Schema = {
    parameters: [
      ...p.params.map((name) => PATH_PARAMS[name]),
      { name: 'pretty', in: 'query', description: "If 'true', the output is indented.", schema: { type: 'string' } },
    ],
  };
  for (const o of p.operations) item[o.method] = operation(o, tag);
  return item;
}

/** The OpenAPI 3.0 document of one group version (all `resources` must belong to it). */
export function v3GroupVersionDocument(resources: readonly OpenApiResource[], info: OpenApiInfo): Schema {
  const paths: Record<string, Schema> = {};
  for (const r of resources) {
    const tag = tagOf(r.group, r.version, r.custom);
    for (const p of resourcePaths(r)) paths[p.path] = pathItem(p, tag);
  }
  return {
    openapi: '3.0.0',
    info,
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => (a < b ? -1 : 1))),
    components: {
      schemas: definitionsOf(resources),
      securitySchemes: { BearerToken: { type: 'apiKey', description: 'Bearer Token authentication', name: 'authorization', in: 'header' } },
    },
  };
}

/** The `/openapi/v3` discovery document: each group version path and the URL of its document. */
export function v3DiscoveryDocument(hashes: ReadonlyMap<string, string>): Schema {
  const paths: Record<string, Schema> = {};
  for (const [gvPath, hash] of [...hashes].sort(([a], [b]) => (a < b ? -1 : 1))) {
    paths[gvPath] = { serverRelativeURL: v3DocumentUrl(gvPath, hash) };
  }
  return { paths };
}

/** Where a group version's document is served, pinned to one content hash. */
export function v3DocumentUrl(gvPath: string, hash: string): string {
  return `/openapi/v3/${gvPath}?hash=${hash}`;
}
