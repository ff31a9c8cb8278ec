// Request bodies of every content type and patch type: valid objects of the real kinds (from the
// templates) and mutated ones (wrong types, unknown fields, forbidden metadata, strings that make a
// backtracking pattern explode), arbitrary JSON, deep nesting, huge strings within the 3 MiB limit,
// JSON patches with odd pointers, merge and strategic-merge patches with directives ($patch,
// $retainKeys, $setElementOrder, $deleteFromPrimitiveList) and prototype keys, server-side apply
// YAML, hostile YAML (aliases, tags, deep flow collections), raw bytes and DeleteOptions.
// A body is described by a `BodySpec` (what fast-check generates and shrinks) and rendered by
// `renderBody` once the path (hence the kind) is known.

import fc from 'fast-check';
import { toYaml } from '../../src/util/yaml.js';
import type { CatalogueEntry } from './fuzz-target.js';
import { dnsLabel, intText, oddString } from './gen-values.js';
import { templateFor } from './templates.js';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

export type Mutation =
  | { op: 'set'; path: string[]; value: Json }
  | { op: 'delete'; path: string[] };

export type BodySpec =
  | { kind: 'none' }
  | { kind: 'object'; entryIndex: number; name: string; mutations: Mutation[]; yaml: boolean }
  | { kind: 'json'; value: Json }
  | { kind: 'deep'; depth: number; shape: 'array' | 'object' | 'yamlFlow' | 'inMetadata' }
  | { kind: 'huge'; entryIndex: number; size: number; where: 'data' | 'unknownTop' | 'label' | 'annotation' | 'name' }
  | { kind: 'jsonPatch'; ops: Json[] }
  | { kind: 'mergePatch'; text: string }
  | { kind: 'strategic'; text: string }
  | { kind: 'apply'; entryIndex: number; name: string; mutations: Mutation[]; json: boolean }
  | { kind: 'yamlText'; text: string }
  | { kind: 'bytes'; bytes: number[] }
  | { kind: 'deleteOptions'; value: Json };

const BODY_MAX = 3 * 1024 * 1024;

/** Strings that take a backtracking engine exponential time on `^(a+)+$` (0.1 to 1 s in V8's RegExp). */
const backtrackingInput = fc.integer({ min: 20, max: 26 }).map((n) => `${'a'.repeat(n)}!`);

const jsonValue: fc.Arbitrary<Json> = fc.oneof(
  { weight: 6, arbitrary: fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json> },
  { weight: 2, arbitrary: fc.constantFrom<Json>(null, '', 0, -1, 1.5, 1e308, -1e308, true, [], {}, 'x'.repeat(300), '2024-01-01T00:00:00Z', 'not-a-date', ['a', 'a'], [{}], [null], { '': '' }) },
  { weight: 2, arbitrary: oddString },
  { weight: 1, arbitrary: backtrackingInput },
);

/** Where mutations land: fields every kind has, and the fields that matter for the served kinds. */
const MUTATION_PATHS: string[][] = [
  ['kind'], ['apiVersion'], ['metadata'], ['metadata', 'name'], ['metadata', 'namespace'], ['metadata', 'generateName'], ['metadata', 'resourceVersion'],
  ['metadata', 'uid'], ['metadata', 'labels'], ['metadata', 'annotations'], ['metadata', 'finalizers'], ['metadata', 'ownerReferences'],
  ['metadata', 'managedFields'], ['metadata', 'deletionTimestamp'], ['metadata', 'creationTimestamp'], ['metadata', 'deletionGracePeriodSeconds'],
  ['metadata', 'generation'], ['metadata', 'selfLink'], ['spec'], ['status'], ['data'], ['stringData'], ['binaryData'], ['type'], ['rules'],
  ['subjects'], ['roleRef'], ['roleRef', 'name'], ['aggregationRule'], ['spec', 'hubAcceptsClient'], ['spec', 'request'], ['spec', 'signerName'],
  ['spec', 'usages'], ['spec', 'expirationSeconds'], ['spec', 'username'], ['spec', 'groups'], ['spec', 'code'], ['spec', 'size'], ['spec', 'items'],
  ['spec', 'tags'], ['spec', 'free'], ['status', 'conditions'], ['status', 'certificate'], ['status', 'phase'], ['spec', 'taints'],
  ['spec', 'leaseDurationSeconds'], ['spec', 'holderIdentity'], ['spec', 'renewTime'], ['spec', 'clusterSet'], ['spec', 'managedClusterClientConfigs'],
  ['spec', 'finalizers'], ['spec', 'user'], ['spec', 'resourceAttributes'], ['spec', 'audiences'], ['spec', 'versions'], ['spec', 'names'],
  ['spec', 'group'], ['spec', 'scope'], ['unknownTopLevel'], ['spec', 'unknownNested'],
];

