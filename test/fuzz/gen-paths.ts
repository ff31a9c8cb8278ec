// Request paths: resource URLs built from the served resources (group, version, namespace, name,
// subresource, watch prefix) and then possibly broken (percent-encodings, dot segments, very long or
// random segments, wrong versions), discovery URLs, the non-resource endpoints, and random paths.
// Paths come out already encoded, as sent on the wire.

import fc from 'fast-check';
import type { CatalogueEntry } from './fuzz-target.js';
import { nameArb } from './gen-values.js';

export interface GeneratedPath {
  path: string;
  /** The resource the path was built for (before any breakage), to pick a fitting body. */
  entry?: CatalogueEntry;
  namespace?: string;
}

export interface PathContext {
  catalogue: readonly CatalogueEntry[];
  namespaces: readonly string[];
  names: readonly string[];
}

const SAFE = 'abcdefghijklmnopqrstuvwxyz0123456789-._~:@!$&\'()*+,;=';
const ESCAPES = ['%2F', '%2f', '%00', '%ff', '%fe', '%ff%fe', '%2e', '%2E%2E', '%25', '%20', '%0a', '%c3%a9', '%e2%80%ae', '%ed%a0%80', '%zz', '%', '%f', '%C0%AF'];

const pctEscape: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...ESCAPES),
  fc.integer({ min: 0, max: 255 }).map((n) => `%${n.toString(16).padStart(2, '0')}`),
);

/** One path segment, encoded. */
const randomSegment: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('api', 'apis', 'v1', 'v2', 'v1beta1', 'watch', 'namespaces', 'status', 'approval', 'finalize', 'token', 'proxy', 'log', 'exec', 'scale', 'binding', 'eviction', 'clientcertificates', '.', '..', '', 'default', 'kube-system') },
  { weight: 3, arbitrary: fc.string({ unit: fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...SAFE) }, { weight: 1, arbitrary: pctEscape }), maxLength: 20 }) },
  // Raw bytes 0x80-0xff: Node sends them as single (invalid UTF-8) bytes.
  { weight: 1, arbitrary: fc.string({ unit: fc.integer({ min: 0x80, max: 0xff }).map((c) => String.fromCharCode(c)), minLength: 1, maxLength: 4 }) },
  { weight: 1, arbitrary: fc.integer({ min: 200, max: 12000 }).map((n) => 'a'.repeat(n)) },
);

/** Percent-encodes every character of a segment (`api` → `%61%70%69`). */
function encodeAll(s: string): string {
  return [...Buffer.from(s, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
}

type Breakage =
  | { kind: 'none' }
  | { kind: 'replace'; at: number; seg: string }
  | { kind: 'insert'; at: number; seg: string }
  | { kind: 'drop'; at: number }
  | { kind: 'encodeAll'; at: number }
  | { kind: 'upper'; at: number }
  | { kind: 'doubleSlash'; at: number }
  | { kind: 'trailingSlash' };

const breakage: fc.Arbitrary<Breakage> = fc.oneof(
  { weight: 10, arbitrary: fc.constant<Breakage>({ kind: 'none' }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('replace' as const), at: fc.nat(8), seg: randomSegment }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('insert' as const), at: fc.nat(8), seg: randomSegment }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('drop' as const), at: fc.nat(8) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('encodeAll' as const), at: fc.nat(8) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('upper' as const), at: fc.nat(8) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('doubleSlash' as const), at: fc.nat(8) }) },
  { weight: 1, arbitrary: fc.constant<Breakage>({ kind: 'trailingSlash' }) },
);

function applyBreakage(segs: string[], b: Breakage): string {
  const s = [...segs];
  const at = (i: number): number => (s.length === 0 ? 0 : i % s.length);
  let suffix = '';
  switch (b.kind) {
    case 'none': break;
    case 'replace': s[at(b.at)] = b.seg; break;
    case 'insert': s.splice(at(b.at), 0, b.seg); break;
    case 'drop': s.splice(at(b.at), 1); break;
    case 'encodeAll': s[at(b.at)] = encodeAll(s[at(b.at)] ?? ''); break;
    case 'upper': s[at(b.at)] = (s[at(b.at)] ?? '').toUpperCase(); break;
    case 'doubleSlash': s.splice(at(b.at), 0, ''); break;
    case 'trailingSlash': suffix = '/'; break;
  }
  return `/${s.join('/')}${suffix}`;
}

