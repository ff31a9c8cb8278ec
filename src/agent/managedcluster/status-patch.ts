// The "status patch" of spoke-agent.md (conventions): compare old and new status semantically; when
// they differ, build a JSON merge patch for the status subresource that carries metadata.uid and
// metadata.resourceVersion (optimistic concurrency) plus the merge-diff of the status. Pure.

import type { KubeObject } from '../../api/meta.js';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Drops undefined/null, empty arrays and empty maps (Go's nil-vs-empty and omitempty), recursively.
 * Returns undefined when nothing is left.
 */
export function normalize(v: unknown): Json | undefined {
  if (v === undefined || v === null) return undefined;
  if (Array.isArray(v)) {
    if (v.length === 0) return undefined;
    // inside lists, keep positions: an absent element becomes an empty object
    return v.map((x) => normalize(x) ?? ({} as Json));
  }
  if (isPlainObject(v)) {
    const out: Record<string, Json> = {};
    for (const k of Object.keys(v)) {
      const n = normalize(v[k]);
      if (n !== undefined) out[k] = n;
    }
    return Object.keys(out).length === 0 ? undefined : out;
  }
  if (typeof v === 'boolean' || typeof v === 'number' || typeof v === 'string') return v;
  return undefined;
}

function jsonEqual(a: Json | undefined, b: Json | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => jsonEqual(x, b[i]));
  }
  if (typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a);
    const kb = Object.keys(b as Record<string, Json>);
    if (ka.length !== kb.length) return false;
    return ka.every((k) => jsonEqual((a as Record<string, Json>)[k], (b as Record<string, Json>)[k]));
  }
  return false;
}

/** Semantic equality: empty and absent lists/maps are equal. */
export function semanticEqual(a: unknown, b: unknown): boolean {
  return jsonEqual(normalize(a), normalize(b));
}

/** RFC 7386 diff: the merge patch that turns `from` into `to` (lists replaced wholesale). */
export function mergeDiff(from: unknown, to: unknown): Json | undefined {
  // a map that normalises to nothing is still a map: diff it key by key
  const a = normalize(from) ?? (isPlainObject(from) ? {} : undefined);
  const b = normalize(to) ?? (isPlainObject(to) ? {} : undefined);
  if (jsonEqual(normalize(a), normalize(b))) return undefined;
  if (b === undefined) return null;
  if (!isPlainObject(a) || !isPlainObject(b)) return b;
  const out: Record<string, Json> = {};
  for (const k of Object.keys(b)) {
    const d = mergeDiff(a[k], b[k]);
    if (d !== undefined) out[k] = d;
  }
  for (const k of Object.keys(a)) if (!(k in b)) out[k] = null;
  return out;
}

/**
 * The merge patch body for the status subresource, or undefined when the statuses are semantically
 * equal (nothing must be sent).
 */
export function buildStatusPatch(old: KubeObject, next: KubeObject): Record<string, unknown> | undefined {
  const diff = mergeDiff(old['status'], next['status']);
  if (diff === undefined) return undefined;
  const meta: Record<string, string> = {};
  if (old.metadata.uid !== undefined) meta['uid'] = old.metadata.uid;
  if (old.metadata.resourceVersion !== undefined) meta['resourceVersion'] = old.metadata.resourceVersion;
  return { metadata: meta, status: diff };
}
