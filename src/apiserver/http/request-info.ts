// URL grammar: request info used for routing and for authorization attributes. Pure; a path
// that cannot be decoded is a 400 ApiError.

import { errors } from './errors.js';

export interface ResourceRequestInfo {
  kind: 'resource';
  group: string;
  version: string;
  namespace: string;
  resource: string;
  /** Object name for authorization (from the path, or a metadata.name field selector). */
  name: string;
  /** Object name from the path only ('' for collections). */
  pathName: string;
  subresource: string;
  verb: string;
  /** The path had more segments than the grammar allows. */
  extraSegments: boolean;
}

interface NonResourceRequestInfo {
  kind: 'nonResource';
  path: string;
  verb: string;
  /** Discovery paths (`/api`, `/apis`, `/apis/<g>`, `/api/v1`, `/apis/<g>/<v>`). */
  discovery?: { prefix: 'api' | 'apis'; group?: string; version?: string };
}

export type RequestInfo = ResourceRequestInfo | NonResourceRequestInfo;

const TRUE_VALUES = new Set(['1', 't', 'T', 'true', 'TRUE', 'True']);
const FALSE_VALUES = new Set(['0', 'f', 'F', 'false', 'FALSE', 'False']);

/** Go strconv.ParseBool semantics; undefined for absent, throws on garbage. */
export function parseBool(v: string | null | undefined, name: string): boolean | undefined {
  if (v === null || v === undefined) return undefined;
  if (v === '') return true;
  if (TRUE_VALUES.has(v)) return true;
  if (FALSE_VALUES.has(v)) return false;
  throw new RangeError(`invalid boolean value for ${name}: "${v}"`);
}

function nameFromFieldSelector(sel: string | null): string | undefined {
  if (!sel) return undefined;
  for (const part of sel.split(',')) {
    // The value is trimmed in code: a lazy group followed by \s*$ retried every whitespace run
    // from every position, quadratic in a selector padded with spaces.
    const m = /^\s*metadata\.name\s*==?([\s\S]*)$/.exec(part);
    const value = m?.[1]?.trim();
    if (value !== undefined && !/[\n\r\u2028\u2029]/.test(value)) return value;
  }
  return undefined;
}

/**
 * Percent-decodes one path segment as Go's URL parser does: any escaped byte is accepted, and bytes
 * that are not UTF-8 become U+FFFD (so such names are simply not found); a malformed escape is a 400.
 */
export function decodePathSegment(segment: string): string {
  if (!segment.includes('%')) return segment;
  const parts: Buffer[] = [];
  let i = 0;
  while (i < segment.length) {
    const pct = segment.indexOf('%', i);
    if (pct < 0) {
      parts.push(Buffer.from(segment.slice(i), 'utf8'));
      break;
    }
    if (pct > i) parts.push(Buffer.from(segment.slice(i, pct), 'utf8'));
    const hex = segment.slice(pct + 1, pct + 3);
    if (!/^[0-9a-fA-F]{2}$/.test(hex)) throw errors.badRequest(`invalid URL escape ${JSON.stringify(segment.slice(pct, pct + 3))}`);
    parts.push(Buffer.from([parseInt(hex, 16)]));
    i = pct + 3;
  }
  return Buffer.concat(parts).toString('utf8');
}

export function parseRequestInfo(method: string, pathname: string, query: URLSearchParams): RequestInfo {
  const segs = pathname.split('/').filter((s) => s !== '').map(decodePathSegment);
  const httpVerb = method.toUpperCase();
  const nonResource = (): NonResourceRequestInfo => ({ kind: 'nonResource', path: pathname, verb: httpVerb === 'HEAD' ? 'get' : httpVerb.toLowerCase() });
  if (segs.length === 0 || (segs[0] !== 'api' && segs[0] !== 'apis')) return nonResource();
  const prefix = segs[0] as 'api' | 'apis';
  let i = 1;
  let group = '';
  if (prefix === 'apis') {
    if (segs.length === 1) return { ...nonResource(), discovery: { prefix } };
    group = segs[1] as string;
    i = 2;
    if (segs.length === 2) return { ...nonResource(), discovery: { prefix, group } };
  } else if (segs.length === 1) {
    return { ...nonResource(), discovery: { prefix } };
  }
  const version = segs[i] as string;
  i++;
  if (segs.length === i) return { ...nonResource(), discovery: { prefix, ...(group ? { group } : {}), version } };
  let rest = segs.slice(i);
  let watchPath = false;
  if (rest[0] === 'watch') {
    watchPath = true;
    rest = rest.slice(1);
  }
  let namespace = '';
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    // namespaces/<ns>/<resource>..., except namespaces/<name>/status|finalize (subresources of the namespace)
    if (!(rest.length === 3 && (rest[2] === 'status' || rest[2] === 'finalize'))) {
      namespace = rest[1] as string;
      rest = rest.slice(2);
    }
  }
  const resource = rest[0] ?? '';
  const pathName = rest[1] ?? '';
  let name = pathName;
  const subresource = rest[2] ?? '';
  const extraSegments = rest.length > 3;
  let watchParam = false;
  try {
    watchParam = parseBool(query.get('watch'), 'watch') ?? false;
  } catch {
    watchParam = false;
  }
  let verb: string;
  switch (httpVerb) {
    case 'POST': verb = 'create'; break;
    case 'GET': case 'HEAD':
      verb = watchPath || watchParam ? 'watch' : name ? 'get' : 'list';
      break;
    case 'PUT': verb = 'update'; break;
    case 'PATCH': verb = 'patch'; break;
    case 'DELETE': verb = name ? 'delete' : 'deletecollection'; break;
    default: verb = httpVerb.toLowerCase();
  }
  if ((verb === 'list' || verb === 'watch' || verb === 'deletecollection') && !name) {
    name = nameFromFieldSelector(query.get('fieldSelector')) ?? '';
  }
  // Namespace object itself: /api/v1/namespaces/<name>[/sub]
  if (resource === 'namespaces' && !namespace && group === '' && name) namespace = name;
  return { kind: 'resource', group, version, namespace, resource, name, pathName, subresource, verb, extraSegments };
}