const labelKey = fc.oneof(fc.constantFrom('app', 'a/b', 'example.com/x', 'open-cluster-management.io/cluster-name', 'cluster.open-cluster-management.io/clusterset', 'kubernetes.io/x', '', 'a b', 'x'.repeat(70)), dnsLabel);

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ op: fc.constant('set' as const), path: fc.constantFrom(...MUTATION_PATHS), value: jsonValue }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('delete' as const), path: fc.constantFrom(...MUTATION_PATHS) }) },
  {
    weight: 2,
    arbitrary: fc.record({ op: fc.constant('set' as const), path: fc.tuple(fc.constantFrom('labels', 'annotations'), labelKey).map(([m, k]) => ['metadata', m, k]), value: jsonValue }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('set' as const), path: fc.constant<string[]>(['spec', 'code']), value: backtrackingInput as fc.Arbitrary<Json> }) },
);

const bodyName = fc.oneof({ weight: 4, arbitrary: fc.constantFrom('fuzz-obj', 'cluster1', 'fuzz-new') }, { weight: 2, arbitrary: dnsLabel }, { weight: 1, arbitrary: oddString });

const POINTERS = [
  '', '/', '/metadata', '/metadata/labels', '/metadata/labels/a~1b', '/metadata/labels/~2', '/metadata/labels/~', '/metadata/annotations/x', '/metadata/name',
  '/metadata/namespace', '/metadata/resourceVersion', '/metadata/uid', '/metadata/finalizers', '/metadata/finalizers/-', '/metadata/finalizers/0',
  '/metadata/finalizers/999999999', '/metadata/finalizers/01', '/metadata/finalizers/-1', '/spec', '/spec/hubAcceptsClient', '/data', '/data/key',
  '/rules/0/verbs/-', '/rules/-', '/subjects/0/name', '/spec/items/0', '/spec/tags/-', '/spec/code', '/status', '/status/conditions/-', '/kind',
  '/apiVersion', '/a/b/c/d', '-', 'metadata', '/metadata/labels/' + 'x'.repeat(1000), '/__proto__/polluted', '/constructor/prototype/polluted',
  '/metadata/__proto__/polluted',
];
const pointer = fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...POINTERS) }, { weight: 1, arbitrary: fc.string({ maxLength: 20 }).map((s) => `/${s}`) });

const jsonPatchOp: fc.Arbitrary<Json> = fc.record({
  op: fc.constantFrom<Json>('add', 'add', 'remove', 'replace', 'replace', 'move', 'copy', 'test', 'bogus', '', 5),
  path: fc.oneof({ weight: 8, arbitrary: pointer as fc.Arbitrary<Json> }, { weight: 1, arbitrary: jsonValue }),
  from: pointer,
  value: jsonValue,
}, { requiredKeys: ['op'] });

/** Objects as JSON text, including keys that reach prototypes when merged naively. */
const PROTO_PATCHES = [
  '{"__proto__":{"polluted":"yes"}}', '{"metadata":{"__proto__":{"polluted":"yes"}}}', '{"constructor":{"prototype":{"polluted":"yes"}}}',
  '{"metadata":{"labels":{"__proto__":"x"}}}',
];

const mergePatchText: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.array(mutation, { maxLength: 4 }).map((ms) => JSON.stringify(applyMutations({}, ms))) },
  { weight: 2, arbitrary: fc.constantFrom('{"metadata":{"labels":{"app":null,"x":"y"}}}', '{"spec":null}', '{"metadata":null}', '{"metadata":{"name":"renamed"}}', '{"metadata":{"resourceVersion":"1"}}', '{"metadata":{"uid":"x"}}', '{"metadata":{"finalizers":["fuzz.example.com/f"]}}', '{"spec":{"hubAcceptsClient":true}}', '{"status":{"conditions":[{"type":"Approved","status":"True"}]}}', 'null', '[]', '"x"', '{}', ...PROTO_PATCHES) },
  { weight: 1, arbitrary: jsonValue.map((v) => JSON.stringify(v)) },
);

