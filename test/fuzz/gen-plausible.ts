// Plausible requests: what a well-behaved client holding an identity's grants would send (the verb
// mapped to its method and URL, a valid body of the right kind with small changes, valid query
// parameters and headers), with the occasional hostile field. They get past validation and
// authorization, so the write paths, admission and the rights check are exercised. An update or
// patch of an existing object starts from the object as stored when the request is sent.

import fc from 'fast-check';
import { toYaml } from '../../src/util/yaml.js';
import type { CatalogueEntry } from './fuzz-target.js';
import { applyMutations, type Mutation } from './gen-bodies.js';
import { dnsLabel, oddString } from './gen-values.js';
import type { Grant } from './grants.js';
import type { FuzzCase } from './gen-requests.js';
import type { FuzzRequest } from './http-exchange.js';
import { AGENT_USER, CLUSTER, type IdentityName } from './identities.js';
import { describeRequest } from './report.js';
import { SEED_NAME, templateFor } from './templates.js';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const CONDITION = { type: 'FuzzCondition', status: 'True', reason: 'Fuzz', message: 'fuzz', lastTransitionTime: '2024-01-01T00:00:00Z' };

const APPROVED = { type: 'Approved', status: 'True', reason: 'FuzzApproved', message: 'fuzz', lastUpdateTime: '2024-01-01T00:00:00Z' };

/** Changes of CSRs: another subject (from `csrRequests`), approval. */
const csrMutation = (csrRequests: readonly string[]): fc.Arbitrary<Mutation> => fc.oneof(
  fc.constantFrom(...csrRequests).map((r): Mutation => ({ op: 'set', path: ['spec', 'request'], value: r })),
  fc.constant<Mutation>({ op: 'set', path: ['status', 'conditions'], value: [APPROVED] }),
);

const mildMutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 4, arbitrary: dnsLabel.map((v): Mutation => ({ op: 'set', path: ['metadata', 'labels', 'fuzz'], value: v })) },
  { weight: 2, arbitrary: fc.string({ maxLength: 30 }).map((v): Mutation => ({ op: 'set', path: ['metadata', 'annotations', 'fuzz.example.com/note'], value: v })) },
  { weight: 2, arbitrary: fc.constant<Mutation>({ op: 'set', path: ['status', 'conditions'], value: [CONDITION] }) },
  { weight: 1, arbitrary: fc.constant<Mutation>({ op: 'delete', path: ['metadata', 'labels', 'app'] }) },
  { weight: 1, arbitrary: fc.constantFrom<Mutation>(
    { op: 'set', path: ['spec', 'hubAcceptsClient'], value: false },
    { op: 'set', path: ['spec', 'holderIdentity'], value: 'fuzz-holder' },
    { op: 'set', path: ['spec', 'leaseDurationSeconds'], value: 30 },
    { op: 'set', path: ['data', 'key'], value: 'changed' },
    { op: 'set', path: ['spec', 'size'], value: 7 },
    { op: 'set', path: ['metadata', 'finalizers'], value: ['fuzz.example.com/hold'] },
    { op: 'set', path: ['metadata', 'ownerReferences'], value: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'x', uid: 'u' }] },
    { op: 'set', path: ['spec', 'taints'], value: [{ key: 'fuzz', effect: 'NoSelect' }] },
    // Refused under fieldValidation=Strict, dropped (with a warning) otherwise.
    { op: 'set', path: ['unknownTopLevel'], value: 'x' },
  ) },
  // Now and then a hostile value on an authorized path: validation must still hold.
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom<string[]>(['metadata', 'name'], ['metadata', 'namespace'], ['metadata', 'uid'], ['spec'], ['metadata', 'labels', 'fuzz'], ['status']), oddString).map(([path, value]): Mutation => ({ op: 'set', path, value })) },
);

