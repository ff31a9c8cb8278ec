// Whole requests: identity, method, path, query, headers and body, composed so that most requests
// are plausible (a patch type with a patch body, a body of the path's kind) and the rest are not.
// Also raw HTTP/1.1 byte streams for the malformed-HTTP property.

import fc from 'fast-check';
import type { CatalogueEntry } from './fuzz-target.js';
import { bodySpecArbitrary, fittingContentType, renderBody, type BodySpec, type Mutation } from './gen-bodies.js';
import { headersArbitrary, headerValue, type GeneratedHeaders } from './gen-headers.js';
import { pathArbitrary, type GeneratedPath } from './gen-paths.js';
import { queryArbitrary } from './gen-query.js';
import type { FuzzRequest } from './http-exchange.js';
import type { IdentityName } from './identities.js';
import { describeRequest } from './report.js';

export interface FuzzCase {
  identity: IdentityName;
  request: FuzzRequest;
  /** What the body generator produced (for reports). */
  bodyKind: BodySpec['kind'] | 'current' | 'merge' | 'strategic' | 'json' | 'apply';
  /** An update: the body is the stored object (read as admin when sent) with these changes. */
  fromCurrent?: { objectPath: string; mutations: Mutation[]; yaml: boolean };
}

export interface RequestContext {
  catalogue: readonly CatalogueEntry[];
  namespaces: readonly string[];
  names: readonly string[];
  csrPem: string;
  cluster: string;
}

const WEIRD_METHODS = ['TRACE', 'PROPFIND', 'PURGE', 'LINK', 'get', 'Patch', 'FOO', 'M-SEARCH', 'QUERY'];

const methodArbitrary: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.constant('GET') },
  { weight: 3, arbitrary: fc.constant('POST') },
  { weight: 2, arbitrary: fc.constant('PUT') },
  { weight: 4, arbitrary: fc.constant('PATCH') },
  { weight: 2, arbitrary: fc.constant('DELETE') },
  { weight: 1, arbitrary: fc.constant('HEAD') },
  { weight: 1, arbitrary: fc.constant('OPTIONS') },
  { weight: 1, arbitrary: fc.constantFrom(...WEIRD_METHODS) },
);

function compose(ctx: RequestContext, identity: IdentityName, method: string, p: GeneratedPath, query: string, h: GeneratedHeaders, spec: BodySpec, coherentType: boolean): FuzzCase {
  const body = renderBody(spec, { catalogue: ctx.catalogue, ...(p.entry ? { entry: p.entry } : {}), namespace: p.namespace ?? 'default', csrPem: ctx.csrPem, cluster: ctx.cluster });
  const headers: Record<string, string> = {};
  if (h.accept !== undefined) headers.accept = h.accept;
  const contentType = coherentType ? fittingContentType(spec, method.toUpperCase()) ?? h.contentType : h.contentType;
  if (contentType !== undefined) headers['content-type'] = contentType;
  for (const [k, v] of h.extra) headers[k] = v;
  const request: FuzzRequest = { method, path: p.path, query, headers, ...(body !== undefined ? { body } : {}) };
  const fc0: FuzzCase = { identity, request, bodyKind: spec.kind };
  // fast-check prints counterexamples with this: the request, with long parts cut.
  Object.defineProperty(fc0, fc.toStringMethod, { value: () => `${identity}: ${describeRequest(request)}`, enumerable: false });
  return fc0;
}

/** Requests as any of `identities`. */
export function requestArbitrary(ctx: RequestContext, identities: readonly IdentityName[], paths?: fc.Arbitrary<GeneratedPath>): fc.Arbitrary<FuzzCase> {
  const pathArb = paths ?? pathArbitrary(ctx);
  return fc.tuple(fc.constantFrom(...identities), methodArbitrary).chain(([identity, method]) =>
    fc.tuple(pathArb, queryArbitrary, headersArbitrary, bodySpecArbitrary(method.toUpperCase()), fc.nat(3)).map(([p, q, h, spec, c]) =>
      compose(ctx, identity, method, p, q, h, spec, c !== 0)));
}

/**
 * Paths aimed at objects that exist: a seed object of a served kind in a seed namespace, or one of
 * its subresources, so that writes and patches reach the update path instead of a 404.
 */
