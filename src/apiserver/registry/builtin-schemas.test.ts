import 'reflect-metadata';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as models from '@kubernetes/client-node';
import { builtinSchema, builtinSchemaKeys } from './builtin-schemas.js';
import { pruneObject } from './schema/index.js';
import type { JSONSchemaProps } from './schema/types.js';

interface Attribute { baseName: string; type: string }
type ModelClass = { getAttributeTypeMap(): Attribute[] };

/** The client library's generated model class of a built-in kind (its OpenAPI field list). */
function modelName(key: string): string {
  const special: Record<string, string> = {
    'v1/Event': 'CoreV1Event',
    'events.k8s.io/v1/Event': 'EventsV1Event',
    'authentication.k8s.io/v1/TokenRequest': 'AuthenticationV1TokenRequest',
  };
  return special[key] ?? `V1${key.split('/').pop() as string}`;
}

function model(name: string): ModelClass {
  const m = (models as unknown as Record<string, ModelClass | undefined>)[name];
  assert.ok(m && typeof m.getAttributeTypeMap === 'function', `no model ${name}`);
  return m;
}

/** Every modelled object level of `schema` must list exactly the fields of the API type `type`. */
function compare(schema: JSONSchemaProps, type: string, path: string, problems: string[]): void {
  if (schema['x-kubernetes-preserve-unknown-fields'] === true) return;
  if (schema.type === 'array') {
    const inner = /^Array<(.+)>$/.exec(type)?.[1];
    if (!inner || !schema.items) problems.push(`${path}: modelled as a list, API type is ${type}`);
    else compare(schema.items, inner, `${path}[]`, problems);
    return;
  }
  const attrs = model(type).getAttributeTypeMap();
  const api = new Set(attrs.map((a) => a.baseName));
  const ours = new Set(Object.keys(schema.properties ?? {}));
  for (const f of api) if (!ours.has(f)) problems.push(`${path}.${f}: in the API, missing from the schema (would be pruned)`);
  for (const f of ours) if (!api.has(f)) problems.push(`${path}.${f}: in the schema, not in the API`);
  for (const a of attrs) {
    const child = schema.properties?.[a.baseName];
    if (child && a.baseName !== 'metadata') compare(child, a.type, `${path}.${a.baseName}`, problems);
  }
}

describe('built-in pruning schemas', () => {
  for (const key of builtinSchemaKeys()) {
    it(`should keep every field the Kubernetes API defines for ${key}`, () => {
      const parts = key.split('/');
      const kindName = parts.pop() as string;
      const version = parts.pop() as string;
      const group = parts.join('/');
      const schema = builtinSchema(group, version, kindName);
      assert.ok(schema);
      const problems: string[] = [];
      compare(schema, modelName(key), kindName, problems);
      assert.deepEqual(problems, []);
    });
  }

  it('should drop unknown fields at the top level, in metadata, spec, status and list items, and report their paths', () => {
    const csr = {
      apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest',
      metadata: { name: 'x', junk: 1 },
      spec: { request: 'UEVN', signerName: 's', usages: ['client auth'], foo: 'bar' },
      status: { conditions: [{ type: 'Approved', status: 'True', bogus: true }] },
      padding: 'x'.repeat(100),
    };
    const pruned = pruneObject(builtinSchema('certificates.k8s.io', 'v1', 'CertificateSigningRequest') as JSONSchemaProps, csr);
    assert.deepEqual(pruned.sort(), ['metadata.junk', 'padding', 'spec.foo', 'status.conditions[0].bogus']);
    assert.deepEqual(csr, {
      apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'x' },
      spec: { request: 'UEVN', signerName: 's', usages: ['client auth'] },
      status: { conditions: [{ type: 'Approved', status: 'True' }] },
    });
  });

  it('should keep the parts it does not model (container specs, maps of data)', () => {
    const pod = {
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' },
      spec: { containers: [{ name: 'c', image: 'i', futureField: { a: 1 } }], nodeSelector: { a: 'b' } },
    };
    const copy = structuredClone(pod);
    assert.deepEqual(pruneObject(builtinSchema('', 'v1', 'Pod') as JSONSchemaProps, copy), []);
    assert.deepEqual(copy, pod);
  });

  it('should know no schema for kinds that are not built in', () => {
    assert.equal(builtinSchema('cluster.open-cluster-management.io', 'v1', 'ManagedCluster'), undefined);
  });
});
