import { test } from 'node:test';
import assert from 'node:assert/strict';
import { crdStrategy } from './crd-resource.js';
import type { StrategyContext } from './types.js';
import type { KubeObject } from '../../api/meta.js';

function crd(validations: unknown[] | undefined): KubeObject {
  const spec: Record<string, unknown> = { type: 'object', properties: { a: { type: 'integer' } } };
  if (validations) spec['x-kubernetes-validations'] = validations;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'foos.example.com' },
    spec: { group: 'example.com', scope: 'Cluster', names: { plural: 'foos', kind: 'Foo' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec } } } }] },
  };
}

const cases: { name: string; input: unknown[] | undefined; expected: number }[] = [
  { name: 'CEL rules produce a warning that they are not enforced', input: [{ rule: 'self.a > 0' }], expected: 1 },
  { name: 'no CEL rules, no warning', input: undefined, expected: 0 },
];

for (const c of cases) {
  test(`crdStrategy.prepareForCreate: ${c.name}`, () => {
    const warnings: string[] = [];
    const ctx = { user: { username: 'u', groups: [] }, subresource: '', now: 0, warnings } as unknown as StrategyContext;
    crdStrategy().prepareForCreate?.(crd(c.input), ctx);
    assert.equal(warnings.length, c.expected);
    if (c.expected > 0) assert.match(warnings[0]!, /x-kubernetes-validations: CEL validation rules are not enforced/);
  });
}
