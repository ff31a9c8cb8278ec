// Resource requests after authentication and authorization: resolve the resource, check scope and
// verb, decode the body, call the registry, encode the answer.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { apiVersionOf, type KubeObject } from '../../api/meta.js';
import type { UserInfo } from '../pipeline.js';
import type { RequestScope } from '../registry/rest-context.js';
import { deleteObject, type DeleteOptions } from '../registry/rest-deletes.js';
import { getObject, listObjects, openList, parseRv } from '../registry/rest-reads.js';
import { createObject, loadCurrent, updateObject, whenRevisionStored, whenStored } from '../registry/rest-writes.js';
import { builtinSchema } from '../registry/builtin-schemas.js';
import { pruneObject, reportUnknownFields, type FieldValidation } from '../registry/schema/index.js';
import type { ServedResource } from '../registry/types.js';
import { prefixOf, toWire } from '../registry/versions.js';
import { decodeObjectBody, readBody } from './body.js';
import { ApiError, errors } from './errors.js';
import { buildFilter } from './list-filter.js';
import { negotiateOutput } from './negotiate.js';
import { listSourceOf, sendList, sendObject, watchEncoder, type OutputContext } from './output.js';
import { handlePatch } from './patch-route.js';
import { parseBool, type ResourceRequestInfo } from './request-info.js';
import { logWatchEnd } from './request-log.js';
import { sendJson } from './respond.js';
import type { ServerContext } from './server-context.js';
import { serveWatch } from './watch.js';

export interface ResourceRequest {
  req: IncomingMessage;
  res: ServerResponse;
  info: ResourceRequestInfo;
  query: URLSearchParams;
  user: UserInfo;
  requestId: string;
}

function boolParam(q: URLSearchParams, name: string): boolean | undefined {
  try {
    return parseBool(q.get(name), name);
  } catch (err) {
    throw errors.badRequest(err instanceof Error ? err.message : String(err));
  }
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** An integer query parameter; like kube-apiserver, a value that does not fit an int64 is a 400. */
function intParam(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  if (v === null || v === '') return undefined;
  if (!/^[-+]?[0-9]+$/.test(v)) throw errors.badRequest(`invalid value for ${name}: "${v}" is not an integer`);
  const n = BigInt(v);
  if (n < INT64_MIN || n > INT64_MAX) throw errors.badRequest(`invalid value for ${name}: "${v}": value out of range`);
  return Number(n);
}

export function dryRunOf(q: URLSearchParams): boolean {
  const values = q.getAll('dryRun');
  if (values.length === 0) return false;
  for (const v of values) {
    if (v !== 'All') throw errors.badRequest(`dryRun: Unsupported value: "${v}": supported values: "All"`);
  }
  return true;
}

/**
 * Checks apiVersion/kind of a body against the URL. Built-in kinds get them filled in when absent
 * (kube-apiserver decodes into the type the URL names); a custom resource must carry its kind and
 * apiVersion, as kube-apiserver's unstructured decoding requires.
 */
export function checkTypeMeta(body: unknown, served: ServedResource, version: string): KubeObject {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw errors.badRequest('the object provided is unrecognized: the body must be a JSON object');
  }
  const obj = body as KubeObject;
  const expected = apiVersionOf({ group: served.def.group, version });
  if (served.custom) {
    if (obj.kind === undefined || obj.kind === '') {
      const kind = served.def.kind;
      const dataVersion = typeof obj.apiVersion === 'string' && obj.apiVersion !== '' ? (obj.apiVersion.split('/').pop() ?? '') : version;
      throw errors.badRequest(`${kind} in version ${JSON.stringify(dataVersion)} cannot be handled as a ${kind}: Object 'Kind' is missing in '${JSON.stringify(obj)}'`);
    }
    if (obj.apiVersion === undefined || obj.apiVersion === '') {
      throw errors.badRequest(`the API version in the data () does not match the expected API version (${expected})`);
    }
  }
  if (obj.apiVersion !== undefined && obj.apiVersion !== expected) {
    throw errors.badRequest(`the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${expected})`);
  }
  if (obj.kind !== undefined && obj.kind !== served.def.kind) {
    throw errors.badRequest(`the kind in the data (${String(obj.kind)}) does not match the expected kind (${served.def.kind})`);
  }
  if (obj.metadata !== undefined && (typeof obj.metadata !== 'object' || obj.metadata === null || Array.isArray(obj.metadata))) {
    throw errors.badRequest('the object provided is unrecognized: metadata must be an object');
  }
  return { ...obj, apiVersion: expected, kind: served.def.kind, metadata: obj.metadata ?? {} };
}

