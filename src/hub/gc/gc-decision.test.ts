import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../api/meta.js';
import { cleanupPriority, firstDeleteGroup, remainingCondition } from './gc-decision.js';

const item = (name: string, priority?: string, finalizers?: string[]): KubeObject => ({
  metadata: { name, ...(priority !== undefined ? { annotations: { 'open-cluster-management.io/cleanup-priority': priority } } : {}), ...(finalizers ? { finalizers } : {}) },
});

test('cleanupPriority: missing, invalid and out of range → 0', () => {
  for (const [p, want] of [[undefined, 0], ['abc', 0], ['300', 0], ['-1', 0], ['10', 10], ['100', 100], ['0', 0]] as const) {
    assert.equal(cleanupPriority(item('x', p)), want, String(p));
  }
});

const groupCases: { name: string; items: KubeObject[]; expected: string[] }[] = [
  { name: 'no priority resource', items: [item('a'), item('b'), item('c'), item('d')], expected: ['a', 'b', 'c', 'd'] },
  { name: 'invalid priority resource', items: [item('a', 'abc'), item('b', '300'), item('c', '-1'), item('d')], expected: ['a', 'b', 'c', 'd'] },
  { name: 'multi priority resources', items: [item('a', '10'), item('b'), item('c', 'abc'), item('d', '20'), item('e', '300'), item('f', '-1'), item('g', '0')], expected: ['b', 'c', 'e', 'f', 'g'] },
  { name: 'valid priority resources', items: [item('a', '10'), item('b', '20'), item('c', '10'), item('d', '30')], expected: ['a', 'c'] },
  { name: 'empty', items: [], expected: [] },
];
for (const c of groupCases) test(`firstDeleteGroup: ${c.name}`, () => assert.deepEqual(firstDeleteGroup(c.items).map((i) => i.metadata.name), c.expected));

test("remainingCondition keeps OCM's message (typo included)", () => {
  assert.equal(
    remainingCondition('managedclusteraddons', [item('a'), item('b', undefined, ['f'])]).message,
    'The resource managedclusteraddons is remaning, the remaining count is 2, the finalizer pending count is 1',
  );
});
