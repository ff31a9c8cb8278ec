// Resource requests after authentication and authorization: resolve the resource, check scope and
// verb, read the options every verb shares, then hand over to the verb's own handler.

import type { RequestScope } from '../registry/rest-context.js';
import { handleDelete, handleDeleteCollection } from './delete-verbs.js';
import { errors } from './errors.js';
import { fieldManagerOf } from './field-manager.js';
import { negotiateOutput } from './negotiate.js';
import type { OutputContext } from './output.js';
import { handlePatch } from './patch-route.js';
import { boolParam, dryRunOf, fieldValidationOf } from './query-params.js';
import { handleGet, handleList, handleWatch } from './read-verbs.js';
import { isNamespaceResource, type ResourceRequest, type VerbRequest } from './resource-request.js';
import type { ServerContext } from './server-context.js';
import { handleCreate, handleUpdate, handleVirtualCreate } from './write-verbs.js';

type VerbHandler = (ctx: ServerContext, v: VerbRequest) => Promise<void>;

const VERB_HANDLERS: Readonly<Record<string, VerbHandler>> = {
  get: handleGet,
  list: handleList,
  watch: handleWatch,
  create: handleCreate,
  update: handleUpdate,
  patch: handlePatch,
  delete: handleDelete,
  deletecollection: handleDeleteCollection,
};

const INCLUDE_OBJECT = ['None', 'Metadata', 'Object'];

/** How the answer is encoded: the Accept header, and the query options of tables and YAML. */
function outputOf(ctx: ServerContext, r: ResourceRequest, o: Pick<OutputContext, 'served' | 'version' | 'warnings'>): OutputContext {
  const { verb } = r.info;
  const format = negotiateOutput(r.req.headers.accept, { allowTransforms: ['get', 'list', 'watch'].includes(verb), list: verb === 'list' });
  const includeObject = r.query.get('includeObject') ?? 'Metadata';
  const pretty = boolParam(r.query, 'pretty') ?? false;
  if (!INCLUDE_OBJECT.includes(includeObject)) throw errors.badRequest(`includeObject: Unsupported value: "${includeObject}"`);
  return { ...o, format, includeObject: includeObject as OutputContext['includeObject'], now: ctx.regCtx.now(), pretty };
}

export async function handleResource(ctx: ServerContext, r: ResourceRequest): Promise<void> {
  const { info, query } = r;
  if (info.extraSegments) throw errors.noSuchResource();
  const virtual = ctx.registry.virtual(info.group, info.version, info.resource);
  if (virtual) return handleVirtualCreate(ctx, r, virtual);
  const resolved = ctx.registry.resolve(info.group, info.version, info.resource);
  if (!resolved) throw errors.noSuchResource();
  const { served, version } = resolved;
  const namespace = served.def.namespaced ? info.namespace : '';
  if (!served.def.namespaced && info.namespace && !isNamespaceResource(served)) throw errors.noSuchResource();
  const subresource = info.subresource;
  const subresourceDef = subresource ? served.subresources.find((s) => s.name === subresource) : undefined;
  if (subresource && !subresourceDef) throw errors.noSuchResource();
  const qr = { group: served.def.group, resource: subresource ? `${served.def.resource}/${subresource}` : served.def.resource };
  const verbs = subresourceDef ? subresourceDef.verbs : served.def.verbs;
  const handler = VERB_HANDLERS[info.verb];
  if (!verbs.includes(info.verb) || !handler) throw errors.methodNotSupported(qr, info.verb);
  if (served.def.namespaced && !namespace && !['list', 'watch'].includes(info.verb)) throw errors.noSuchResource();
  // POST names a collection (or a subresource such as a token request), never an existing object.
  if (info.verb === 'create' && info.pathName && !subresource) throw errors.methodNotAllowed();
  const dryRun = dryRunOf(query, info.verb);
  const fv = fieldValidationOf(query);
  const warnings: string[] = [];
  const writes = info.verb === 'create' || info.verb === 'update' || info.verb === 'patch';
  const scope: RequestScope = {
    user: r.user, served, version, namespace, dryRun, warnings,
    ...(fv ? { fieldValidation: fv } : {}),
    ...(writes ? { fieldManager: fieldManagerOf(query, r.req.headers['user-agent'], info.verb as 'create' | 'update' | 'patch') } : {}),
  };
  const output = outputOf(ctx, r, { served, version, warnings });
  await handler(ctx, { ...r, served, version, scope, output, name: info.pathName, subresource, subresourceDef, qr });
}
