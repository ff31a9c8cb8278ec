// Content negotiation: Accept → output format; Content-Type → body/patch type. Pure.

import { errors } from './errors.js';

export type OutputFormat =
  | { type: 'json' }
  | { type: 'yaml' }
  | { type: 'table'; apiVersion: 'meta.k8s.io/v1' | 'meta.k8s.io/v1beta1' }
  | { type: 'partial'; list: boolean };

const ACCEPTED_OUTPUT = ['application/json', 'application/yaml'];
export const ACCEPTED_BODY = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];

interface MediaRange {
  type: string;
  params: Record<string, string>;
  q: number;
}

function parseMediaRanges(header: string): MediaRange[] {
  const out: MediaRange[] = [];
  for (const raw of header.split(',')) {
    const parts = raw.split(';').map((s) => s.trim());
    const type = (parts[0] ?? '').toLowerCase();
    if (!type) continue;
    const params: Record<string, string> = {};
    let q = 1;
    for (const p of parts.slice(1)) {
      const eq = p.indexOf('=');
      if (eq < 0) continue;
      const k = p.slice(0, eq).trim().toLowerCase();
      const v = p.slice(eq + 1).trim().replace(/^"|"$/g, '');
      if (k === 'q') q = Number(v);
      else params[k] = v;
    }
    out.push({ type, params, q: Number.isFinite(q) ? q : 0 });
  }
  return out.filter((m) => m.q > 0).sort((a, b) => b.q - a.q);
}

/**
 * Picks the response format. `list` says whether the response is a list (PartialObjectMetadataList).
 * Table/PartialObjectMetadata are only offered where `allowTransforms` (resource reads and watches).
 */
export function negotiateOutput(accept: string | undefined, opts: { allowTransforms: boolean; list: boolean }): OutputFormat {
  if (!accept || accept.trim() === '') return { type: 'json' };
  for (const m of parseMediaRanges(accept)) {
    if (m.type === 'application/json') {
      const as = m.params['as'];
      if (!as) return { type: 'json' };
      if (!opts.allowTransforms || m.params['g'] !== 'meta.k8s.io') continue;
      if (as === 'Table' && (m.params['v'] === 'v1' || m.params['v'] === 'v1beta1')) {
        return { type: 'table', apiVersion: `meta.k8s.io/${m.params['v']}` };
      }
      if (as === 'PartialObjectMetadata' && m.params['v'] === 'v1' && !opts.list) return { type: 'partial', list: false };
      if (as === 'PartialObjectMetadataList' && m.params['v'] === 'v1' && opts.list) return { type: 'partial', list: true };
      continue;
    }
    if (m.type === 'application/yaml') return { type: 'yaml' };
    if (m.type === '*/*' || m.type === 'application/*') return { type: 'json' };
  }
  throw errors.notAcceptable(ACCEPTED_OUTPUT);
}

export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

/** The bare media type of a Content-Type header (parameters stripped, lower-cased). */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

export function patchTypeOf(contentType: string | undefined): PatchType | undefined {
  switch (mediaType(contentType)) {
    case 'application/json-patch+json': return 'json';
    case 'application/merge-patch+json': return 'merge';
    case 'application/strategic-merge-patch+json': return 'strategic';
    case 'application/apply-patch+yaml': return 'apply';
    default: return undefined;
  }
}
