// The delete verbs of a resource: delete one object, and deletecollection (every object a list
// with the same selectors returns). DeleteOptions come from the body and the query, the query
// winning, as on kube-apiserver.

import type { KubeObject } from '../../api/meta.js';
import { deleteObject, type DeleteOptions } from '../registry/rest-deletes.js';
import { listObjects } from '../registry/rest-reads.js';
import { whenStored } from '../registry/rest-writes.js';
import { toWire } from '../registry/versions.js';
import { decodeObjectBody, readBody } from './body.js';
import { ApiError, errors, fieldErrors } from './errors.js';
import { buildFilter } from './list-filter.js';
import { listSourceOf, sendList, sendObject } from './output.js';
import { boolParam, intParam } from './query-params.js';
import { isNamespaceResource, type VerbRequest } from './resource-request.js';
import { sendJson } from './respond.js';
import type { ServerContext } from './server-context.js';

const PROPAGATION_POLICIES = ['Foreground', 'Background', 'Orphan'];
// kube-apiserver's message lists a nil policy (the default) among the supported values.
const SUPPORTED_POLICIES = [...PROPAGATION_POLICIES, 'nil'];
// Core resources whose delete answers with the deleted object instead of a Status, as their
// kube-apiserver registries do.
const RETURNS_DELETED_OBJECT = new Set(['serviceaccounts', 'pods']);

function parseDeleteOptions(body: unknown, q: URLSearchParams): DeleteOptions {
  const out: DeleteOptions = {};
  if (body !== undefined && body !== null) {
    if (typeof body !== 'object' || Array.isArray(body)) throw errors.badRequest('DeleteOptions must be an object');
    const b = body as Record<string, unknown>;
    if (b.kind !== undefined && b.kind !== 'DeleteOptions') throw errors.badRequest(`the kind in the data (${String(b.kind)}) does not match the expected kind (DeleteOptions)`);
    if (typeof b.preconditions === 'object' && b.preconditions !== null) out.preconditions = b.preconditions as DeleteOptions['preconditions'];
    if (typeof b.propagationPolicy === 'string') out.propagationPolicy = b.propagationPolicy;
    if (typeof b.orphanDependents === 'boolean') out.orphanDependents = b.orphanDependents;
    if (typeof b.gracePeriodSeconds === 'number') out.gracePeriodSeconds = b.gracePeriodSeconds;
    if (Array.isArray(b.dryRun) && b.dryRun.some((v) => v !== 'All')) throw errors.invalidOptions('DeleteOptions', [fieldErrors.notSupported('dryRun', b.dryRun, ['All'])]);
  }
  const pp = q.get('propagationPolicy');
  if (pp) out.propagationPolicy = pp;
  const od = boolParam(q, 'orphanDependents');
  if (od !== undefined) out.orphanDependents = od;
  const gp = intParam(q, 'gracePeriodSeconds');
  if (gp !== undefined) out.gracePeriodSeconds = gp;
  if (out.propagationPolicy !== undefined && out.orphanDependents !== undefined) {
    throw errors.invalidOptions('DeleteOptions', [fieldErrors.invalid('propagationPolicy', out.propagationPolicy, 'orphanDependents and deletionPropagation cannot be both set')]);
  }
  if (out.propagationPolicy !== undefined && !PROPAGATION_POLICIES.includes(out.propagationPolicy)) {
    throw errors.invalidOptions('DeleteOptions', [fieldErrors.notSupported('propagationPolicy', out.propagationPolicy, SUPPORTED_POLICIES)]);
  }
  return out;
}

async function readDeleteOptions(ctx: ServerContext, v: VerbRequest): Promise<DeleteOptions> {
  const buf = await readBody(v.req, ctx.maxBodyBytes);
  // client-go sends DeleteOptions as protobuf when its client speaks protobuf (library-go's
  // controllers do); without a content type the body is JSON, as kubectl and curl send it.
  const contentType = v.req.headers['content-type'];
  return parseDeleteOptions(decodeObjectBody(buf, contentType === undefined || contentType === '' ? 'application/json' : contentType, { yamlAllowed: false }), v.query);
}

export async function handleDelete(ctx: ServerContext, v: VerbRequest): Promise<void> {
  const opts = await readDeleteOptions(ctx, v);
  const result = deleteObject(ctx.regCtx, v.scope, v.name, opts);
  await whenStored(ctx.regCtx, result.object);
  // A namespace answers with itself, as kube-apiserver's namespace registry does.
  // 202 when dependents are still to be deleted at the explicit request of orphanDependents=false.
  const code = result.kind === 'pending' && opts.orphanDependents === false ? 202 : 200;
  const returnsObject = isNamespaceResource(v.served) || (v.served.def.group === '' && RETURNS_DELETED_OBJECT.has(v.served.def.resource));
  if (result.kind === 'pending' || returnsObject) {
    sendObject(v.res, code, toWire(v.served, v.version, result.object), v.output);
    return;
  }
  // A success Status carries no code, as kube-apiserver's does.
  const { code: _code, ...status } = result.status;
  sendJson(v.res, 200, status);
}

export async function handleDeleteCollection(ctx: ServerContext, v: VerbRequest): Promise<void> {
  const opts = await readDeleteOptions(ctx, v);
  const filter = buildFilter(v.served, { labelSelector: v.query.get('labelSelector'), fieldSelector: v.query.get('fieldSelector') });
  const list = await listObjects(ctx.regCtx, v.scope, { ...(filter ? { filter } : {}), futureWaitMs: ctx.timings.futureWaitMs, sleep: ctx.sleep });
  const deleted: KubeObject[] = [];
  for (const item of list.items) {
    const itemScope = { ...v.scope, namespace: item.metadata.namespace ?? '' };
    try {
      const d = deleteObject(ctx.regCtx, itemScope, item.metadata.name ?? '', opts);
      deleted.push(toWire(v.served, v.version, d.object));
    } catch (err) {
      if (err instanceof ApiError && err.code === 404) continue; // deleted meanwhile
      throw err;
    }
  }
  await ctx.store.flush();
  const format = v.output.format.type === 'yaml' ? v.output.format : { type: 'json' as const };
  await sendList(v.res, listSourceOf({ ...list, items: deleted }), { ...v.output, format });
}
