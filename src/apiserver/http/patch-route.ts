// PATCH: the document maths is src/apiserver/patch/ (applyPatch); the result then goes through
// the update path, where metadata.resourceVersion/uid carried by the patch act as preconditions.
// Server-side apply of a missing object creates it (201).

import { rfc3339 } from '../../api/conditions.js';
import type { KubeObject } from '../../api/meta.js';
import { applyPatch, patchMediaType, APPLY_PATCH, BUILTIN_PATCH_TYPES, CUSTOM_RESOURCE_PATCH_TYPES } from '../patch/index.js';
import type { RequestScope } from '../registry/rest-context.js';
import type { JSONSchemaProps } from '../registry/schema/types.js';
import { createObject, updateObject, whenStored } from '../registry/rest-writes.js';
import { keyOf, toWire } from '../registry/versions.js';
import { readBody } from './body.js';
import { errors } from './errors.js';
import { checkTypeMeta } from './object-body.js';
import { sendObject } from './output.js';
import { boolParam } from './query-params.js';
import type { VerbRequest } from './resource-request.js';
import type { ServerContext } from './server-context.js';

export async function handlePatch(ctx: ServerContext, p: VerbRequest): Promise<void> {
  const { scope, query, name } = p;
  const { served, version } = scope;
  const contentType = p.req.headers['content-type'] ?? '';
  const force = boolParam(query, 'force');
  const body = await readBody(p.req, ctx.maxBodyBytes);
  const current = ctx.store.get(keyOf(served, scope.namespace, name));
  const isApply = patchMediaType(contentType) === APPLY_PATCH;
  if (!current && !isApply) {
    // Refuse an unknown patch type before answering 404, as upstream does.
    applyPatchTypeCheck(contentType, served.custom);
    throw errors.notFound({ group: served.def.group, resource: served.def.resource }, name);
  }
  const schema = served.schemas?.[version] as JSONSchemaProps | undefined;
  const fieldManager = query.get('fieldManager') ?? undefined;
  const patched = applyPatch({
    contentType,
    patch: body,
    current: current ? toWire(served, version, current.object) : undefined,
    isCustomResource: served.custom,
    group: served.def.group,
    kind: served.def.kind,
    apiVersion: served.def.group ? `${served.def.group}/${version}` : version,
    ...(fieldManager !== undefined ? { fieldManager } : {}),
    ...(force !== undefined ? { force } : {}),
    ...(schema ? { schema } : {}),
    now: rfc3339(new Date(ctx.regCtx.now())),
    ...(p.subresource ? { subresource: p.subresource } : {}),
    // The main resource of a kind with /status leaves status alone, so an applier neither sets nor owns it.
    ...(!p.subresource && served.hasStatus ? { ignoredFields: ['status'] } : {}),
  });
  const obj: KubeObject = checkTypeMeta(patched, served, version);
  // Server-side apply has recorded its own entry; every other patch is an Update by the manager.
  const writeScope: RequestScope = { ...scope };
  if (isApply) delete writeScope.fieldManager;
  if (!current) {
    if (p.subresource) throw errors.notFound({ group: served.def.group, resource: served.def.resource }, name);
    if (obj.metadata.name !== undefined && obj.metadata.name !== name) {
      throw errors.badRequest(`the name of the object (${obj.metadata.name}) does not match the name on the URL (${name})`);
    }
    const created = createObject(ctx.regCtx, writeScope, { ...obj, metadata: { ...obj.metadata, name } });
    await whenStored(ctx.regCtx, created.object); // acknowledge only once durable (group commit)
    sendObject(p.res, 201, toWire(served, version, created.object), p.output);
    return;
  }
  const result = updateObject(ctx.regCtx, writeScope, name, obj, { subresource: p.subresource, allowEmptyResourceVersion: true }, current);
  await whenStored(ctx.regCtx, result.object);
  sendObject(p.res, 200, toWire(served, version, result.object), p.output);
}

function applyPatchTypeCheck(contentType: string, custom: boolean): void {
  const accepted = custom ? CUSTOM_RESOURCE_PATCH_TYPES : BUILTIN_PATCH_TYPES;
  if (!accepted.includes(patchMediaType(contentType))) throw errors.unsupportedMediaType(accepted);
}
