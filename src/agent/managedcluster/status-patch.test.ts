import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildStatusPatch, mergeDiff, semanticEqual } from './status-patch.js';

const meta = { name: 'c1', uid: 'u1', resourceVersion: '7' };

test('semanticEqual treats empty and absent lists/maps as equal', () => {
  const cases: { name: string; a: unknown; b: unknown; expected: boolean }[] = [
    { name: 'absent vs empty list', a: {}, b: { clusterClaims: [] }, expected: true },
    { name: 'absent vs empty map', a: { capacity: undefined }, b: { capacity: {} }, expected: true },
    { name: 'different scalar', a: { v: 'a' }, b: { v: 'b' }, expected: false },
    { name: 'list order matters', a: { l: [1, 2] }, b: { l: [2, 1] }, expected: false },
    { name: 'empty string kept', a: { c: [{ message: '' }] }, b: { c: [{}] }, expected: false },
  ];
  for (const c of cases) assert.equal(semanticEqual(c.a, c.b), c.expected, c.name);
});

test('mergeDiff builds RFC 7386 patches', () => {
  assert.equal(mergeDiff({ a: 1 }, { a: 1 }), undefined);
  assert.deepEqual(mergeDiff({ a: 1, b: 2 }, { a: 1 }), { b: null });
  assert.deepEqual(mergeDiff({ a: { x: 1, y: 2 } }, { a: { x: 1, y: 3 } }), { a: { y: 3 } });
  assert.deepEqual(mergeDiff({ l: [1] }, { l: [1, 2] }), { l: [1, 2] });
  assert.deepEqual(mergeDiff({ l: [1] }, { l: [] }), { l: null });
});

test('buildStatusPatch carries uid and resourceVersion, and is undefined when unchanged', () => {
  const old = { metadata: meta, spec: { hubAcceptsClient: true }, status: { conditions: [{ type: 'A', status: 'True' }] } };
  assert.equal(buildStatusPatch(old, structuredClone(old)), undefined);
  const next = structuredClone(old);
  next.status.conditions.push({ type: 'B', status: 'False' });
  assert.deepEqual(buildStatusPatch(old, next), {
    metadata: { uid: 'u1', resourceVersion: '7' },
    status: { conditions: [{ type: 'A', status: 'True' }, { type: 'B', status: 'False' }] },
  });
});
