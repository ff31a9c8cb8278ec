// Serving /openapi/v2, /openapi/v3 and /openapi/v3/<group version> with kube-apiserver's
// negotiation and caching headers: an ETag on every document, 304 for a matching If-None-Match,
// and, on a v3 document requested with its current `hash`, `Cache-Control: public, immutable`
// (a stale hash is redirected to the current URL).

import type { IncomingMessage, ServerResponse } from 'node:http';
import { errors } from '../http/errors.js';
import { pickMediaType } from './accept.js';
import type { EncodedDocument, OpenApiService } from './openapi-service.js';
import { v3DocumentUrl } from './v3-document.js';

const JSON_TYPE = 'application/json';
/** How kubectl (client-go) asks for the v2 document; the `@` spelling is the legacy one. */
const V2_PROTOBUF = ['application/com.github.proto-openapi.spec.v2@v1.0+protobuf', 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf'];

/**
 * Minimal OpenAPI v2 protobuf Document: only `swagger: "2.0"`. client-go always reads the v2
 * document as protobuf (kubectl's client-side validation and apply patch metadata) and aborts on
 * anything but a 200. It gets a document without definitions, which turns that validation into a
 * no-op and keeps apply on kubectl's compiled-in types: our built-in schemas are partial, so
 * judging manifests by them would do worse. kubectl explains and checks fieldValidation support
 * through the v3 documents. Served as octet-stream: Go cannot parse the `@` media type back.
 */
const V2_PROTOBUF_DOCUMENT = Buffer.from([0x0a, 0x03, 0x32, 0x2e, 0x30]);

/** One year, the lifetime kube-apiserver gives a document pinned by its hash. */
const IMMUTABLE_MS = 365 * 24 * 3600 * 1000;

interface Request {
  req: IncomingMessage;
  res: ServerResponse;
  path: string;
  query: URLSearchParams;
}

function etagMatches(req: IncomingMessage, etag: string): boolean {
  const header = req.headers['if-none-match'];
  if (!header) return false;
  return header.split(',').some((t) => t.trim() === etag || t.trim() === '*');
}

function sendDocument(r: Request, doc: EncodedDocument, extra: Record<string, string>): void {
  const etag = `"${doc.hash}"`;
  const headers = { 'Content-Type': JSON_TYPE, ETag: etag, Vary: 'Accept', ...extra };
  if (etagMatches(r.req, etag)) {
    r.res.writeHead(304, headers);
    r.res.end();
    return;
  }
  r.res.writeHead(200, { ...headers, 'Content-Length': doc.body.length });
  r.res.end(r.req.method === 'HEAD' ? undefined : doc.body);
}

function sendV2Protobuf(r: Request): void {
  r.res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': V2_PROTOBUF_DOCUMENT.length });
  r.res.end(r.req.method === 'HEAD' ? undefined : V2_PROTOBUF_DOCUMENT);
}

function serveV2(service: OpenApiService, r: Request): void {
  const type = pickMediaType(r.req.headers.accept, [JSON_TYPE, ...V2_PROTOBUF]);
  if (!type) throw errors.notAcceptable([JSON_TYPE, ...V2_PROTOBUF]);
  if (type === JSON_TYPE) sendDocument(r, service.v2(), { 'Cache-Control': 'no-cache, private' });
  else sendV2Protobuf(r);
}

function serveV3(service: OpenApiService, r: Request, gvPath: string): void {
  const doc = service.v3(gvPath);
  if (!doc) throw errors.noSuchResource();
  if (!pickMediaType(r.req.headers.accept, [JSON_TYPE])) throw errors.notAcceptable([JSON_TYPE]);
  const hash = r.query.get('hash');
  if (hash === null) {
    sendDocument(r, doc, { 'Cache-Control': 'no-cache, private' });
    return;
  }
  if (hash !== doc.hash) {
    // The document changed since the client read the discovery document: point it at the current one.
    r.res.writeHead(301, { Location: v3DocumentUrl(gvPath, doc.hash), 'Content-Length': 0, 'Cache-Control': 'no-cache, private' });
    r.res.end();
    return;
  }
  sendDocument(r, doc, { 'Cache-Control': 'public, immutable', Expires: new Date(Date.now() + IMMUTABLE_MS).toUTCString() });
}

/**
 * Answers the request if its path is an OpenAPI endpoint (`path` has no trailing slash); returns
 * false otherwise. Throws an ApiError for a bad method, an unknown group version or an Accept it
 * cannot satisfy.
 */
export function serveOpenApi(service: OpenApiService, req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): boolean {
  const r: Request = { req, res, path, query };
  const isV3 = path === '/openapi/v3' || path.startsWith('/openapi/v3/');
  if (path !== '/openapi/v2' && path !== '/swagger-2.0.0.pb-v1' && !isV3) return false;
  if (req.method !== 'GET' && req.method !== 'HEAD') throw errors.methodNotSupported({ group: '', resource: '' }, (req.method ?? '').toLowerCase());
  if (path === '/swagger-2.0.0.pb-v1') sendV2Protobuf(r);
  else if (path === '/openapi/v2') serveV2(service, r);
  else if (path === '/openapi/v3') sendDocument(r, service.v3Discovery(), { 'Cache-Control': 'no-cache, private' });
  else serveV3(service, r, path.slice('/openapi/v3/'.length));
  return true;
}
