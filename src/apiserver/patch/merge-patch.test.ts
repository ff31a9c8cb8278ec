import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../http/errors.js';
import { applyMergePatch, createMergePatch, decodeMergePatch } from './merge-patch.js';
import type { JsonValue } from './json.js';

describe('applyMergePatch (RFC 7386 examples)', () => {
  const cases: Array<[JsonValue, JsonValue, JsonValue]> = [
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ];
  cases.forEach(([target, patch, expected], i) => {
    it(`should produce the RFC result for case ${i}`, () => {
      assert.deepEqual(applyMergePatch(target, patch), expected);
    });
  });

  it('should not mutate inputs', () => {
    const t = { a: { b: 1 } };
    applyMergePatch(t, { a: { b: 2 } });
    assert.deepEqual(t, { a: { b: 1 } });
  });
});

describe('decodeMergePatch', () => {
  for (const body of ['[1,2]', '"x"', 'nope', '12']) {
    it(`should reject ${body} with 400`, () => {
      assert.throws(() => decodeMergePatch(body), (e: unknown) => e instanceof ApiError && e.code === 400 && e.message === 'Invalid JSON Patch');
    });
  }
});

describe('createMergePatch', () => {
  it('should round-trip through applyMergePatch', () => {
    const from = { metadata: { uid: 'u', labels: { a: '1', b: '2' } }, spec: { x: [1, 2] }, status: { c: 1 } };
    const to = { metadata: { uid: 'u', labels: { a: '1', c: '3' } }, spec: { x: [2] }, status: { c: 1 } };
    const p = createMergePatch(from, to);
    assert.deepEqual(p, { metadata: { labels: { b: null, c: '3' } }, spec: { x: [2] } });
    assert.deepEqual(applyMergePatch(from, p), to);
  });
});
