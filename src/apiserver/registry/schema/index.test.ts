import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { errors } from '../../http/errors.js';
import { defaultCustomResource, prepareCustomResource } from './index.js';
import { MANAGED_CLUSTER_CRD, versionSchema } from '../../../../test/apiserver-schema/reference-crds.js';
import type { JSONSchemaProps } from './types.js';

const schema: JSONSchemaProps = versionSchema(MANAGED_CLUSTER_CRD, 'v1');

function cluster(spec: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'cluster.open-cluster-management.io/v1', kind: 'ManagedCluster',
    metadata: { name: 'cluster1', labels: { 'cluster.open-cluster-management.io/clusterset': 'default' } },
    spec: { hubAcceptsClient: true, ...spec },
    ...extra,
  };
}

const render = (errs: Array<{ field: string; message: string }>): string[] => errs.map((e) => `${e.field}: ${e.message}`);

describe('prepareCustomResource with the ManagedCluster CRD', () => {
  it('should accept a valid ManagedCluster and apply leaseDurationSeconds: 60', () => {
    const input = cluster({
      managedClusterClientConfigs: [{ url: 'https://127.0.0.1:6443', caBundle: 'Zm9v' }],
      taints: [{ key: 'example.com/gpu', effect: 'NoSelect', timeAdded: '2026-01-01T00:00:00Z' }],
    });
    const { obj, errors: errs, pruned } = prepareCustomResource({ schema, obj: input, isCreate: true });
    assert.deepEqual(render(errs), []);
    assert.deepEqual(pruned, []);
    assert.equal((obj['spec'] as Record<string, unknown>)['leaseDurationSeconds'], 60);
    assert.equal((input['spec'] as Record<string, unknown>)['leaseDurationSeconds'], undefined, 'input untouched');
  });

  it('should keep an explicit leaseDurationSeconds', () => {
    const { obj } = prepareCustomResource({ schema, obj: cluster({ leaseDurationSeconds: 5 }) });
    assert.equal((obj['spec'] as Record<string, unknown>)['leaseDurationSeconds'], 5);
  });

  it('should prune unknown fields but keep apiVersion, kind and metadata', () => {
    const { obj, errors: errs, pruned } = prepareCustomResource({
      schema,
      obj: cluster({ foo: 1, taints: [{ key: 'k', effect: 'NoSelect', bogus: true }] }, { extra: 'x', metadata: { name: 'c', junk: 1 } }),
    });
    assert.deepEqual(render(errs), []);
    assert.deepEqual(pruned.sort(), ['extra', 'metadata.junk', 'spec.foo', 'spec.taints[0].bogus']);
    assert.deepEqual(Object.keys(obj).sort(), ['apiVersion', 'kind', 'metadata', 'spec']);
    assert.deepEqual((obj['spec'] as Record<string, unknown>)['taints'], [{ key: 'k', effect: 'NoSelect' }]);
  });

  const bad: Array<{ name: string; obj: Record<string, unknown>; expected: string[] }> = [
    {
      name: 'a string where an integer is required',
      obj: cluster({ leaseDurationSeconds: 'string' }),
      expected: ['spec.leaseDurationSeconds: Invalid value: "string": spec.leaseDurationSeconds in body must be of type integer: "string"'],
    },
    {
      name: 'a fraction where an integer is required',
      obj: cluster({ leaseDurationSeconds: 1.5 }),
      expected: ['spec.leaseDurationSeconds: Invalid value: "number": spec.leaseDurationSeconds in body must be of type integer: "number"'],
    },
    {
      name: 'a boolean given as a string',
      obj: cluster({ hubAcceptsClient: 'yes' }),
      expected: ['spec.hubAcceptsClient: Invalid value: "string": spec.hubAcceptsClient in body must be of type boolean: "string"'],
    },
    {
      name: 'a taint effect outside the enum',
      obj: cluster({ taints: [{ key: 'k', effect: 'NoSchedule' }] }),
      expected: ['spec.taints[0].effect: Unsupported value: "NoSchedule": supported values: "NoSelect", "PreferNoSelect", "NoSelectIfNew"'],
    },
    {
      name: 'a taint key that does not match the pattern',
      obj: cluster({ taints: [{ key: '-bad-', effect: 'NoSelect' }] }),
      expected: [`spec.taints[0].key: Invalid value: "-bad-": spec.taints[0].key in body should match '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$'`],
    },
    {
      name: 'missing required fields',
      obj: cluster({ taints: [{ value: 'v' }], managedClusterClientConfigs: [{}] }),
      expected: ['spec.managedClusterClientConfigs[0].url: Required value', 'spec.taints[0].effect: Required value', 'spec.taints[0].key: Required value'],
    },
    {
      name: 'a malformed date-time and byte string',
      obj: cluster({ taints: [{ key: 'k', effect: 'NoSelect', timeAdded: 'yesterday' }], managedClusterClientConfigs: [{ url: 'u', caBundle: '***' }] }),
      expected: [
        'spec.managedClusterClientConfigs[0].caBundle: Invalid value: "***": spec.managedClusterClientConfigs[0].caBundle in body must be of type byte: "***"',
        'spec.taints[0].timeAdded: Invalid value: "yesterday": spec.taints[0].timeAdded in body must be of type date-time: "yesterday"',
      ],
    },
    {
      name: 'a string longer than maxLength',
      obj: cluster({ taints: [{ key: 'k', effect: 'NoSelect', value: 'v'.repeat(1025) }] }),
      expected: ['spec.taints[0].value: Too long: may not be more than 1024 bytes'],
    },
    {
      name: 'a spec that is not an object',
      obj: cluster(undefined, { spec: [] }),
      expected: ['spec: Invalid value: "array": spec in body must be of type object: "array"'],
    },
  ];
  for (const c of bad) {
    it(`should report ${c.name}`, () => {
      const { errors: errs } = prepareCustomResource({ schema, obj: c.obj, isCreate: true });
      assert.deepEqual(render(errs).sort(), c.expected);
    });
  }

  it('should accept int-or-string quantities and check the pattern of string ones', () => {
    const ok = prepareCustomResource({ schema, obj: cluster({}, { status: { allocatable: { cpu: 4, memory: '16Gi' } } }) });
    assert.deepEqual(render(ok.errors), []);
    const bad = prepareCustomResource({ schema, obj: cluster({}, { status: { allocatable: { cpu: 'lots', gpu: true } } }) });
    const quantity = '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$';
    assert.deepEqual(render(bad.errors).sort(), [
      `status.allocatable.cpu: Invalid value: "lots": status.allocatable.cpu in body should match '${quantity}'`,
      'status.allocatable.gpu: Invalid value: "boolean": status.allocatable.gpu in body must be of type integer,string: "boolean"',
    ]);
  });

  it('should render a 422 with the kube-apiserver message through errors.invalid', () => {
    const { errors: errs } = prepareCustomResource({ schema, obj: cluster({ leaseDurationSeconds: 'string' }) });
    const e = errors.invalid('ManagedCluster', 'cluster.open-cluster-management.io', 'cluster1', errs);
    assert.equal(e.code, 422);
    assert.equal(e.message,
      'ManagedCluster.cluster.open-cluster-management.io "cluster1" is invalid: spec.leaseDurationSeconds: Invalid value: "string": spec.leaseDurationSeconds in body must be of type integer: "string"');
  });

  it('should default stored objects on read', () => {
    const stored = cluster();
    const read = defaultCustomResource(schema, stored);
    assert.equal((read['spec'] as Record<string, unknown>)['leaseDurationSeconds'], 60);
  });
});

describe('fieldValidation helpers', () => {
  it('should word unknown-field warnings and the Strict error like kube-apiserver', async () => {
    const { unknownFieldMessages, strictDecodingError } = await import('./index.js');
    assert.deepEqual(unknownFieldMessages(['spec.foo']), ['unknown field "spec.foo"']);
    const e = strictDecodingError(['spec.foo', 'spec.bar']);
    assert.equal(e.code, 400);
    assert.equal(e.message, 'strict decoding error: unknown field "spec.foo", unknown field "spec.bar"');
  });
});
