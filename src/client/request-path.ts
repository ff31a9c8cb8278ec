// Pure URL building for resource requests: core (/api/v1) vs groups (/apis/g/v), namespaced vs
// cluster-scoped collections, objects, subresources and query parameters.

import type { ResourceType } from './types.js';

export interface PathParts {
  namespace?: string | undefined;
  name?: string | undefined;
  subresource?: string | undefined;
}

function groupVersionPrefix(type: { group: string; version: string }): string {
  return type.group === '' ? `/api/${type.version}` : `/apis/${type.group}/${type.version}`;
}

/** Path of a collection, an object or an object's subresource. */
export function resourcePath(type: ResourceType, parts: PathParts = {}): string {
  let p = groupVersionPrefix(type);
  if (type.namespaced && parts.namespace !== undefined && parts.namespace !== '') p += `/namespaces/${encodeURIComponent(parts.namespace)}`;
  p += `/${type.resource}`;
  if (parts.name !== undefined) {
    if (parts.name === '') throw new Error(`${type.resource}: an object name is required`);
    p += `/${encodeURIComponent(parts.name)}`;
    if (parts.subresource) p += `/${parts.subresource}`;
  }
  return p;
}

export type QueryValue = string | number | boolean | undefined;

/** `?a=b&c=d` from the defined entries, in the order given ('' when none). */
export function queryString(params: Record<string, QueryValue>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined) continue;
    q.append(k, String(v));
  }
  const s = q.toString();
  return s ? `?${s}` : '';
}

export const patchContentTypes = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
} as const;