const STRATEGIC = [
  '{"$patch":"delete"}', '{"$patch":"replace"}', '{"$patch":"merge"}', '{"$patch":"bogus"}', '{"metadata":{"$patch":"delete"}}', '{"metadata":{"labels":{"$patch":"replace"}}}',
  '{"$retainKeys":["metadata"]}', '{"spec":{"$retainKeys":["x"],"x":1}}', '{"$setElementOrder/rules":[{"apiGroups":[""]}]}', '{"$setElementOrder/finalizers":["a","b"]}',
  '{"$deleteFromPrimitiveList/finalizers":["x"]}', '{"metadata":{"$deleteFromPrimitiveList/finalizers":["fuzz.example.com/f"]}}', '{"metadata":{"finalizers":[{"$patch":"delete"}]}}',
  '{"subjects":[{"name":"fuzz-team","$patch":"delete"}]}', '{"rules":[{"$patch":"replace"}]}', '{"spec":{"items":[{"name":"one","$patch":"delete"}]}}',
  '{"spec":{"containers":[{"name":"c","image":"x"}]}}', '{"spec":{"template":{"spec":{"containers":[{"$patch":"delete","name":"c"}]}}}}',
  '{"$setElementOrder/spec":5}', '{"$patch":5}', '{"status":{"conditions":[{"type":"x","$patch":"delete"}]}}', ...PROTO_PATCHES,
];
const strategicText: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...STRATEGIC) },
  { weight: 2, arbitrary: mergePatchText },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...STRATEGIC), fc.constantFrom(...STRATEGIC)).map(([a, b]) => JSON.stringify({ ...JSON.parse(a), ...JSON.parse(b) })) },
);

function aliasBomb(levels: number): string {
  const lines = ['a0: &a0 ["x","x","x","x","x","x","x","x","x"]'];
  for (let i = 1; i < levels; i++) lines.push(`a${i}: &a${i} [${Array.from({ length: 9 }, () => `*a${i - 1}`).join(',')}]`);
  return lines.join('\n') + '\n';
}

const yamlText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    'a: &a [*a]\n', aliasBomb(4), aliasBomb(9), 'data: !!binary AAAA\n', 'x: !!js/function "function(){}"\n', '---\n---\n', 'kind: ConfigMap\nkind: Secret\n',
    '? complex\n: key\n', '%YAML 1.1\n---\nmetadata: {name: y}\n', 'metadata: !!int "x"\n', 'spec: {size: 0x1F}\n', 'spec: {size: 1e1000}\n', '\ufeffmetadata: {name: bom}\n',
    'metadata:\n\tname: tab\n', 'a: b\n  c: d\n', '!!python/object:os.system ["ls"]\n', 'metadata: {name: x}\n...\nmore\n', '<<: *undefined\n', '{"a":1}\n---\n{"b":2}\n',
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fuzz-obj\n  <<: {namespace: other}\n',
  ),
  fc.integer({ min: 100, max: 50_000 }).map((n) => `${'['.repeat(n)}${']'.repeat(n)}\n`),
  fc.integer({ min: 100, max: 20_000 }).map((n) => `${'- '.repeat(n)}x\n`),
  fc.string({ maxLength: 60 }),
);

const deleteOptions: fc.Arbitrary<Json> = fc.record({
  kind: fc.constantFrom<Json>('DeleteOptions', 'Status', ''),
  apiVersion: fc.constantFrom<Json>('v1', 'meta.k8s.io/v1', 'x/v9'),
  propagationPolicy: fc.constantFrom<Json>('Background', 'Foreground', 'Orphan', 'Later', 5, null),
  gracePeriodSeconds: fc.oneof(fc.integer({ min: -5, max: 100 }) as fc.Arbitrary<Json>, fc.constantFrom<Json>(1e20, 'x', -1e20, 1.5)),
  preconditions: fc.record({ uid: oddString as fc.Arbitrary<Json>, resourceVersion: fc.oneof(intText, oddString) as fc.Arbitrary<Json> }, { requiredKeys: [] }),
  dryRun: fc.constantFrom<Json>(['All'], ['x'], 'All', []),
  orphanDependents: fc.constantFrom<Json>(true, false, 'yes'),
}, { requiredKeys: [] });

