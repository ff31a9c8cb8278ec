import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../http/errors.js';
import { applyJsonPatch, decodeJsonPatch, MAX_JSON_PATCH_OPERATIONS } from './json-patch.js';
import type { JsonValue } from './json.js';

const doc = (): JsonValue => ({ metadata: { name: 'a', labels: { x: '1' } }, spec: { list: [1, 2, 3], 'a/b': 'slash', 'm~n': 'tilde' } });

describe('applyJsonPatch', () => {
  const cases: Array<{ name: string; ops: string; expected: (d: any) => unknown; at: (d: any) => unknown }> = [
    { name: 'add a member', ops: '[{"op":"add","path":"/metadata/labels/y","value":"2"}]', at: (d) => d.metadata.labels, expected: () => ({ x: '1', y: '2' }) },
    { name: 'add replaces an existing member', ops: '[{"op":"add","path":"/metadata/labels/x","value":"9"}]', at: (d) => d.metadata.labels.x, expected: () => '9' },
    { name: 'append with -', ops: '[{"op":"add","path":"/spec/list/-","value":4}]', at: (d) => d.spec.list, expected: () => [1, 2, 3, 4] },
    { name: 'insert at index', ops: '[{"op":"add","path":"/spec/list/0","value":0}]', at: (d) => d.spec.list, expected: () => [0, 1, 2, 3] },
    { name: 'insert at length', ops: '[{"op":"add","path":"/spec/list/3","value":9}]', at: (d) => d.spec.list, expected: () => [1, 2, 3, 9] },
    { name: 'remove element', ops: '[{"op":"remove","path":"/spec/list/1"}]', at: (d) => d.spec.list, expected: () => [1, 3] },
    { name: 'remove member', ops: '[{"op":"remove","path":"/metadata/labels/x"}]', at: (d) => d.metadata.labels, expected: () => ({}) },
    { name: 'replace', ops: '[{"op":"replace","path":"/metadata/name","value":"b"}]', at: (d) => d.metadata.name, expected: () => 'b' },
    { name: 'escaped pointer ~1', ops: '[{"op":"replace","path":"/spec/a~1b","value":"S"}]', at: (d) => d.spec['a/b'], expected: () => 'S' },
    { name: 'escaped pointer ~0', ops: '[{"op":"replace","path":"/spec/m~0n","value":"T"}]', at: (d) => d.spec['m~n'], expected: () => 'T' },
    { name: 'move', ops: '[{"op":"move","from":"/metadata/labels/x","path":"/metadata/labels/z"}]', at: (d) => d.metadata.labels, expected: () => ({ z: '1' }) },
    { name: 'copy', ops: '[{"op":"copy","from":"/spec/list","path":"/spec/copy"}]', at: (d) => d.spec.copy, expected: () => [1, 2, 3] },
    { name: 'test then replace', ops: '[{"op":"test","path":"/metadata/name","value":"a"},{"op":"replace","path":"/metadata/name","value":"c"}]', at: (d) => d.metadata.name, expected: () => 'c' },
    { name: 'test compares structurally', ops: '[{"op":"test","path":"/metadata/labels","value":{"x":"1"}}]', at: (d) => d.metadata.name, expected: () => 'a' },
  ];
  for (const c of cases) {
    it(`should ${c.name}`, () => {
      const out = applyJsonPatch(doc(), decodeJsonPatch(c.ops));
      assert.deepEqual(c.at(out), c.expected(out));
    });
  }

  it('should not mutate the input document', () => {
    const d = doc();
    applyJsonPatch(d, decodeJsonPatch('[{"op":"remove","path":"/spec"}]'));
    assert.deepEqual(d, doc());
  });

  const failing: Array<{ name: string; ops: string; message: string }> = [
    { name: 'add under a missing parent', ops: '[{"op":"add","path":"/nope/x","value":1}]', message: 'add operation does not apply: doc is missing path: "/nope/x": missing value' },
    { name: 'remove a missing member', ops: '[{"op":"remove","path":"/metadata/labels/zz"}]', message: 'remove operation does not apply: doc is missing path: "/metadata/labels/zz": missing value' },
    { name: 'replace a missing member', ops: '[{"op":"replace","path":"/metadata/zz","value":1}]', message: 'replace operation does not apply: doc is missing key: /metadata/zz: missing value' },
    { name: 'a failed test', ops: '[{"op":"test","path":"/metadata/name","value":"b"}]', message: 'testing value /metadata/name failed: test failed' },
    { name: 'an index out of range', ops: '[{"op":"add","path":"/spec/list/7","value":1}]', message: 'add operation does not apply: doc is missing path: "/spec/list/7": invalid index referenced: 7' },
  ];
  for (const c of failing) {
    it(`should answer 422 for ${c.name}`, () => {
      assert.throws(() => applyJsonPatch(doc(), decodeJsonPatch(c.ops)), (e: unknown) => {
        assert.ok(e instanceof ApiError);
        assert.equal(e.code, 422);
        assert.equal(e.reason, 'Invalid');
        assert.equal(e.message, c.message);
        return true;
      });
    });
  }
});

describe('decodeJsonPatch', () => {
  const bad: Array<{ body: string; code: number }> = [
    { body: 'not json', code: 400 },
    { body: '{"op":"add"}', code: 400 },
    { body: '[1]', code: 400 },
    { body: '[{"op":"frobnicate","path":"/a"}]', code: 400 },
    { body: '[{"op":"add","value":1}]', code: 400 },
    { body: '[{"op":"add","path":"/a"}]', code: 400 },
    { body: '[{"op":"move","path":"/a"}]', code: 400 },
    { body: JSON.stringify(Array.from({ length: MAX_JSON_PATCH_OPERATIONS + 1 }, () => ({ op: 'test', path: '', value: 1 }))), code: 413 },
  ];
  for (const c of bad) {
    it(`should reject ${c.body.slice(0, 40)} with ${c.code}`, () => {
      assert.throws(() => decodeJsonPatch(c.body), (e: unknown) => e instanceof ApiError && e.code === c.code);
    });
  }
});
