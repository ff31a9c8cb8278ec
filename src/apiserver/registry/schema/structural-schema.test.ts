import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { validateSchema } from './structural-schema.js';
import type { JSONSchemaProps } from './types.js';

const render = (errs: Array<{ field: string; message: string; reason: string }>): string[] => errs.map((e) => `${e.reason} ${e.field}: ${e.message}`);

/** Validates `{x: value}` against `{x: schema}` so that messages carry the path `x`. */
function check(schema: JSONSchemaProps, value: unknown): string[] {
  return render(validateSchema({ type: 'object', properties: { x: schema } }, { x: value }));
}

describe('validateSchema keywords', () => {
  const cases: Array<{ name: string; schema: JSONSchemaProps; value: unknown; expected: string[] }> = [
    { name: 'integer ok', schema: { type: 'integer' }, value: 3, expected: [] },
    { name: 'number accepts integers', schema: { type: 'number' }, value: 3, expected: [] },
    { name: 'boolean type', schema: { type: 'boolean' }, value: 1, expected: ['FieldValueTypeInvalid x: Invalid value: "integer": x in body must be of type boolean: "integer"'] },
    { name: 'array type', schema: { type: 'array', items: { type: 'string' } }, value: {}, expected: ['FieldValueTypeInvalid x: Invalid value: "object": x in body must be of type array: "object"'] },
    { name: 'null when not nullable', schema: { type: 'string' }, value: null, expected: ['FieldValueTypeInvalid x: Invalid value: "null": x in body must be of type string: "null"'] },
    { name: 'null when nullable', schema: { type: 'string', nullable: true }, value: null, expected: [] },
    { name: 'required', schema: { type: 'object', required: ['a', 'b'], properties: { a: { type: 'string' } } }, value: { a: 'x' }, expected: ['FieldValueRequired x.b: Required value'] },
    { name: 'enum of strings', schema: { type: 'string', enum: ['A', 'B'] }, value: 'C', expected: ['FieldValueNotSupported x: Unsupported value: "C": supported values: "A", "B"'] },
    { name: 'enum of numbers', schema: { type: 'integer', enum: [1, 2] }, value: 3, expected: ['FieldValueNotSupported x: Unsupported value: 3: supported values: "1", "2"'] },
    { name: 'pattern', schema: { type: 'string', pattern: '^a+$' }, value: 'b', expected: ["FieldValueInvalid x: Invalid value: \"b\": x in body should match '^a+$'"] },
    { name: 'minLength counts characters', schema: { type: 'string', minLength: 2 }, value: 'é', expected: ['FieldValueInvalid x: Invalid value: "é": x in body should be at least 2 chars long'] },
    { name: 'maxLength', schema: { type: 'string', maxLength: 2 }, value: 'abc', expected: ['FieldValueTooLong x: Too long: may not be more than 2 bytes'] },
    { name: 'minimum', schema: { type: 'integer', minimum: 1 }, value: 0, expected: ['FieldValueInvalid x: Invalid value: 0: x in body should be greater than or equal to 1'] },
    { name: 'exclusiveMinimum', schema: { type: 'integer', minimum: 1, exclusiveMinimum: true }, value: 1, expected: ['FieldValueInvalid x: Invalid value: 1: x in body should be greater than 1'] },
    { name: 'maximum', schema: { type: 'number', maximum: 1.5 }, value: 2, expected: ['FieldValueInvalid x: Invalid value: 2: x in body should be less than or equal to 1.5'] },
    { name: 'exclusiveMaximum', schema: { type: 'number', maximum: 2, exclusiveMaximum: true }, value: 2, expected: ['FieldValueInvalid x: Invalid value: 2: x in body should be less than 2'] },
    { name: 'multipleOf', schema: { type: 'integer', multipleOf: 5 }, value: 7, expected: ['FieldValueInvalid x: Invalid value: 7: x in body should be a multiple of 5'] },
    { name: 'int32 range', schema: { type: 'integer', format: 'int32' }, value: 2 ** 31, expected: ['FieldValueInvalid x: Invalid value: 2147483648: x in body must be of type int32: "2147483648"'] },
    { name: 'minItems', schema: { type: 'array', minItems: 1, items: { type: 'string' } }, value: [], expected: ['FieldValueInvalid x: Invalid value: []: x in body should have at least 1 items'] },
    { name: 'maxItems', schema: { type: 'array', maxItems: 1, items: { type: 'string' } }, value: ['a', 'b'], expected: ['FieldValueTooMany x: Too many: 2: must have at most 1 items'] },
    { name: 'minProperties', schema: { type: 'object', minProperties: 1 }, value: {}, expected: ['FieldValueInvalid x: Invalid value: {}: x in body should have at least 1 properties'] },
    { name: 'maxProperties', schema: { type: 'object', maxProperties: 1, additionalProperties: { type: 'string' } }, value: { a: 'a', b: 'b' }, expected: ['FieldValueTooMany x: Too many: 2: must have at most 1 items'] },
    { name: 'additionalProperties schema', schema: { type: 'object', additionalProperties: { type: 'string' } }, value: { a: 1 }, expected: ['FieldValueTypeInvalid x.a: Invalid value: "integer": x.a in body must be of type string: "integer"'] },
    { name: 'items', schema: { type: 'array', items: { type: 'string' } }, value: ['a', 2], expected: ['FieldValueTypeInvalid x[1]: Invalid value: "integer": x[1] in body must be of type string: "integer"'] },
    { name: 'int-or-string accepts both', schema: { 'x-kubernetes-int-or-string': true }, value: '50%', expected: [] },
    { name: 'int-or-string rejects others', schema: { 'x-kubernetes-int-or-string': true }, value: true, expected: ['FieldValueTypeInvalid x: Invalid value: "boolean": x in body must be of type integer,string: "boolean"'] },
    { name: 'preserve-unknown-fields without type accepts anything', schema: { 'x-kubernetes-preserve-unknown-fields': true }, value: [1, { a: 2 }], expected: [] },
    { name: 'embedded resource needs apiVersion and kind', schema: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true }, value: { metadata: {} },
      expected: ['FieldValueRequired x.apiVersion: Required value: must not be empty', 'FieldValueRequired x.kind: Required value: must not be empty'] },
    { name: 'set duplicates', schema: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } }, value: ['a', 'b', 'a'], expected: ['FieldValueDuplicate x[2]: Duplicate value: "a"'] },
    { name: 'map duplicates by keys', schema: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object', properties: { name: { type: 'string' }, v: { type: 'integer' } } } },
      value: [{ name: 'a', v: 1 }, { name: 'a', v: 2 }], expected: ['FieldValueDuplicate x[1]: Duplicate value: {"name":"a"}'] },
    { name: 'map list with distinct keys', schema: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object', properties: { name: { type: 'string' } } } },
      value: [{ name: 'a' }, { name: 'b' }], expected: [] },
    { name: 'uniqueItems', schema: { type: 'array', uniqueItems: true, items: { type: 'object' } }, value: [{ a: 1, b: 2 }, { b: 2, a: 1 }], expected: ['FieldValueDuplicate x[1]: Duplicate value: {"b":2,"a":1}'] },
    { name: 'anyOf failing', schema: { type: 'string', anyOf: [{ pattern: '^a' }, { pattern: '^b' }] }, value: 'c', expected: ['FieldValueInvalid x: Invalid value: "c": x in body must validate at least one schema (anyOf)'] },
    { name: 'anyOf passing', schema: { type: 'string', anyOf: [{ pattern: '^a' }, { pattern: '^b' }] }, value: 'b', expected: [] },
    { name: 'oneOf with two matches', schema: { type: 'string', oneOf: [{ pattern: '^a' }, { pattern: 'a$' }] }, value: 'aa', expected: ['FieldValueInvalid x: Invalid value: "aa": x in body must validate one and only one schema (oneOf)'] },
    { name: 'allOf reports each failure', schema: { type: 'string', allOf: [{ minLength: 2 }] }, value: 'a', expected: ['FieldValueInvalid x: Invalid value: "a": x in body should be at least 2 chars long'] },
    { name: 'not', schema: { type: 'string', not: { enum: ['x'] } }, value: 'x', expected: ['FieldValueInvalid x: Invalid value: "x": x in body must not validate the schema (not)'] },
    { name: 'CEL rules are skipped', schema: { type: 'string', 'x-kubernetes-validations': [{ rule: 'false' }] }, value: 'x', expected: [] },
  ];
  for (const c of cases) {
    it(`should handle ${c.name}`, () => assert.deepEqual(check(c.schema, c.value), c.expected));
  }
});