function resourcePath(ctx: PathContext): fc.Arbitrary<GeneratedPath> {
  return fc.record({
    entry: fc.constantFrom(...ctx.catalogue),
    version: fc.option(fc.constantFrom('v2', 'v1beta1', 'v1alpha1', 'V1'), { freq: 8 }),
    // One in ten takes the legacy /watch/ prefix.
    watchWeight: fc.nat(9),
    nsMode: fc.constantFrom('fit', 'fit', 'fit', 'fit', 'none', 'always'),
    namespace: fc.constantFrom(...ctx.namespaces),
    name: fc.option(nameArb(ctx.names), { freq: 2 }),
    sub: fc.option(fc.oneof(fc.constantFrom('status', 'approval', 'finalize', 'token', 'scale', 'proxy', 'clientcertificates'), fc.constant('')), { freq: 3 }),
    extra: fc.option(fc.array(randomSegment, { minLength: 1, maxLength: 2 }), { freq: 15 }),
    breakage,
  }).map((r) => {
    const e = r.entry;
    const segs = e.group ? ['apis', e.group, r.version ?? e.version] : ['api', r.version ?? e.version];
    if (r.watchWeight === 0) segs.push('watch');
    const namespaced = r.nsMode === 'always' || (r.nsMode === 'fit' && e.namespaced);
    if (namespaced) segs.push('namespaces', r.namespace);
    segs.push(e.resource);
    if (r.name !== null) {
      segs.push(r.name);
      // Prefer the resource's own subresources; the fixed list adds wrong ones.
      if (r.sub !== null) segs.push(r.sub === '' && e.subresources.length > 0 ? (e.subresources[r.name.length % e.subresources.length] as string) : r.sub);
    }
    if (r.extra) segs.push(...r.extra);
    return { path: applyBreakage(segs, r.breakage), entry: e, ...(namespaced ? { namespace: r.namespace } : {}) };
  });
}

function discoveryPath(ctx: PathContext): fc.Arbitrary<GeneratedPath> {
  const groups = [...new Set(ctx.catalogue.map((e) => e.group).filter((g) => g !== ''))];
  return fc.oneof(
    fc.constantFrom('/api', '/api/', '/apis', '/apis/', '/api/v1', '/api/v1/', '/api/v2', '/apis/nope.example.com', '/apis/nope.example.com/v1'),
    fc.tuple(fc.constantFrom(...groups), fc.option(fc.constantFrom('v1', 'v1beta1', 'v1beta2', 'v1alpha1', 'v2'), { nil: undefined })).map(([g, v]) => (v ? `/apis/${g}/${v}` : `/apis/${g}`)),
  ).map((path) => ({ path }));
}

const NON_RESOURCE = [
  '/', '/healthz', '/healthz/', '/healthz/ping', '/healthz/storage', '/healthz/nope', '/livez', '/livez/ping', '/readyz', '/readyz/bootstrap',
  '/readyz/ping/extra', '/version', '/version/', '/openapi/v2', '/openapi/v3', '/openapi/v3/apis/apps/v1', '/swagger-2.0.0.pb-v1', '/swagger.json',
  '/metrics', '/logs', '/logs/', '/debug/pprof/', '/.well-known/openid-configuration', '/openid/v1/jwks', '/ui', '/favicon.ico',
  '/healthz/%2e%2e/version', '/api/../healthz', '/apis/../../etc/passwd',
];

export function pathArbitrary(ctx: PathContext): fc.Arbitrary<GeneratedPath> {
  return fc.oneof(
    { weight: 12, arbitrary: resourcePath(ctx) },
    { weight: 2, arbitrary: discoveryPath(ctx) },
    { weight: 2, arbitrary: fc.constantFrom(...NON_RESOURCE).map((path) => ({ path })) },
    { weight: 1, arbitrary: fc.array(randomSegment, { maxLength: 7 }).map((segs) => ({ path: `/${segs.join('/')}` })) },
    // Long runs of slashes: linear-time path handling or not.
    {
      weight: 1,
      arbitrary: fc.tuple(fc.integer({ min: 500, max: 20_000 }), fc.constantFrom('/healthz', '/api/v1/namespaces', '/apis', '', 'x')).map(([n, p]) => ({
        path: p.startsWith('/') ? `${p}${'/'.repeat(n)}x` : `${'/'.repeat(n)}${p}`,
      })),
    },
  );
}