function watchTimeoutMs(ctx: ServerContext, q: URLSearchParams): number {
  const t = intParam(q, 'timeoutSeconds');
  // As on kube-apiserver, a negative timeout has already expired: the watch ends at once.
  if (t !== undefined && t < 0) return 0;
  if (t !== undefined && t > 0) return t * 1000;
  const min = ctx.timings.minRequestTimeoutMs;
  return min + Math.floor(ctx.random() * min);
}

/** The `fieldValidation` query value; 400 for anything but Ignore, Warn and Strict. */
function fieldValidationOf(q: URLSearchParams): FieldValidation | undefined {
  const fv = q.get('fieldValidation');
  if (fv === null || fv === '') return undefined;
  if (fv !== 'Ignore' && fv !== 'Warn' && fv !== 'Strict') {
    throw errors.badRequest(`fieldValidation: Unsupported value: "${fv}": supported values: "Ignore", "Warn", "Strict"`);
  }
  return fv;
}

/**
 * Prunes the unknown fields of a create-only request (reviews, TokenRequest) in place with the
 * kind's built-in schema; returns the warnings to send (400 under fieldValidation=Strict).
 */
function pruneCreateOnly(obj: KubeObject, type: { group: string; kind: string }, version: string, q: URLSearchParams): string[] {
  const warnings: string[] = [];
  const schema = builtinSchema(type.group, version, type.kind);
  if (schema) reportUnknownFields(pruneObject(schema, obj), fieldValidationOf(q), warnings);
  return warnings;
}

function sendCreated(res: ServerResponse, obj: unknown, warnings: string[]): void {
  if (warnings.length > 0) res.setHeader('Warning', warnings.map((w) => `299 - ${JSON.stringify(w)}`));
  sendJson(res, 201, obj);
}

function parseDeleteOptions(body: unknown, q: URLSearchParams): DeleteOptions {
  const out: DeleteOptions = {};
  if (body !== undefined && body !== null) {
    if (typeof body !== 'object' || Array.isArray(body)) throw errors.badRequest('DeleteOptions must be an object');
    const b = body as Record<string, unknown>;
    if (b.kind !== undefined && b.kind !== 'DeleteOptions') throw errors.badRequest(`the kind in the data (${String(b.kind)}) does not match the expected kind (DeleteOptions)`);
    if (typeof b.preconditions === 'object' && b.preconditions !== null) out.preconditions = b.preconditions as DeleteOptions['preconditions'];
    if (typeof b.propagationPolicy === 'string') out.propagationPolicy = b.propagationPolicy;
    if (typeof b.gracePeriodSeconds === 'number') out.gracePeriodSeconds = b.gracePeriodSeconds;
    if (Array.isArray(b.dryRun)) for (const v of b.dryRun) if (v !== 'All') throw errors.badRequest(`dryRun: Unsupported value: "${String(v)}": supported values: "All"`);
  }
  const pp = q.get('propagationPolicy');
  if (pp) out.propagationPolicy = pp;
  const gp = intParam(q, 'gracePeriodSeconds');
  if (gp !== undefined) out.gracePeriodSeconds = gp;
  if (out.propagationPolicy !== undefined && !['Background', 'Foreground', 'Orphan'].includes(out.propagationPolicy)) {
    throw new ApiError(422, 'Invalid', `DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "${out.propagationPolicy}": supported values: "Foreground", "Background", "Orphan"`, {
      group: 'meta.k8s.io', kind: 'DeleteOptions', causes: [{ reason: 'FieldValueNotSupported', message: `Unsupported value: "${out.propagationPolicy}"`, field: 'propagationPolicy' }],
    });
  }
  return out;
}

async function readObject(ctx: ServerContext, r: ResourceRequest, served: ServedResource, version: string): Promise<KubeObject> {
  const buf = await readBody(r.req, ctx.maxBodyBytes);
  const body = decodeObjectBody(buf, r.req.headers['content-type'], { yamlAllowed: true });
  if (body === undefined) throw errors.badRequest('the request body is empty; an object is required');
  return checkTypeMeta(body, served, version);
}

