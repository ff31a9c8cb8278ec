import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jsonEqual, mergePatchDiff, semanticEqual } from './merge-patch.js';

/** Applies an RFC 7386 merge patch (the reference algorithm), to check diffs round-trip. */
function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> = typeof target === 'object' && target !== null && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = applyMergePatch(out[k], v);
  }
  return out;
}

interface Case {
  name: string;
  from: unknown;
  to: unknown;
  /** semanticEqual(from, to) */
  equal: boolean;
  /** mergePatchDiff(from, to) */
  patch: unknown;
}

const cases: Case[] = [
  // nulls
  { name: 'null member equals a missing one', from: { a: 1, b: null }, to: { a: 1 }, equal: true, patch: undefined },
  { name: 'null equals an empty map', from: { labels: null }, to: { labels: {} }, equal: true, patch: undefined },
  { name: 'member set to null is deleted', from: { a: 1, b: 2 }, to: { a: 1, b: null }, equal: false, patch: { b: null } },
  { name: 'whole value set to null', from: { a: 1 }, to: null, equal: false, patch: null },
  { name: 'null inside a new map is not sent', from: {}, to: { m: { x: null, y: 1 } }, equal: false, patch: { m: { y: 1 } } },
  // missing vs undefined
  { name: 'undefined member equals a missing one', from: { a: 1, b: undefined }, to: { a: 1 }, equal: true, patch: undefined },
  { name: 'missing member becomes null', from: { a: 1, b: 2 }, to: { a: 1 }, equal: false, patch: { b: null } },
  { name: 'member set to undefined becomes null', from: { a: 1, b: 2 }, to: { a: 1, b: undefined }, equal: false, patch: { b: null } },
  { name: 'undefined inside a sent map is dropped', from: {}, to: { m: { x: undefined, y: 1 } }, equal: false, patch: { m: { y: 1 } } },
  { name: 'undefined inside a sent list becomes null', from: {}, to: { l: [1, undefined] }, equal: false, patch: { l: [1, null] } },
  // arrays
  { name: 'missing list equals an empty one', from: {}, to: { taints: [] }, equal: true, patch: undefined },
  { name: 'list order matters', from: { l: [1, 2] }, to: { l: [2, 1] }, equal: false, patch: { l: [2, 1] } },
  { name: 'lists are replaced whole', from: { l: [1, 2] }, to: { l: [1, 2, 3] }, equal: false, patch: { l: [1, 2, 3] } },
  { name: 'emptied list is sent empty, not deleted', from: { l: [1] }, to: { l: [] }, equal: false, patch: { l: [] } },
  { name: 'list elements compare semantically', from: { l: [{ a: 1, b: [] }] }, to: { l: [{ a: 1 }] }, equal: true, patch: undefined },
  { name: 'list of one empty element is not an empty list', from: { l: [] }, to: { l: [{}] }, equal: false, patch: { l: [{}] } },
  { name: 'changed list element sends the whole list', from: { c: [{ type: 'A', status: 'True' }, { type: 'B' }] }, to: { c: [{ type: 'A', status: 'False' }, { type: 'B' }] }, equal: false, patch: { c: [{ type: 'A', status: 'False' }, { type: 'B' }] } },
  // nested objects
  { name: 'key order does not matter', from: { x: 1, y: 2 }, to: { y: 2, x: 1 }, equal: true, patch: undefined },
  { name: 'nested maps recurse', from: { m: { x: 1, y: 1 } }, to: { m: { x: 1, y: 2 } }, equal: false, patch: { m: { y: 2 } } },
  { name: 'nested map emptied deletes its members', from: { m: { x: 1 } }, to: { m: {} }, equal: false, patch: { m: { x: null } } },
  { name: 'map holding only empties equals a missing one', from: { m: { x: null, l: [] } }, to: {}, equal: true, patch: undefined },
  { name: 'map replacing a scalar', from: { m: 'text' }, to: { m: { x: 1 } }, equal: false, patch: { m: { x: 1 } } },
  { name: 'scalar replacing a map', from: { m: { x: 1 } }, to: { m: 'text' }, equal: false, patch: { m: 'text' } },
  // scalars
  { name: 'different scalar', from: { s: 'True' }, to: { s: 'False' }, equal: false, patch: { s: 'False' } },
  { name: 'empty string is a value', from: { c: [{ message: '' }] }, to: { c: [{}] }, equal: false, patch: { c: [{}] } },
  { name: 'false is a value', from: {}, to: { b: false }, equal: false, patch: { b: false } },
  { name: 'zero is a value', from: { n: 0 }, to: {}, equal: false, patch: { n: null } },
];

for (const c of cases) {
  test(`semanticEqual and mergePatchDiff: ${c.name}`, () => {
    assert.equal(semanticEqual(c.from, c.to), c.equal, 'semanticEqual');
    assert.equal(semanticEqual(c.to, c.from), c.equal, 'semanticEqual is symmetric');
    const patch = mergePatchDiff(c.from, c.to);
    assert.deepEqual(patch, c.patch, 'mergePatchDiff');
    if (patch !== undefined) assert.ok(semanticEqual(applyMergePatch(c.from, patch), c.to), 'the patch turns from into to');
  });
}

/** jsonEqual: exact equality, where semanticEqual's empties are values. */
const exactCases: { name: string; a: unknown; b: unknown; equal: boolean }[] = [
  { name: 'key order does not matter', a: { x: 1, y: [1, { z: 2 }] }, b: { y: [1, { z: 2 }], x: 1 }, equal: true },
  { name: 'an undefined member is absent', a: { a: 1, b: undefined }, b: { a: 1 }, equal: true },
  { name: 'a null member is not absent', a: { a: 1, b: null }, b: { a: 1 }, equal: false },
  { name: 'an empty list is not absent', a: { l: [] }, b: {}, equal: false },
  { name: 'an empty map is not null', a: { m: {} }, b: { m: null }, equal: false },
  { name: 'list order matters', a: [1, 2], b: [2, 1], equal: false },
  { name: 'a list is not a map', a: [], b: {}, equal: false },
  { name: 'scalars compare by value and type', a: { n: 1 }, b: { n: '1' }, equal: false },
  { name: 'nested difference', a: { m: { x: [{ y: 1 }] } }, b: { m: { x: [{ y: 2 }] } }, equal: false },
  { name: 'same key count, other keys', a: { a: 1 }, b: { b: 1 }, equal: false },
  { name: 'same key count with an undefined member', a: { a: 1, b: undefined }, b: { a: 1, c: undefined }, equal: true },
];

for (const c of exactCases) {
  test(`jsonEqual: ${c.name}`, () => {
    assert.equal(jsonEqual(c.a, c.b), c.equal);
    assert.equal(jsonEqual(c.b, c.a), c.equal, 'symmetric');
  });
}