describe('validateSchema formats', () => {
  const cases: Array<{ format: string; good: string[]; bad: string[] }> = [
    { format: 'date-time', good: ['2026-01-01T00:00:00Z', '2026-01-01T00:00:00.123+02:00'], bad: ['2026-01-01', 'now'] },
    { format: 'date', good: ['2026-12-31'], bad: ['2026-13-45x'] },
    { format: 'byte', good: ['', 'Zm9v', 'Zm8='], bad: ['Zm9', '!!!!'] },
    { format: 'uuid', good: ['0b2c7b3e-1f0a-4c2e-9a51-1d2f3e4a5b6c'], bad: ['nope'] },
    { format: 'ipv4', good: ['10.0.0.1'], bad: ['10.0.0.256', '::1'] },
    { format: 'ipv6', good: ['::1', 'fe80::1', '2001:db8::8a2e:370:7334', '::ffff:10.0.0.1'], bad: ['1::2::3', '10.0.0.1', 'g::1'] },
    { format: 'cidr', good: ['10.0.0.0/8', 'fd00::/64'], bad: ['10.0.0.0/33', '10.0.0.0'] },
    { format: 'hostname', good: ['example.com', 'a'], bad: ['-a', 'a_b'] },
    { format: 'duration', good: ['1h30m', '500ms', '0'], bad: ['1 hour'] },
    { format: 'unknown-format', good: ['anything'], bad: [] },
  ];
  for (const c of cases) {
    it(`should check ${c.format}`, () => {
      for (const v of c.good) assert.deepEqual(check({ type: 'string', format: c.format }, v), [], v);
      for (const v of c.bad) assert.equal(check({ type: 'string', format: c.format }, v).length, 1, v);
    });
  }
});