export function bodySpecArbitrary(method: string): fc.Arbitrary<BodySpec> {
  const entryIndex = fc.nat(1000);
  const object = fc.record({ kind: fc.constant('object' as const), entryIndex, name: bodyName, mutations: fc.array(mutation, { maxLength: 3 }), yaml: fc.boolean() });
  const apply = fc.record({ kind: fc.constant('apply' as const), entryIndex, name: bodyName, mutations: fc.array(mutation, { maxLength: 2 }), json: fc.boolean() });
  const kinds = {
    none: fc.constant<BodySpec>({ kind: 'none' }),
    object,
    json: fc.record({ kind: fc.constant('json' as const), value: jsonValue }),
    deep: fc.record({ kind: fc.constant('deep' as const), depth: fc.oneof(fc.integer({ min: 10, max: 3000 }), fc.integer({ min: 3000, max: 400_000 })), shape: fc.constantFrom('array' as const, 'object' as const, 'yamlFlow' as const, 'inMetadata' as const) }),
    huge: fc.record({ kind: fc.constant('huge' as const), entryIndex, size: fc.oneof(fc.integer({ min: 64 * 1024, max: BODY_MAX - 4096 }), fc.integer({ min: BODY_MAX - 64, max: BODY_MAX + 64 })), where: fc.constantFrom('data' as const, 'unknownTop' as const, 'label' as const, 'annotation' as const, 'name' as const) }),
    jsonPatch: fc.record({ kind: fc.constant('jsonPatch' as const), ops: fc.array(jsonPatchOp, { maxLength: 5 }) }),
    mergePatch: fc.record({ kind: fc.constant('mergePatch' as const), text: mergePatchText }),
    strategic: fc.record({ kind: fc.constant('strategic' as const), text: strategicText }),
    apply,
    yamlText: fc.record({ kind: fc.constant('yamlText' as const), text: yamlText }),
    bytes: fc.record({ kind: fc.constant('bytes' as const), bytes: fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 64 }) }),
    deleteOptions: fc.record({ kind: fc.constant('deleteOptions' as const), value: deleteOptions }),
  };
  const w = (arbitrary: fc.Arbitrary<BodySpec>, weight: number): fc.WeightedArbitrary<BodySpec> => ({ arbitrary, weight });
  switch (method) {
    case 'POST': case 'PUT':
      return fc.oneof(w(kinds.object, 12), w(kinds.apply, 1), w(kinds.json, 2), w(kinds.deep, 1), w(kinds.huge, 1), w(kinds.yamlText, 1), w(kinds.bytes, 1), w(kinds.none, 1), w(kinds.mergePatch, 1));
    case 'PATCH':
      return fc.oneof(w(kinds.jsonPatch, 4), w(kinds.mergePatch, 4), w(kinds.strategic, 4), w(kinds.apply, 4), w(kinds.object, 1), w(kinds.json, 1), w(kinds.deep, 1), w(kinds.huge, 1), w(kinds.yamlText, 1), w(kinds.bytes, 1), w(kinds.none, 1));
    case 'DELETE':
      return fc.oneof(w(kinds.none, 4), w(kinds.deleteOptions, 4), w(kinds.json, 1), w(kinds.deep, 1), w(kinds.bytes, 1));
    default:
      return fc.oneof(w(kinds.none, 8), w(kinds.object, 1), w(kinds.json, 1), w(kinds.deep, 1));
  }
}

function setPath(obj: Record<string, unknown>, path: string[], value: unknown): void {
  let cur: Record<string, unknown> = obj;
  for (const k of path.slice(0, -1)) {
    const next = cur[k];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) cur[k] = {};
    cur = cur[k] as Record<string, unknown>;
  }
  const last = path[path.length - 1] as string;
  Object.defineProperty(cur, last, { value, enumerable: true, writable: true, configurable: true });
}

function deletePath(obj: Record<string, unknown>, path: string[]): void {
  let cur: unknown = obj;
  for (const k of path.slice(0, -1)) {
    if (typeof cur !== 'object' || cur === null) return;
    cur = (cur as Record<string, unknown>)[k];
  }
  if (typeof cur === 'object' && cur !== null) delete (cur as Record<string, unknown>)[path[path.length - 1] as string];
}