export async function handleResource(ctx: ServerContext, r: ResourceRequest): Promise<void> {
  const { info, query, res } = r;
  if (info.extraSegments) throw errors.noSuchResource();
  const virtual = ctx.registry.virtual(info.group, info.version, info.resource);
  if (virtual) {
    if (info.verb !== 'create' || info.pathName) throw errors.methodNotSupported({ group: info.group, resource: info.resource }, info.verb);
    const buf = await readBody(r.req, ctx.maxBodyBytes);
    const body = decodeObjectBody(buf, r.req.headers['content-type'], { yamlAllowed: true });
    const obj = checkTypeMeta(body, { def: virtual.def } as ServedResource, info.version);
    const warnings = pruneCreateOnly(obj, virtual.def, info.version, query);
    const out = await virtual.create(obj, { user: r.user, namespace: info.namespace, authorizer: ctx.authorizer, store: ctx.store });
    sendCreated(res, out, warnings);
    return;
  }
  const resolved = ctx.registry.resolve(info.group, info.version, info.resource);
  if (!resolved) throw errors.noSuchResource();
  const { served, version } = resolved;
  const isNamespaceObject = !served.custom && served.def.group === '' && served.def.resource === 'namespaces';
  const namespace = served.def.namespaced ? info.namespace : '';
  if (!served.def.namespaced && info.namespace && !isNamespaceObject) throw errors.noSuchResource();
  const sub = info.subresource;
  const subDef = sub ? served.subresources.find((s) => s.name === sub) : undefined;
  if (sub && !subDef) throw errors.noSuchResource();
  const qr = { group: served.def.group, resource: sub ? `${served.def.resource}/${sub}` : served.def.resource };
  const verbs = subDef ? subDef.verbs : served.def.verbs;
  if (!verbs.includes(info.verb)) throw errors.methodNotSupported(qr, info.verb);
  if (served.def.namespaced && !namespace && !['list', 'watch'].includes(info.verb)) throw errors.noSuchResource();
  const dryRun = dryRunOf(query);
  const fv = fieldValidationOf(query);
  const warnings: string[] = [];
  const scope: RequestScope = {
    user: r.user, served, version, namespace, dryRun, warnings,
    ...(fv ? { fieldValidation: fv } : {}),
  };

  const isList = info.verb === 'list';
  const out: OutputContext = {
    served, version,
    format: negotiateOutput(r.req.headers.accept, { allowTransforms: ['get', 'list', 'watch'].includes(info.verb), list: isList }),
    includeObject: (query.get('includeObject') as OutputContext['includeObject'] | null) ?? 'Metadata',
    now: ctx.regCtx.now(),
    pretty: boolParam(query, 'pretty') ?? false,
    warnings,
  };
  if (!['None', 'Metadata', 'Object'].includes(out.includeObject)) throw errors.badRequest(`includeObject: Unsupported value: "${out.includeObject}"`);
  const reads = { futureWaitMs: ctx.timings.futureWaitMs, sleep: ctx.sleep };
  const name = info.pathName;
  switch (info.verb) {
    case 'get': {
      const obj = await getObject(ctx.regCtx, scope, name, query.get('resourceVersion') ?? undefined, reads);
      await whenStored(ctx.regCtx, obj); // never show a write a power loss could still take back
      sendObject(res, 200, obj, out);
      return;
    }
    case 'list': {
      if (boolParam(query, 'sendInitialEvents') !== undefined) {
        throw new ApiError(422, 'Invalid', 'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list', {
          group: 'meta.k8s.io', kind: 'ListOptions', causes: [{ reason: 'FieldValueForbidden', message: 'Forbidden: sendInitialEvents is forbidden for list', field: 'sendInitialEvents' }],
        });
      }
      const filter = buildFilter(served, { labelSelector: query.get('labelSelector'), fieldSelector: query.get('fieldSelector') });
      const list = await openList(ctx.regCtx, scope, {
        maxBytes: ctx.maxListBytes,
        ...(filter ? { filter } : {}),
        limit: intParam(query, 'limit'),
        continueToken: query.get('continue') || undefined,
        resourceVersion: query.get('resourceVersion') ?? undefined,
        resourceVersionMatch: query.get('resourceVersionMatch') ?? undefined,
        ...reads,
      });
      await whenRevisionStored(ctx.regCtx, list.metadata.resourceVersion);
      await sendList(res, list, out);
      return;
    }
    case 'watch': {
      if (boolParam(query, 'sendInitialEvents') !== undefined) {
        throw new ApiError(422, 'Invalid', 'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled', {
          group: 'meta.k8s.io', kind: 'ListOptions', causes: [{ reason: 'FieldValueForbidden', message: 'Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled', field: 'sendInitialEvents' }],
        });
      }
      if (query.get('resourceVersionMatch')) {
        throw new ApiError(422, 'Invalid', 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided', {
          group: 'meta.k8s.io', kind: 'ListOptions', causes: [{ reason: 'FieldValueForbidden', message: 'Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided', field: 'resourceVersionMatch' }],
        });
      }
      const filter = buildFilter(served, { labelSelector: query.get('labelSelector'), fieldSelector: query.get('fieldSelector'), ...(name ? { pathName: name } : {}) });
      const started = Date.now();
      const w = serveWatch(res, {
        store: ctx.store,
        prefix: prefixOf(served, namespace),
        filter: filter ?? (() => true),
        resourceVersion: parseRv(query.get('resourceVersion') ?? undefined),
        allowBookmarks: boolParam(query, 'allowWatchBookmarks') ?? false,
        timeoutMs: watchTimeoutMs(ctx, query),
        bookmarkIntervalMs: ctx.timings.bookmarkIntervalMs,
        futureWaitMs: ctx.timings.futureWaitMs,
        encoder: watchEncoder(out, ctx.encodeCache),
        log: ctx.log,
        maxBufferedBytes: ctx.maxWatchBufferBytes,
        onEnd: (reason, events) => {
          ctx.watches.delete(w);
          logWatchEnd(ctx.log, { requestId: r.requestId, path: r.req.url ?? '', user: r.user.username, reason, events, durationMs: Date.now() - started });
        },
      });
      ctx.watches.add(w);
      return;
    }
    case 'create': {
      if (sub && subDef?.mode === 'create' && subDef.create && name) {
        const buf = await readBody(r.req, ctx.maxBodyBytes);
        const body = decodeObjectBody(buf, r.req.headers['content-type'], { yamlAllowed: true });
        if (typeof body !== 'object' || body === null || Array.isArray(body)) throw errors.badRequest('the request body must be an object');
        const obj = body as KubeObject;
        const subWarnings = subDef.kind ? pruneCreateOnly(obj, { group: subDef.kind.group, kind: subDef.kind.kind }, subDef.kind.version, query) : [];
        sendCreated(res, subDef.create({ ...obj, metadata: obj.metadata ?? {} }, { namespace, name, user: r.user }), subWarnings);
        return;
      }
      if (sub) throw errors.methodNotSupported(qr, 'create');
      const obj = await readObject(ctx, r, served, version);
      const result = createObject(ctx.regCtx, scope, obj);
      await whenStored(ctx.regCtx, result.object); // acknowledge only once durable (group commit)
      sendObject(res, 201, toWire(served, version, result.object), out);
      return;
    }
    case 'update': {
      const obj = await readObject(ctx, r, served, version);
      const current = loadCurrent(ctx.regCtx, scope, name);
      const result = updateObject(ctx.regCtx, scope, name, obj, { subresource: sub, allowEmptyResourceVersion: false }, current);
      await whenStored(ctx.regCtx, result.object);
      sendObject(res, 200, toWire(served, version, result.object), out);
      return;
    }
    case 'patch': {
      await handlePatch(ctx, { ...r, scope, subresource: sub, output: out });
      return;
    }
    case 'delete': {
      const buf = await readBody(r.req, ctx.maxBodyBytes);
      const body = decodeObjectBody(buf, 'application/json', { yamlAllowed: false });
      const opts = parseDeleteOptions(body, query);
      const result = deleteObject(ctx.regCtx, scope, name, opts);
      await whenStored(ctx.regCtx, result.object);
      if (result.kind === 'pending' || isNamespaceObject) sendObject(res, 200, toWire(served, version, result.object), out);
      else sendJson(res, 200, result.status);
      return;
    }
    case 'deletecollection': {
      const buf = await readBody(r.req, ctx.maxBodyBytes);
      const body = decodeObjectBody(buf, 'application/json', { yamlAllowed: false });
      const opts = parseDeleteOptions(body, query);
      const filter = buildFilter(served, { labelSelector: query.get('labelSelector'), fieldSelector: query.get('fieldSelector') });
      const list = await listObjects(ctx.regCtx, scope, { ...(filter ? { filter } : {}), ...reads });
      const deleted: KubeObject[] = [];
      for (const item of list.items) {
        const itemScope = { ...scope, namespace: item.metadata.namespace ?? '' };
        try {
          const d = deleteObject(ctx.regCtx, itemScope, item.metadata.name ?? '', opts);
          deleted.push(toWire(served, version, d.object));
        } catch (err) {
          if (err instanceof ApiError && err.code === 404) continue;
          throw err;
        }
      }
      await ctx.store.flush();
      await sendList(res, listSourceOf({ ...list, items: deleted }), { ...out, format: out.format.type === 'yaml' ? out.format : { type: 'json' } });
      return;
    }
    default:
      throw errors.methodNotSupported(qr, info.verb);
  }
}
