import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mergePatchDiff, semanticEqual } from './merge-patch.js';

const eqCases: { name: string; a: unknown; b: unknown; expected: boolean }[] = [
  { name: 'absent vs empty list', a: {}, b: { taints: [] }, expected: true },
  { name: 'null vs empty map', a: { labels: null }, b: { labels: {} }, expected: true },
  { name: 'key order does not matter', a: { x: 1, y: 2 }, b: { y: 2, x: 1 }, expected: true },
  { name: 'list order matters', a: [1, 2], b: [2, 1], expected: false },
  { name: 'different scalar', a: { s: 'True' }, b: { s: 'False' }, expected: false },
];
for (const c of eqCases) test(`semanticEqual: ${c.name}`, () => assert.equal(semanticEqual(c.a, c.b), c.expected));

const diffCases: { name: string; old: unknown; next: unknown; expected: unknown }[] = [
  { name: 'no change', old: { a: 1 }, next: { a: 1 }, expected: undefined },
  { name: 'changed scalar', old: { a: 1, b: 2 }, next: { a: 1, b: 3 }, expected: { b: 3 } },
  { name: 'removed key becomes null', old: { a: 1, b: 2 }, next: { a: 1 }, expected: { b: null } },
  { name: 'lists replaced wholesale', old: { l: [1, 2] }, next: { l: [1, 2, 3] }, expected: { l: [1, 2, 3] } },
  { name: 'nested maps recurse', old: { m: { x: 1, y: 1 } }, next: { m: { x: 1, y: 2 } }, expected: { m: { y: 2 } } },
  { name: 'new key', old: {}, next: { conditions: [{ type: 'A' }] }, expected: { conditions: [{ type: 'A' }] } },
];
for (const c of diffCases) test(`mergePatchDiff: ${c.name}`, () => assert.deepEqual(mergePatchDiff(c.old, c.next), c.expected));