export function applyMutations(base: Record<string, unknown>, ms: readonly Mutation[]): Record<string, unknown> {
  const obj = structuredClone(base);
  for (const m of ms) {
    if (m.op === 'set') setPath(obj, m.path, m.value);
    else deletePath(obj, m.path);
  }
  return obj;
}

export interface RenderContext {
  catalogue: readonly CatalogueEntry[];
  /** The resource the path names, when it names one. */
  entry?: CatalogueEntry;
  namespace: string;
  csrPem: string;
  cluster: string;
}

function objectFor(rc: RenderContext, entryIndex: number, name: string): Record<string, unknown> {
  const e = rc.entry ?? (rc.catalogue[entryIndex % rc.catalogue.length] as CatalogueEntry);
  const apiVersion = e.group ? `${e.group}/${e.version}` : e.version;
  return templateFor(e.kind, apiVersion, { namespace: rc.namespace, name, csrPem: rc.csrPem, cluster: rc.cluster }, e.namespaced) as unknown as Record<string, unknown>;
}

function deepText(depth: number, shape: 'array' | 'object' | 'yamlFlow' | 'inMetadata', rc: RenderContext): string {
  if (shape === 'array' || shape === 'yamlFlow') return `${'['.repeat(depth)}${']'.repeat(depth)}`;
  const nested = `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
  if (shape === 'object') return nested;
  const base = JSON.stringify(objectFor(rc, 0, 'fuzz-deep'));
  return base.replace(/^\{/, `{"spec":{"free":${nested}},"deep":${nested},`);
}

/** The bytes of a body spec for this request, or undefined for no body. */
export function renderBody(spec: BodySpec, rc: RenderContext): Buffer | undefined {
  switch (spec.kind) {
    case 'none': return undefined;
    case 'object': {
      const obj = applyMutations(objectFor(rc, spec.entryIndex, spec.name), spec.mutations);
      return Buffer.from(spec.yaml ? toYaml(obj) : JSON.stringify(obj));
    }
    case 'apply': {
      const obj = applyMutations(objectFor(rc, spec.entryIndex, spec.name), spec.mutations);
      return Buffer.from(spec.json ? JSON.stringify(obj) : toYaml(obj));
    }
    case 'json': return Buffer.from(JSON.stringify(spec.value) ?? 'null');
    case 'deep': return Buffer.from(deepText(spec.depth, spec.shape, rc));
    case 'huge': {
      const obj = objectFor(rc, spec.entryIndex, 'fuzz-huge');
      const overhead = Buffer.byteLength(JSON.stringify(obj)) + 64;
      const big = 'h'.repeat(Math.max(1, spec.size - overhead));
      const meta = obj.metadata as Record<string, unknown>;
      if (spec.where === 'data') obj.data = { big };
      else if (spec.where === 'unknownTop') obj.unknownBig = big;
      else if (spec.where === 'label') meta.labels = { big };
      else if (spec.where === 'annotation') meta.annotations = { big };
      else meta.name = big;
      return Buffer.from(JSON.stringify(obj));
    }
    case 'jsonPatch': return Buffer.from(JSON.stringify(spec.ops));
    case 'mergePatch': case 'strategic': case 'yamlText': return Buffer.from(spec.text);
    case 'bytes': return Buffer.from(spec.bytes);
    case 'deleteOptions': return Buffer.from(JSON.stringify(spec.value));
  }
}

/** The Content-Type that fits a body spec (used unless the request deliberately sends another). */
export function fittingContentType(spec: BodySpec, method: string): string | undefined {
  switch (spec.kind) {
    case 'none': return undefined;
    case 'jsonPatch': return 'application/json-patch+json';
    case 'mergePatch': return 'application/merge-patch+json';
    case 'strategic': return 'application/strategic-merge-patch+json';
    case 'apply': return 'application/apply-patch+yaml';
    case 'yamlText': return method === 'PATCH' ? 'application/apply-patch+yaml' : 'application/yaml';
    case 'object': return spec.yaml ? 'application/yaml' : method === 'PATCH' ? 'application/merge-patch+json' : 'application/json';
    default: return method === 'PATCH' ? 'application/merge-patch+json' : 'application/json';
  }
}

