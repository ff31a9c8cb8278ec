// The write verbs of a resource that take an object: create (of objects, of create-only
// subresources such as serviceaccounts/token, and of virtual resources such as the access reviews)
// and update. Each answers once the write is durable.

import type { ServerResponse } from 'node:http';
import type { KubeObject } from '../../api/meta.js';
import { createObject, loadCurrent, updateObject, whenStored } from '../registry/rest-writes.js';
import { builtinSchema } from '../registry/builtin-schemas.js';
import { pruneObject, reportUnknownFields } from '../registry/schema/index.js';
import type { SubresourceDef, VirtualResource } from '../registry/types.js';
import { toWire } from '../registry/versions.js';
import { decodeObjectBody, readBody } from './body.js';
import { errors } from './errors.js';
import { checkTypeMeta, readObject } from './object-body.js';
import { sendObject } from './output.js';
import { fieldValidationOf } from './query-params.js';
import type { ResourceRequest, VerbRequest } from './resource-request.js';
import { sendJson } from './respond.js';
import type { ServerContext } from './server-context.js';

/**
 * Prunes the unknown fields of a create-only request (reviews, TokenRequest) in place with the
 * kind's built-in schema; returns the warnings to send (400 under fieldValidation=Strict).
 */
function pruneCreateOnly(obj: KubeObject, type: { group: string; version: string; kind: string }, q: URLSearchParams): string[] {
  const warnings: string[] = [];
  const schema = builtinSchema(type.group, type.version, type.kind);
  if (schema) reportUnknownFields(pruneObject(schema, obj), fieldValidationOf(q), warnings);
  return warnings;
}

function sendCreated(res: ServerResponse, obj: unknown, warnings: string[]): void {
  if (warnings.length > 0) res.setHeader('Warning', warnings.map((w) => `299 - ${JSON.stringify(w)}`));
  sendJson(res, 201, obj);
}

/** A POST to a virtual resource: answered by the resource, nothing is stored. */
export async function handleVirtualCreate(ctx: ServerContext, r: ResourceRequest, virtual: VirtualResource): Promise<void> {
  const { info } = r;
  if (info.verb !== 'create' || info.pathName) throw errors.methodNotSupported({ group: info.group, resource: info.resource }, info.verb);
  const buf = await readBody(r.req, ctx.maxBodyBytes);
  const body = decodeObjectBody(buf, r.req.headers['content-type'], { yamlAllowed: true });
  const obj = checkTypeMeta(body, { def: virtual.def, custom: false }, info.version);
  const warnings = pruneCreateOnly(obj, { group: virtual.def.group, version: info.version, kind: virtual.def.kind }, r.query);
  const out = await virtual.create(obj, { user: r.user, namespace: info.namespace, authorizer: ctx.authorizer, store: ctx.store });
  sendCreated(r.res, out, warnings);
}

type CreateOnlySubresource = SubresourceDef & Required<Pick<SubresourceDef, 'create'>>;

function isCreateOnly(sub: SubresourceDef | undefined): sub is CreateOnlySubresource {
  return sub?.mode === 'create' && sub.create !== undefined;
}

/** A POST to a create-only subresource of an object (serviceaccounts/token). */
async function createSubresource(ctx: ServerContext, v: VerbRequest, sub: CreateOnlySubresource): Promise<void> {
  const buf = await readBody(v.req, ctx.maxBodyBytes);
  const body = decodeObjectBody(buf, v.req.headers['content-type'], { yamlAllowed: true });
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw errors.badRequest('the request body must be an object');
  const obj = body as KubeObject;
  const warnings = sub.kind ? pruneCreateOnly(obj, sub.kind, v.query) : [];
  sendCreated(v.res, sub.create({ ...obj, metadata: obj.metadata ?? {} }, { namespace: v.scope.namespace, name: v.name, user: v.user }), warnings);
}

export async function handleCreate(ctx: ServerContext, v: VerbRequest): Promise<void> {
  const sub = v.subresourceDef;
  if (isCreateOnly(sub) && v.name) return createSubresource(ctx, v, sub);
  if (v.subresource) throw errors.methodNotSupported(v.qr, 'create');
  const obj = await readObject({ req: v.req, maxBodyBytes: ctx.maxBodyBytes, served: v.served, version: v.version });
  const result = createObject(ctx.regCtx, v.scope, obj);
  await whenStored(ctx.regCtx, result.object); // acknowledge only once durable (group commit)
  sendObject(v.res, 201, toWire(v.served, v.version, result.object), v.output);
}

export async function handleUpdate(ctx: ServerContext, v: VerbRequest): Promise<void> {
  const obj = await readObject({ req: v.req, maxBodyBytes: ctx.maxBodyBytes, served: v.served, version: v.version });
  const current = loadCurrent(ctx.regCtx, v.scope, v.name);
  const result = updateObject(ctx.regCtx, v.scope, v.name, obj, { subresource: v.subresource, allowEmptyResourceVersion: false }, current);
  await whenStored(ctx.regCtx, result.object);
  sendObject(v.res, 200, toWire(v.served, v.version, result.object), v.output);
}
