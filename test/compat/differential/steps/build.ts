// One-line builders for the steps: each check of the differential test is a call here.
import type { HttpAnswer, HttpStep, NormalisedAnswer } from '../types.js';

type Extra = Partial<Omit<HttpStep, 'kind' | 'name' | 'method' | 'path'>>;

const PATCH_TYPES = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
} as const;

export type PatchKind = keyof typeof PATCH_TYPES;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function field(v: unknown, path: string): unknown {
  let cur = v;
  for (const part of path.split('.')) cur = isRecord(cur) ? cur[part] : undefined;
  return cur;
}

export function str(v: unknown, path: string): string | undefined {
  const f = field(v, path);
  return typeof f === 'string' ? f : undefined;
}

export const get = (name: string, path: string, extra: Extra = {}): HttpStep => ({ kind: 'http', name, method: 'GET', path, ...extra });
export const post = (name: string, path: string, body: unknown, extra: Extra = {}): HttpStep => ({ kind: 'http', name, method: 'POST', path, body, ...extra });
export const put = (name: string, path: string, body: unknown, extra: Extra = {}): HttpStep => ({ kind: 'http', name, method: 'PUT', path, body, ...extra });
export const del = (name: string, path: string, extra: Extra = {}): HttpStep => ({ kind: 'http', name, method: 'DELETE', path, ...extra });
export const patch = (name: string, path: string, type: PatchKind, body: unknown, extra: Extra = {}): HttpStep => ({
  kind: 'http',
  name,
  method: 'PATCH',
  path,
  body,
  contentType: PATCH_TYPES[type],
  ...extra,
});

/** Reads a watch for at most `ms` or `maxEvents` events. */
export const watch = (name: string, path: string, maxEvents: number, ms = 3000, extra: Extra = {}): HttpStep => ({
  kind: 'http',
  name,
  method: 'GET',
  path,
  watch: { ms, maxEvents },
  ...extra,
});

/** Saves metadata.resourceVersion (or another metadata field) of the answer under `key`. */
export const saveMeta = (key: string, metaField = 'resourceVersion'): Record<string, (a: HttpAnswer) => string | undefined> => ({
  [key]: (a) => str(a.body, `metadata.${metaField}`),
});

export const until404 = { until: (a: HttpAnswer): boolean => a.status === 404, timeoutMs: 60_000 };

/**
 * Waits for a new namespace's `kube-root-ca.crt` ConfigMap. kube-controller-manager publishes it a
 * moment after the namespace is created, so a list of the namespace's ConfigMaps taken at once would
 * differ by that item depending on timing, not on behaviour.
 */
export const rootCaPublished = (name: string, namespace: string): HttpStep =>
  get(name, `/api/v1/namespaces/${namespace}/configmaps/kube-root-ca.crt`, {
    until: (a) => a.status === 200,
    timeoutMs: 30_000,
    normalise: (n) => ({ status: n.status, body: null }),
  });

/** Keeps only the status code and the listed fields of the body (for checks about a few fields). */
export function only(...paths: string[]): (n: NormalisedAnswer) => NormalisedAnswer {
  return (n) => ({ status: n.status, body: Object.fromEntries(paths.map((p) => [p, field(n.body, p)])) });
}

/** The names of a list's items, in order (lists whose other fields are not the point). */
export function itemNames(n: NormalisedAnswer): NormalisedAnswer {
  const items = field(n.body, 'items');
  return { status: n.status, body: Array.isArray(items) ? items.map((i) => str(i, 'metadata.name')) : n.body };
}