const mildQuery = fc.constantFrom('', '', '', 'dryRun=All', 'fieldValidation=Strict', 'fieldValidation=Warn', 'fieldValidation=Ignore', 'pretty=true', 'fieldManager=fuzz');
const mildAccept = fc.constantFrom<string | undefined>(undefined, undefined, 'application/json', 'application/yaml', 'application/json;as=Table;v=v1;g=meta.k8s.io', 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io');

function collectionPath(e: CatalogueEntry, ns: string): string {
  const base = e.group ? `/apis/${e.group}/${e.version}` : `/api/${e.version}`;
  return e.namespaced ? `${base}/namespaces/${ns}/${e.resource}` : `${base}/${e.resource}`;
}

interface Shape {
  grant: Grant;
  name: string;
  newName: string;
  mutations: Mutation[];
  query: string;
  accept: string | undefined;
  patchType: 'merge' | 'strategic' | 'json' | 'apply';
  yaml: boolean;
  emptyCollection: boolean;
  /** Superusers only: act as cluster1's agent through impersonation headers. */
  impersonate: boolean;
}

function patchBody(s: Shape, apiVersion: string, ns: string): { contentType: string; body: Buffer; query: string } {
  const changes = applyMutations({}, s.mutations) as Record<string, Json>;
  switch (s.patchType) {
    case 'merge': return { contentType: 'application/merge-patch+json', body: Buffer.from(JSON.stringify(changes)), query: s.query };
    case 'strategic': return { contentType: 'application/strategic-merge-patch+json', body: Buffer.from(JSON.stringify(changes)), query: s.query };
    case 'json': {
      const ops = s.mutations.map((m) => (m.op === 'set'
        ? { op: 'add', path: `/${m.path.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`, value: m.value }
        : { op: 'remove', path: `/${m.path.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}` }));
      return { contentType: 'application/json-patch+json', body: Buffer.from(JSON.stringify(ops)), query: s.query };
    }
    case 'apply': {
      const e = s.grant.entry;
      const obj = applyMutations(templateFor(e.kind, apiVersion, { namespace: ns, name: s.name, csrPem: '', cluster: 'cluster1' }, e.namespaced) as unknown as Record<string, unknown>, s.mutations);
      const q = [s.query.startsWith('fieldManager') ? '' : s.query, 'fieldManager=fuzz', s.newName.length % 3 === 0 ? 'force=true' : ''].filter(Boolean).join('&');
      return { contentType: 'application/apply-patch+yaml', body: Buffer.from(toYaml(obj)), query: q };
    }
  }
}

function build(identity: IdentityName, s: Shape, csrPem: string): FuzzCase {
  const g = s.grant;
  const e = g.entry;
  const ns = g.namespace || 'default';
  const apiVersion = e.group ? `${e.group}/${e.version}` : e.version;
  const coll = collectionPath(e, g.namespace);
  const objectPath = `${coll}/${s.name}`;
  const target = g.subresource ? `${objectPath}/${g.subresource}` : objectPath;
  const headers: Record<string, string> = s.accept ? { accept: s.accept } : {};
  if (s.impersonate) Object.assign(headers, { 'impersonate-user': AGENT_USER, 'impersonate-group': `system:open-cluster-management:${CLUSTER}` });
  const json = (v: unknown): Buffer => Buffer.from(s.yaml ? toYaml(v) : JSON.stringify(v));
  if (s.yaml) headers['content-type'] = 'application/yaml';
  const req = (method: string, path: string, extra: Partial<FuzzRequest> = {}): FuzzRequest => ({ method, path, query: s.query, headers, ...extra });
  let c: FuzzCase;
  switch (g.verb) {
    case 'list': c = { identity, request: req('GET', coll, { query: s.emptyCollection ? 'labelSelector=fuzz%3Dnone' : 'limit=5' }), bodyKind: 'none' }; break;
    case 'watch': c = { identity, request: req('GET', coll, { query: 'watch=1&timeoutSeconds=1' }), bodyKind: 'none' }; break;
    case 'create': {
      if (g.subresource) {
        const body = templateFor(g.subresource === 'token' ? 'TokenRequest' : e.kind, g.subresource === 'token' ? 'authentication.k8s.io/v1' : apiVersion, { namespace: ns, name: s.name, csrPem, cluster: 'cluster1' }, false);
        c = { identity, request: req('POST', target, { body: json(body) }), bodyKind: 'object' };
      } else {
        const body = applyMutations(templateFor(e.kind, apiVersion, { namespace: ns, name: s.newName, csrPem, cluster: 'cluster1' }, e.namespaced) as unknown as Record<string, unknown>, s.mutations);
        c = { identity, request: req('POST', coll, { body: json(body) }), bodyKind: 'object' };
      }
      break;
    }
    case 'update': c = { identity, request: req('PUT', target), fromCurrent: { objectPath, mutations: s.mutations, yaml: s.yaml }, bodyKind: 'current' }; break;
    case 'patch': {
      const p = patchBody(s, apiVersion, ns);
      c = { identity, request: { method: 'PATCH', path: target, query: p.query, headers: { ...headers, 'content-type': p.contentType }, body: p.body }, bodyKind: s.patchType };
      break;
    }
    case 'delete': c = { identity, request: req('DELETE', objectPath, { query: s.query.startsWith('dryRun') ? s.query : '' }), bodyKind: 'none' }; break;
    case 'deletecollection': c = { identity, request: req('DELETE', coll, { query: 'labelSelector=fuzz%3Dnone' }), bodyKind: 'none' }; break;
    default: c = { identity, request: req('GET', target, { query: '' }), bodyKind: 'none' };
  }
  Object.defineProperty(c, fc.toStringMethod, {
    value: () => `${identity}: ${describeRequest(c.request)}${c.fromCurrent ? `\n  body: the stored object with ${JSON.stringify(c.fromCurrent.mutations)}` : ''}`,
    enumerable: false,
  });
  return c;
}

/**
 * Plausible requests of `identity` over its grants (none: nothing plausible to send). A superuser
 * also sends some as cluster1's agent through impersonation.
 */
export function plausibleArbitrary(identity: IdentityName, grants: readonly Grant[], csr: { pem: string; requests: readonly string[]; names: readonly string[] }, superuser = false): fc.Arbitrary<FuzzCase> | undefined {
  if (grants.length === 0) return undefined;
  const csrPem = csr.pem;
  const mutation = fc.oneof({ weight: 6, arbitrary: mildMutation }, { weight: 1, arbitrary: csrMutation(csr.requests) });
  const general = fc.record({
    grant: fc.constantFrom(...grants),
    pick: fc.nat(),
    newName: fc.oneof({ weight: 4, arbitrary: dnsLabel.map((n) => `fz-${n}`) }, { weight: 1, arbitrary: fc.constant(SEED_NAME) }),
    mutations: fc.array(mutation, { minLength: 1, maxLength: 3 }),
    query: mildQuery,
    accept: mildAccept,
    patchType: fc.constantFrom('merge' as const, 'strategic' as const, 'json' as const, 'apply' as const),
    yaml: fc.nat(5).map((n) => n === 0),
    emptyCollection: fc.boolean(),
    impersonate: superuser ? fc.nat(3).map((n) => n === 0) : fc.constant(false),
  }).map((r) => {
    const isCsr = r.grant.entry.resource === 'certificatesigningrequests';
    const names = r.grant.names.length > 0 ? r.grant.names : [SEED_NAME, SEED_NAME, 'cluster1', ...(isCsr ? [...csr.names, ...CSR_POOL] : [])];
    // New CSRs take names from a small pool, so that approvals can find them.
    const newName = isCsr ? (CSR_POOL[r.pick % CSR_POOL.length] as string) : r.newName;
    return build(identity, { ...r, newName, name: names[r.pick % names.length] as string }, csrPem);
  });
  if (!superuser) return general;
  return fc.oneof({ weight: 4, arbitrary: general }, { weight: 1, arbitrary: approvals(identity, [...csr.names, ...CSR_POOL, SEED_NAME]) });
}

/** CSR names requests create, approvals look for. */
const CSR_POOL = ['fz-csr-a', 'fz-csr-b', 'fz-csr-c'];

/** A superuser approving a CSR through the approval subresource (PUT of the stored object, or a patch). */
function approvals(identity: IdentityName, names: readonly string[]): fc.Arbitrary<FuzzCase> {
  return fc.tuple(fc.constantFrom(...names), fc.boolean()).map(([name, put]) => {
    const objectPath = `/apis/certificates.k8s.io/v1/certificatesigningrequests/${name}`;
    const approval: Mutation = { op: 'set', path: ['status', 'conditions'], value: [APPROVED] };
    const c: FuzzCase = put
      ? { identity, request: { method: 'PUT', path: `${objectPath}/approval`, query: '', headers: {} }, fromCurrent: { objectPath, mutations: [approval], yaml: false }, bodyKind: 'current' }
      : {
        identity,
        request: { method: 'PATCH', path: `${objectPath}/approval`, query: '', headers: { 'content-type': 'application/merge-patch+json' }, body: Buffer.from(JSON.stringify({ status: { conditions: [APPROVED] } })) },
        bodyKind: 'merge',
      };
    Object.defineProperty(c, fc.toStringMethod, { value: () => `${identity}: ${describeRequest(c.request)}${put ? '\n  body: the stored CSR, approved' : ''}`, enumerable: false });
    return c;
  });
}