export function existingObjectPaths(ctx: RequestContext, seedNamespaces: readonly string[], seedName: string): fc.Arbitrary<GeneratedPath> {
  const entries = ctx.catalogue.filter((e) => e.verbs.includes('get'));
  return fc.tuple(fc.constantFrom(...entries), fc.constantFrom(...seedNamespaces), fc.option(fc.constantFrom('status', 'approval', 'finalize', 'token'), { freq: 3 }), fc.constantFrom(seedName, seedName, 'cluster1'))
    .map(([e, ns, sub, name]) => {
      const base = e.group ? `/apis/${e.group}/${e.version}` : `/api/${e.version}`;
      const subPath = sub !== null && e.subresources.includes(sub) ? `/${sub}` : '';
      const path = e.namespaced ? `${base}/namespaces/${ns}/${e.resource}/${name}${subPath}` : `${base}/${e.resource}/${name}${subPath}`;
      return { path, entry: e, ...(e.namespaced ? { namespace: ns } : {}) };
    });
}

/** Watch requests: the watch parameter or the legacy prefix, with list options. */
function watchPaths(ctx: RequestContext): fc.Arbitrary<GeneratedPath> {
  const entries = ctx.catalogue.filter((e) => e.verbs.includes('watch'));
  return fc.tuple(fc.constantFrom(...entries), fc.constantFrom(...ctx.namespaces), fc.boolean(), fc.option(fc.constantFrom(...ctx.names), { freq: 3 }))
    .map(([e, ns, legacy, name]) => {
      const base = e.group ? `/apis/${e.group}/${e.version}` : `/api/${e.version}`;
      const w = legacy ? '/watch' : '';
      const nsPart = e.namespaced ? `/namespaces/${ns}` : '';
      return { path: `${base}${w}${nsPart}/${e.resource}${legacy && name !== null ? `/${name}` : ''}`, entry: e, ...(e.namespaced ? { namespace: ns } : {}) };
    });
}

/** `watch=<v>` first, then the generated query: the server treats the request as a watch (or refuses it). */
const WATCH_OPTIONS = ['resourceVersion=0', 'resourceVersion=1', 'allowWatchBookmarks=true', 'timeoutSeconds=1', 'labelSelector=app%3Dfuzz', 'fieldSelector=metadata.name%3Dfuzz-obj', 'sendInitialEvents=true&resourceVersionMatch=NotOlderThan', 'pretty=true'];
const watchQuery: fc.Arbitrary<string> = fc.oneof(
  fc.uniqueArray(fc.constantFrom(...WATCH_OPTIONS), { maxLength: 3 }).map((o) => o.join('&')),
  queryArbitrary,
);

export function watchRequestArbitrary(ctx: RequestContext, identities: readonly IdentityName[]): fc.Arbitrary<FuzzCase> {
  return fc.tuple(fc.constantFrom(...identities), watchPaths(ctx), watchQuery, fc.constantFrom('watch=1', 'watch=true', 'watch', ''), headersArbitrary)
    .map(([identity, p, q, w, h]) => {
      const query = [w, q].filter((s) => s !== '').join('&');
      return compose(ctx, identity, 'GET', p, query, { ...h, extra: h.extra.filter(([k]) => k !== 'connection' && k !== 'upgrade') }, { kind: 'none' }, false);
    });
}

export interface RawCase {
  identity: IdentityName;
  bytes: Buffer;
}

// Not `PRI`: the parser then waits for the rest of the HTTP/2 preface (until the header timeout).
const RAW_METHODS = ['GET', 'POST', 'PATCH', 'DELETE', 'CONNECT', 'FOO', 'get', 'G ET', '', 'OPTIONS', 'TRACE', 'GET\u0000'];
const RAW_TARGETS = ['/api/v1/namespaces/default/configmaps', '/healthz', '*', 'https://localhost/api', '//api//v1', '/api/v1/namespaces/default/configmaps/fuzz-obj', '', 'no-slash', '/%ff%fe', '/a b', '/\u0000', '/' + 'a'.repeat(20000), '/api?watch=1&limit=%zz'];
const RAW_VERSIONS = ['HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', 'HTTP/9.9', 'http/1.1', 'HTTP/1.1 extra', 'FOO', ''];

