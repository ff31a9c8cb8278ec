import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setCondition, findCondition, rfc3339, rfc3339Micro } from './conditions.js';
import type { Condition } from './meta.js';

const t0 = new Date('2026-01-01T00:00:00.123Z');
const t1 = new Date('2026-01-01T00:05:00.456Z');
const base: Condition = { type: 'A', status: 'True', reason: 'R', message: 'm', lastTransitionTime: '2026-01-01T00:00:00Z' };

const cases: { name: string; input: { list: Condition[]; next: Condition; now: Date }; expected: string }[] = [
  { name: 'new condition gets now', input: { list: [], next: { type: 'A', status: 'True', reason: 'R', message: '' }, now: t0 }, expected: '2026-01-01T00:00:00Z' },
  { name: 'same status keeps time', input: { list: [base], next: { type: 'A', status: 'True', reason: 'R2', message: 'x' }, now: t1 }, expected: '2026-01-01T00:00:00Z' },
  { name: 'status change resets time', input: { list: [base], next: { type: 'A', status: 'False', reason: 'R', message: 'm' }, now: t1 }, expected: '2026-01-01T00:05:00Z' },
];

for (const c of cases) {
  test(`setCondition: ${c.name}`, () => {
    const out = setCondition(c.input.list, c.input.next, c.input.now);
    assert.equal(findCondition(out, 'A')?.lastTransitionTime, c.expected);
    assert.equal(out.length, 1);
  });
}

test('time formats', () => {
  assert.equal(rfc3339(t0), '2026-01-01T00:00:00Z');
  assert.equal(rfc3339Micro(t0), '2026-01-01T00:00:00.123000Z');
});
