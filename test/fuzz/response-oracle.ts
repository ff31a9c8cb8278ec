// What every answer of the server must look like, whatever the request: a complete response in
// time, never a 5xx for client input (except kube-apiserver's 504 for a resourceVersion from the
// future), a Kubernetes Status with the HTTP code for every error, a Kubernetes object for every
// success, and newline-delimited watch events on a watch stream. Well-known non-JSON endpoints
// (health text, the OpenAPI protobuf) are exempt from the body rules. Pure.

import { parseYaml } from '../../src/util/yaml.js';
import type { FuzzRequest, FuzzResponse, RawResponse } from './http-exchange.js';

export interface Violation {
  /** Class of the violation (groups findings): `no-response`, `server-error`, `bad-status`, ... */
  kind: string;
  detail: string;
}

const WATCH_TYPES = new Set(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']);

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function mediaType(ct: string | string[] | undefined): string {
  return String(ct ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

/** Parses a body by its Content-Type; undefined when it is neither JSON nor YAML or does not parse. */
function parseBody(body: Buffer, contentType: string | string[] | undefined): unknown {
  const mt = mediaType(contentType);
  const text = body.toString('utf8');
  try {
    if (mt === 'application/json') return JSON.parse(text) as unknown;
    if (mt === 'application/yaml') return parseYaml(text);
  } catch {
    return undefined;
  }
  return undefined;
}

/** Problems with a Status that should describe an HTTP `code` failure ([] when fine). */
function statusProblems(v: unknown, code: number): string[] {
  if (!isRecord(v)) return ['body is not a Status object'];
  const out: string[] = [];
  if (v.kind !== 'Status') out.push(`kind ${JSON.stringify(v.kind)}`);
  if (v.apiVersion !== 'v1') out.push(`apiVersion ${JSON.stringify(v.apiVersion)}`);
  if (v.status !== 'Failure') out.push(`status ${JSON.stringify(v.status)}`);
  if (v.code !== code) out.push(`code ${JSON.stringify(v.code)} for HTTP ${code}`);
  if (typeof v.reason !== 'string' || v.reason === '') out.push(`reason ${JSON.stringify(v.reason)}`);
  if (typeof v.message !== 'string') out.push(`message ${JSON.stringify(v.message)}`);
  return out;
}

/** The path as the server's URL parser sees it (dot segments resolved), without trailing slashes. */
function pathOnly(path: string): string {
  let p = path;
  try {
    p = new URL(path, 'https://localhost').pathname;
  } catch {
    // keep it as sent
  }
  let end = p.length;
  while (end > 0 && p[end - 1] === '/') end--; // a loop: /\/+$/ is quadratic on long runs of slashes
  return p.slice(0, end) || '/';
}

const HEALTH = /^\/(healthz|livez|readyz)(\/[^/]+)?$/;
const OPENAPI_V2 = new Set(['/openapi/v2', '/swagger-2.0.0.pb-v1']);

/** kube-apiserver's `/api` document carries a kind but no apiVersion. */
const KINDS_WITHOUT_API_VERSION = new Set(['APIVersions']);

/** JSON documents kube-apiserver serves without kind/apiVersion (root paths, OpenAPI v3, OIDC discovery). */
const KINDLESS_JSON = /^\/$|^\/openapi\/v3(\/.*)?$|^\/\.well-known\/openid-configuration$|^\/openid\/v1\/jwks$/;

/** The endpoint's body family, by the path the server saw (percent-decoding aside). */
function endpointOf(path: string): 'text' | 'openapi' | 'version' | 'kindless' | 'api' {
  const p = pathOnly(path);
  if (HEALTH.test(p) || p === '/metrics') return 'text';
  if (OPENAPI_V2.has(p)) return 'openapi';
  if (p === '/version') return 'version';
  if (KINDLESS_JSON.test(p)) return 'kindless';
  return 'api';
}

function watchLineProblems(body: Buffer): string[] {
  const text = body.toString('utf8');
  const lines = text.split('\n');
  lines.pop(); // the last piece is incomplete (or empty): the stream was cut
  const out: string[] = [];
  for (const line of lines) {
    let ev: unknown;
    try {
      ev = JSON.parse(line);
    } catch {
      out.push(`watch line is not JSON: ${line.slice(0, 120)}`);
      continue;
    }
    if (!isRecord(ev) || typeof ev.type !== 'string' || !WATCH_TYPES.has(ev.type) || !isRecord(ev.object)) {
      out.push(`not a watch event: ${line.slice(0, 120)}`);
      continue;
    }
    if (ev.type === 'ERROR') {
      const code = isRecord(ev.object) && typeof ev.object.code === 'number' ? ev.object.code : 0;
      const p = statusProblems(ev.object, code);
      if (p.length > 0 || code < 400) out.push(`ERROR event without a proper Status: ${p.join(', ')}`);
    } else if (typeof ev.object.kind !== 'string' || typeof ev.object.apiVersion !== 'string') {
      out.push(`watch event object without kind/apiVersion: ${line.slice(0, 120)}`);
    }
  }
  return out;
}

/** GET with a true `watch` parameter (Go ParseBool) or the legacy /watch/ path segment. */
function isWatchRequest(req: FuzzRequest): boolean {
  if (req.method.toUpperCase() !== 'GET') return false;
  let watch: string | null = null;
  try {
    watch = new URLSearchParams(req.query).get('watch');
  } catch {
    watch = null;
  }
  return (watch !== null && ['', '1', 't', 'T', 'true', 'TRUE', 'True'].includes(watch)) || /^\/apis?\/(?:[^/]+\/)?[^/]+\/watch\//.test(req.path);
}

function hasQueryParam(query: string, name: string): boolean {
  try {
    return new URLSearchParams(query).has(name);
  } catch {
    return false;
  }
}

/** A 504 kube-apiserver also answers: a read at a resourceVersion the store has not reached (HEAD: no body to check). */
function isTooLargeResourceVersion(req: FuzzRequest, status: number, body: unknown): boolean {
  const head = req.method.toUpperCase() === 'HEAD';
  return status === 504 && hasQueryParam(req.query, 'resourceVersion') && (head || (isRecord(body) && body.reason === 'Timeout'));
}

/** Top-level fields the body generators add that no served kind defines. */
const UNKNOWN_FIELDS = ['unknownTopLevel', 'unknownBig'];

/** A write with fieldValidation=Strict whose body carries an unknown top-level field must be refused. */
function strictProblems(req: FuzzRequest, status: number): Violation[] {
  if (status >= 300 || !['POST', 'PUT', 'PATCH'].includes(req.method.toUpperCase()) || !req.body) return [];
  let strict = false;
  try {
    strict = new URLSearchParams(req.query).get('fieldValidation') === 'Strict';
  } catch {
    strict = false;
  }
  if (!strict) return [];
  const body = parseBody(req.body, /yaml/.test(req.headers['content-type'] ?? '') ? 'application/yaml' : 'application/json');
  const unknown = isRecord(body) ? UNKNOWN_FIELDS.filter((f) => Object.hasOwn(body, f)) : [];
  return unknown.length > 0 ? [{ kind: 'strict-accepted-unknown-field', detail: `HTTP ${status} for fieldValidation=Strict with unknown field ${unknown.join(', ')}` }] : [];
}

export function checkResponse(req: FuzzRequest, res: FuzzResponse): Violation[] {
  if (res.notSent) return [];
  if (res.status === undefined) {
    return [{ kind: res.timedOut ? 'hang' : 'no-response', detail: res.timedOut ? 'no response before the deadline' : res.error ?? 'connection closed' }];
  }
  const status = res.status;
  const out: Violation[] = [];
  const isHead = req.method.toUpperCase() === 'HEAD';
  if (res.timedOut && !res.truncated) out.push({ kind: 'hang', detail: `HTTP ${status} headers arrived but the body did not complete before the deadline` });
  // A request the server cannot parse gets an error with a body even when it was a HEAD (the server
  // cannot know): the client then sees bytes after the response. Not a server fault.
  else if (res.error && !res.truncated && !(isHead && status >= 400)) out.push({ kind: 'broken-response', detail: `HTTP ${status} then ${res.error}` });
  const parsed = isHead || res.truncated ? undefined : parseBody(res.body, res.headers['content-type']);
  if (status >= 500 && !isTooLargeResourceVersion(req, status, parsed)) {
    const reason = isRecord(parsed) ? `${String(parsed.reason)}: ${String(parsed.message).slice(0, 160)}` : res.body.toString('utf8').slice(0, 160);
    out.push({ kind: 'server-error', detail: `HTTP ${status} ${reason}` });
  }
  if (status < 200 || (status >= 300 && status < 400)) out.push({ kind: 'unexpected-status', detail: `HTTP ${status}` });
  if (isHead || out.some((v) => v.kind === 'hang' || v.kind === 'broken-response')) return out;
  const endpoint = endpointOf(req.path);
  if (status >= 400) {
    if (res.body.length === 0) {
      out.push({ kind: 'bare-error', detail: `HTTP ${status} without a Status body` });
    } else if (parsed === undefined) {
      out.push({ kind: 'bad-status', detail: `HTTP ${status} body is not JSON/YAML (${mediaType(res.headers['content-type']) || 'no content-type'}): ${res.body.toString('utf8').slice(0, 120)}` });
    } else {
      const p = statusProblems(parsed, status);
      if (p.length > 0) out.push({ kind: 'bad-status', detail: `HTTP ${status} Status with ${p.join(', ')}` });
    }
    return out;
  }
  if (status >= 300) return out;
  out.push(...strictProblems(req, status));
  if (endpoint === 'text' || endpoint === 'openapi') return out;
  // A watch that ended by itself (timeoutSeconds) is complete, yet still a stream of events.
  if (res.truncated || (status === 200 && isWatchRequest(req))) {
    for (const d of watchLineProblems(res.body)) out.push({ kind: 'bad-watch-event', detail: d });
    return out;
  }
  if (endpoint === 'version') {
    if (!isRecord(parsed) || typeof parsed.gitVersion !== 'string') out.push({ kind: 'malformed-object', detail: 'version info without gitVersion' });
    return out;
  }
  if (endpoint === 'kindless') {
    if (!isRecord(parsed)) out.push({ kind: 'malformed-object', detail: `HTTP ${status} body is not a JSON object` });
    return out;
  }
  if (!isRecord(parsed)) {
    out.push({ kind: 'malformed-object', detail: `HTTP ${status} body is not a JSON/YAML object (${mediaType(res.headers['content-type']) || 'no content-type'})` });
  } else if (typeof parsed.kind !== 'string' || (typeof parsed.apiVersion !== 'string' && !KINDS_WITHOUT_API_VERSION.has(parsed.kind))) {
    out.push({ kind: 'malformed-object', detail: `HTTP ${status} object without kind/apiVersion: kind=${JSON.stringify(parsed.kind)}` });
  }
  return out;
}

/** Malformed HTTP on a raw connection: answered (not dropped, not left waiting), 4xx with a Status. */
export function checkRawResponse(res: RawResponse): Violation[] {
  if (res.status === undefined) {
    if (res.bytes.length > 0) return [{ kind: 'raw-unparsable', detail: `unparsable answer: ${res.bytes.toString('latin1').slice(0, 120)}` }];
    return [{ kind: res.timedOut ? 'raw-hang' : 'raw-dropped', detail: res.timedOut ? 'no answer before the deadline' : `connection closed without an answer${res.error ? ` (${res.error})` : ''}` }];
  }
  const out: Violation[] = [];
  if (res.status >= 500) out.push({ kind: 'raw-server-error', detail: `HTTP ${res.status}` });
  if (res.status >= 400) {
    const parsed = parseBody(res.body, res.headers['content-type']);
    if (res.body.length === 0) out.push({ kind: 'raw-bare-error', detail: `HTTP ${res.status} without a Status body` });
    else {
      const p = statusProblems(parsed, res.status);
      if (p.length > 0) out.push({ kind: 'raw-bad-status', detail: `HTTP ${res.status}: ${p.join(', ')}` });
    }
  }
  return out;
}