/** Complete HTTP/1.x messages with broken request lines, headers, framing or bodies. */
export function rawRequestArbitrary(identities: readonly IdentityName[]): fc.Arbitrary<RawCase> {
  const headerLine = fc.oneof(
    { weight: 4, arbitrary: fc.tuple(fc.constantFrom('accept', 'content-type', 'x-a', 'user-agent', 'authorization'), headerValue).map(([k, v]) => `${k}: ${v}`) },
    { weight: 1, arbitrary: fc.constantFrom('no-colon', ' leading-space: x', 'space-before : x', 'a:\u0000', 'x: \u00ff', '\tfolded', ': empty-name', 'transfer-encoding: chunked, gzip', 'transfer-encoding: identity', 'content-length: -1', 'content-length: 1, 2', 'content-length: abc', 'expect: 100-continue', 'expect: fancy', 'upgrade: websocket', 'connection: upgrade', 'host: a', 'host: a\r\nhost: b', 'x-large: ' + 'v'.repeat(20000), 'x-empty:') },
  );
  const composed = fc.record({
    identity: fc.constantFrom(...identities),
    method: fc.constantFrom(...RAW_METHODS),
    target: fc.constantFrom(...RAW_TARGETS),
    version: fc.constantFrom(...RAW_VERSIONS),
    host: fc.constantFrom('host: localhost', ''),
    headers: fc.array(headerLine, { maxLength: 4 }),
    framing: fc.constantFrom('length', 'length', 'chunked', 'chunkedBad', 'both', 'none'),
    body: fc.oneof(fc.constant(''), fc.constant('{"metadata":{"name":"raw"}}'), fc.string({ maxLength: 40 })),
    lineEnd: fc.constantFrom('\r\n', '\r\n', '\n'),
  }).map((r) => {
    const body = Buffer.from(r.body, 'latin1');
    const lines = [`${r.method} ${r.target} ${r.version}`.trimEnd(), ...(r.host ? [r.host] : []), ...r.headers];
    let payload = Buffer.alloc(0);
    if (r.framing === 'length' || r.framing === 'both') lines.push(`content-length: ${body.length}`);
    if (r.framing === 'chunked' || r.framing === 'chunkedBad' || r.framing === 'both') lines.push('transfer-encoding: chunked');
    if (r.framing === 'length') payload = body;
    else if (r.framing === 'chunked' || r.framing === 'both') payload = Buffer.concat([Buffer.from(body.length > 0 ? `${body.length.toString(16)}\r\n` : ''), body, Buffer.from(body.length > 0 ? '\r\n0\r\n\r\n' : '0\r\n\r\n')]);
    else if (r.framing === 'chunkedBad') payload = Buffer.from('zz\r\nabc\r\n0\r\n\r\n');
    const head = Buffer.from(`${lines.join(r.lineEnd)}${r.lineEnd}${r.lineEnd}`, 'latin1');
    const rc: RawCase = { identity: r.identity, bytes: Buffer.concat([head, payload]) };
    return printable(rc);
  });
  const fixed = fc.tuple(fc.constantFrom(...identities), fc.constantFrom(...RAW_FIXED)).map(([identity, text]) => printable({ identity, bytes: Buffer.from(text, 'latin1') }));
  return fc.oneof({ weight: 20, arbitrary: composed }, { weight: 1, arbitrary: fixed });
}

/** Whole messages: the HTTP/2 preface, a TLS record inside TLS, pipelined requests, a bare line. */
const RAW_FIXED = [
  'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n',
  '\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03\r\n\r\n',
  'GET /healthz HTTP/1.1\r\nhost: x\r\n\r\nGET /version HTTP/1.1\r\nhost: x\r\n\r\n',
  '\r\n\r\nGET /healthz HTTP/1.1\r\nhost: x\r\n\r\n',
  'GET /healthz\r\n\r\n',
];

function printable(rc: RawCase): RawCase {
  Object.defineProperty(rc, fc.toStringMethod, { value: () => `${rc.identity}: ${JSON.stringify(rc.bytes.toString('latin1').slice(0, 600))}`, enumerable: false });
  return rc;
}
