// The request pipeline: authenticate → authorize → route (non-resource endpoints, discovery,
// resources) with one log line per request and every failure answered as a metav1.Status.

import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { forbiddenError } from '../auth/forbidden.js';
import { actAs } from '../auth/impersonation.js';
import {
  apiGroupDoc, apiGroupList, apiResourceList, apiVersions, VERSION_INFO,
} from '../discovery/discovery.js';
import { serveOpenApi } from '../openapi/route.js';
import type { AuthenticationRequest, RequestAttributes, UserInfo } from '../pipeline.js';
import { errors, type ApiError } from './errors.js';
import { serveHealth } from './health.js';
import { headerViews, isHttp2 } from './http-version.js';
import { peerChainOf } from './peer-certificate.js';
import { parseRequestInfo, type RequestInfo } from './request-info.js';
import { logRequest } from './request-log.js';
import { handleResource } from './resource-handler.js';
import { sendJson, sendStatus, toApiError } from './respond.js';
import type { ServerContext } from './server-context.js';
import { trimTrailing } from '../../util/trim-trailing.js';

function authRequest(req: IncomingMessage): AuthenticationRequest {
  // Over HTTP/2 req.socket is a proxy whose properties and methods are the connection's TLS socket's.
  return { headers: req.headers, ...peerChainOf(req.socket as TLSSocket) };
}

function attributesOf(info: RequestInfo, user: UserInfo): RequestAttributes {
  if (info.kind === 'nonResource') {
    return { user, verb: info.verb, resourceRequest: false, path: info.path, apiGroup: '', apiVersion: '', resource: '', subresource: '', namespace: '', name: '' };
  }
  return {
    user, verb: info.verb, resourceRequest: true, path: '', apiGroup: info.group, apiVersion: info.version,
    resource: info.resource, subresource: info.subresource, namespace: info.namespace, name: info.name,
  };
}

function serveNonResource(ctx: ServerContext, req: IncomingMessage, res: ServerResponse, info: RequestInfo & { kind: 'nonResource' }, query: URLSearchParams): void {
  const path = trimTrailing(info.path, '/') || '/';
  if (info.discovery) {
    if (info.verb !== 'get') throw errors.methodNotSupported({ group: '', resource: '' }, info.verb);
    const d = info.discovery;
    let doc: Record<string, unknown> | undefined;
    if (d.prefix === 'api') doc = d.version === undefined ? apiVersions(ctx.serverAddress()) : d.version === 'v1' ? apiResourceList(ctx.registry, '', 'v1') : undefined;
    else if (d.group === undefined) doc = apiGroupList(ctx.registry);
    else if (d.version === undefined) doc = apiGroupDoc(ctx.registry, d.group);
    else doc = apiResourceList(ctx.registry, d.group, d.version);
    if (!doc) throw errors.noSuchResource();
    sendJson(res, 200, doc, { head: req.method === 'HEAD' });
    return;
  }
  if (path === '/version') {
    sendJson(res, 200, VERSION_INFO);
    return;
  }
  if (serveOpenApi(ctx.openapi, req, res, path, query)) return;
  if (serveHealth(path, query, res, ctx.health)) return;
  throw errors.noSuchResource();
}

/** Liveness and readiness probes are never refused for load. */
function isHealthProbe(info: RequestInfo): boolean {
  return info.kind === 'nonResource' && /^\/(healthz|livez|readyz)(\/|$)/.test(info.path);
}

/** Handles one request end to end; never throws. */
export async function handleRequest(ctx: ServerContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const started = performance.now();
  const requestId = randomUUID();
  res.setHeader('Audit-Id', requestId);
  const method = req.method ?? 'GET';
  let path = req.url ?? '/';
  let user: UserInfo | undefined;
  let impersonator: string | undefined;
  let verb: string | undefined;
  let failure: ApiError | undefined;
  try {
    // Joined rather than resolved against a base: a path starting with `//` would otherwise be read
    // as a host name. Anything that still is no origin-form path is a bad request.
    const target = req.url ?? '/';
    let url: URL;
    try {
      if (!target.startsWith('/')) throw new Error('not an origin-form path');
      url = new URL(`https://localhost${target}`);
    } catch {
      throw errors.badRequest(`invalid request path ${JSON.stringify(target.slice(0, 256))}`);
    }
    path = url.pathname;
    const info = parseRequestInfo(method, url.pathname, url.searchParams);
    verb = info.verb;
    const authn = ctx.authenticator.authenticate(authRequest(req));
    if (authn.kind === 'unauthorized') throw errors.unauthorized();
    user = authn.user;
    ({ user, impersonator } = actAs(headerViews(req), authn.user, ctx.authorizer));
    // Counted as the user it acts as, before any work is done for it, as kube-apiserver does.
    if (!isHealthProbe(info)) {
      const refused = ctx.inflight.admit(info.verb, user, res);
      if (refused) throw refused;
    }
    const attrs = attributesOf(info, user);
    const decision = ctx.authorizer.authorize(attrs);
    if (decision.decision !== 'allow') throw forbiddenError(attrs, decision.decision === 'deny' ? decision.reason : '');
    if (info.kind === 'nonResource') serveNonResource(ctx, req, res, info, url.searchParams);
    else await handleResource(ctx, { req, res, info, query: url.searchParams, user, requestId });
  } catch (err) {
    failure = toApiError(err);
    // HTTP/1.1 cannot skip the rest of a body it refuses except by closing; an HTTP/2 stream ends alone.
    if (failure.code === 413 && !isHttp2(res)) res.setHeader('Connection', 'close');
    sendStatus(res, failure);
  }
  const code = failure?.code ?? res.statusCode;
  logRequest(ctx.log, {
    requestId, method, path, code, durationMs: performance.now() - started,
    ...(user ? { user: user.username } : {}), ...(impersonator ? { impersonator } : {}), ...(verb ? { verb } : {}),
    ...(failure ? { reason: failure.reason } : {}),
    ...(failure && failure.code >= 500 ? { err: failure.cause ?? failure } : {}),
  });
}
