// The read verbs of a resource: get, list and watch. Each answers only what storage has made
// durable, so a client never sees a write that a power loss could still take back.

import { getObject, openList, parseRv } from '../registry/rest-reads.js';
import { whenRevisionStored, whenStored } from '../registry/rest-writes.js';
import { prefixOf, selectionPrefix } from '../registry/versions.js';
import { errors, fieldErrors } from './errors.js';
import { buildSelection } from './list-filter.js';
import { sendList, sendObject, watchEncoder } from './output.js';
import { boolParam, intParam } from './query-params.js';
import { logWatchEnd } from './request-log.js';
import type { VerbRequest } from './resource-request.js';
import type { ServerContext } from './server-context.js';
import { serveWatch } from './watch.js';

/** How reads wait for a resourceVersion the store has not reached yet. */
function readWaits(ctx: ServerContext): { futureWaitMs: number; sleep: (ms: number) => Promise<void> } {
  return { futureWaitMs: ctx.timings.futureWaitMs, sleep: ctx.sleep };
}

/** sendInitialEvents (the WatchList feature) is refused, with kube-apiserver's reason for `verb`. */
function refuseSendInitialEvents(query: URLSearchParams, reason: string): void {
  if (boolParam(query, 'sendInitialEvents') !== undefined) {
    throw errors.invalidOptions('ListOptions', [fieldErrors.forbidden('sendInitialEvents', `sendInitialEvents is forbidden for ${reason}`)]);
  }
}

export async function handleGet(ctx: ServerContext, v: VerbRequest): Promise<void> {
  const obj = await getObject(ctx.regCtx, v.scope, v.name, v.query.get('resourceVersion') ?? undefined, readWaits(ctx));
  await whenStored(ctx.regCtx, obj);
  sendObject(v.res, 200, obj, v.output);
}

export async function handleList(ctx: ServerContext, v: VerbRequest): Promise<void> {
  const { query } = v;
  refuseSendInitialEvents(query, 'list');
  const sel = buildSelection(v.served, { labelSelector: query.get('labelSelector'), fieldSelector: query.get('fieldSelector') });
  const list = await openList(ctx.regCtx, v.scope, {
    maxBytes: ctx.maxListBytes,
    ...(sel.filter ? { filter: sel.filter, pinned: sel, hints: sel.hints } : {}),
    limit: intParam(query, 'limit'),
    continueToken: query.get('continue') || undefined,
    resourceVersion: query.get('resourceVersion') ?? undefined,
    resourceVersionMatch: query.get('resourceVersionMatch') ?? undefined,
    ...readWaits(ctx),
  });
  await whenRevisionStored(ctx.regCtx, list.metadata.resourceVersion);
  await sendList(v.res, list, v.output);
}

/** The watch's lifetime: timeoutSeconds, else a random time in [min, 2×min) as kube-apiserver does. */
function watchTimeoutMs(ctx: ServerContext, q: URLSearchParams): number {
  const t = intParam(q, 'timeoutSeconds');
  // As on kube-apiserver, a negative timeout has already expired: the watch ends at once.
  if (t !== undefined && t < 0) return 0;
  if (t !== undefined && t > 0) return t * 1000;
  const min = ctx.timings.minRequestTimeoutMs;
  return min + Math.floor(ctx.random() * min);
}

export async function handleWatch(ctx: ServerContext, v: VerbRequest): Promise<void> {
  const { query } = v;
  refuseSendInitialEvents(query, 'watch unless the WatchList feature gate is enabled');
  if (query.get('resourceVersionMatch')) {
    throw errors.invalidOptions('ListOptions', [fieldErrors.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided')]);
  }
  const sel = buildSelection(v.served, {
    labelSelector: query.get('labelSelector'), fieldSelector: query.get('fieldSelector'), ...(v.name ? { pathName: v.name } : {}),
  });
  // A HEAD response has no body, so a stream would never end and the kept-alive connection would be
  // stuck behind it: answer the headers of a watch and stop there.
  if (v.req.method === 'HEAD') {
    v.res.writeHead(200, { 'Content-Type': 'application/json' });
    v.res.end();
    return;
  }
  const started = ctx.regCtx.now();
  const w = serveWatch(v.res, {
    store: ctx.store,
    // A watch on one object (by path or metadata.name) or one namespace subscribes to just that:
    // the store then never offers it the events of every other cluster's objects.
    prefix: sel.filter ? selectionPrefix(v.served, v.scope.namespace, sel) : prefixOf(v.served, v.scope.namespace),
    filter: sel.filter ?? (() => true),
    hints: sel.hints,
    resourceVersion: parseRv(query.get('resourceVersion') ?? undefined),
    allowBookmarks: boolParam(query, 'allowWatchBookmarks') ?? false,
    timeoutMs: watchTimeoutMs(ctx, query),
    bookmarkIntervalMs: ctx.timings.bookmarkIntervalMs,
    futureWaitMs: ctx.timings.futureWaitMs,
    encoder: watchEncoder(v.output, ctx.encodeCache),
    log: ctx.log,
    maxBufferedBytes: ctx.maxWatchBufferBytes,
    onEnd: (reason, events) => {
      ctx.watches.delete(w);
      logWatchEnd(ctx.log, { requestId: v.requestId, path: v.req.url ?? '', user: v.user.username, reason, events, durationMs: ctx.regCtx.now() - started });
    },
  });
  ctx.watches.add(w);
}
