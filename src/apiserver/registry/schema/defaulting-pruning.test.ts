import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isDeepStrictEqual } from 'node:util';
import { applyDefaults, needsDefaults } from './defaulting.js';
import { pruneObject } from './pruning.js';
import type { JSONSchemaProps } from './types.js';

const defaultsSchema: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      required: ['req'],
      properties: {
        a: { type: 'integer', default: 1 },
        nested: { type: 'object', default: {}, properties: { b: { type: 'string', default: 'x' } } },
        list: { type: 'array', items: { type: 'object', properties: { c: { type: 'boolean', default: false } } } },
        nullable: { type: 'string', nullable: true, default: 'd' },
        plain: { type: 'string' },
        req: { type: 'string' },
        map: { type: 'object', additionalProperties: { type: 'object', properties: { e: { type: 'integer', default: 5 } } } },
      },
    },
  },
};

describe('applyDefaults', () => {
  const schema = defaultsSchema;
  const cases: Array<{ name: string; input: unknown; expected: unknown }> = [
    { name: 'set absent defaults, nested defaults included', input: { spec: {} }, expected: { spec: { a: 1, nested: { b: 'x' }, nullable: 'd' } } },
    { name: 'not touch present values', input: { spec: { a: 7, nested: { b: 'y' }, nullable: 'z' } }, expected: { spec: { a: 7, nested: { b: 'y' }, nullable: 'z' } } },
    { name: 'default inside array items', input: { spec: { list: [{}, { c: true }] } }, expected: { spec: { a: 1, nested: { b: 'x' }, nullable: 'd', list: [{ c: false }, { c: true }] } } },
    { name: 'default inside map values', input: { spec: { map: { k: {} } } }, expected: { spec: { a: 1, nested: { b: 'x' }, nullable: 'd', map: { k: { e: 5 } } } } },
    { name: 'replace null by the default', input: { spec: { a: null } }, expected: { spec: { a: 1, nested: { b: 'x' }, nullable: 'd' } } },
    { name: 'keep null when nullable', input: { spec: { nullable: null } }, expected: { spec: { a: 1, nested: { b: 'x' }, nullable: null } } },
    { name: 'drop null without default unless required', input: { spec: { plain: null, req: null } }, expected: { spec: { a: 1, nested: { b: 'x' }, nullable: 'd', req: null } } },
    { name: 'not create absent parents', input: {}, expected: {} },
  ];
  for (const c of cases) {
    it(`should ${c.name}`, () => assert.deepEqual(applyDefaults(schema, structuredClone(c.input)), c.expected));
  }
});

describe('pruneObject', () => {
  const schema: JSONSchemaProps = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          known: { type: 'string' },
          free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { typed: { type: 'object', properties: { k: { type: 'string' } } } } },
          map: { type: 'object', additionalProperties: { type: 'object', properties: { v: { type: 'string' } } } },
          items: { type: 'array', items: { type: 'object', properties: { n: { type: 'string' } } } },
          embedded: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { spec: { type: 'object' } } },
          empty: { type: 'object' },
        },
      },
    },
  };
  it('should prune unknown fields at every level and report their paths', () => {
    const obj: Record<string, unknown> = {
      apiVersion: 'g/v1', kind: 'K', metadata: { name: 'n', weird: 1 }, status: { x: 1 },
      spec: {
        known: 'k', unknown: 1,
        free: { anything: { deep: 1 }, typed: { k: 'v', drop: 1 } },
        map: { a: { v: 'x', w: 'y' } },
        items: [{ n: '1', m: '2' }],
        embedded: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', bad: 1 }, spec: { a: 1 }, other: 1 },
        empty: { gone: true },
      },
    };
    const pruned = pruneObject(schema, obj);
    assert.deepEqual(pruned.sort(), [
      'metadata.weird', 'spec.embedded.metadata.bad', 'spec.embedded.other', 'spec.empty.gone', 'spec.free.typed.drop',
      'spec.items[0].m', 'spec.map.a.w', 'spec.unknown', 'spec.embedded.spec.a', 'status',
    ].sort());
    assert.deepEqual(obj, {
      apiVersion: 'g/v1', kind: 'K', metadata: { name: 'n' },
      spec: {
        known: 'k',
        free: { anything: { deep: 1 }, typed: { k: 'v' } },
        map: { a: { v: 'x' } },
        items: [{ n: '1' }],
        embedded: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, spec: {} },
        empty: {},
      },
    });
  });
});

describe('needsDefaults', () => {
  const schema = defaultsSchema;
  const full = { a: 2, nested: { b: 'y' }, nullable: 'x' };
  const cases: unknown[] = [
    {},
    { spec: {} },
    { spec: { ...full } },
    { spec: { ...full, plain: null } },
    { spec: { ...full, req: null } },
    { spec: { ...full, a: null } },
    { spec: { ...full, nullable: null } },
    { spec: { ...full, nested: {} } },
    { spec: { ...full, list: [{ c: true }, { c: false }] } },
    { spec: { ...full, list: [{ c: true }, {}] } },
    { spec: { ...full, map: { x: { e: 1 } } } },
    { spec: { ...full, map: { x: {} } } },
    { spec: { ...full, unknown: { deep: null } } },
    'not an object',
  ];
  it('the cases include objects with and without a default to apply', () => {
    const verdicts = new Set(cases.map((c) => needsDefaults(schema, c)));
    assert.deepEqual([...verdicts].sort(), [false, true]);
  });
  for (const [i, value] of cases.entries()) {
    it(`agrees with applyDefaults and leaves the value alone (case ${i})`, () => {
      const before = structuredClone(value);
      const changed = !isDeepStrictEqual(applyDefaults(schema, structuredClone(value)), value);
      assert.equal(needsDefaults(schema, value), changed);
      assert.deepEqual(value, before);
    });
  }
});
