import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Taint } from '../../api/cluster.js';
import type { Condition } from '../../api/meta.js';
import { desiredTaints } from './taint-decision.js';

const avail = (status: Condition['status']): Condition[] => [{ type: 'ManagedClusterConditionAvailable', status, reason: 'r', message: '' }];
const unreachable: Taint = { key: 'cluster.open-cluster-management.io/unreachable', value: '', effect: 'NoSelect' };
const unavailable: Taint = { key: 'cluster.open-cluster-management.io/unavailable', value: '', effect: 'NoSelect' };
const user: Taint = { key: 'example.com/user', value: 'x', effect: 'PreferNoSelect', timeAdded: '2026-01-01T00:00:00Z' };

const cases: { name: string; current: Taint[] | undefined; conditions: Condition[] | undefined; expected: Taint[]; changed: boolean }[] = [
  { name: 'Available True: nothing to do', current: undefined, conditions: avail('True'), expected: [], changed: false },
  { name: 'Available False: unavailable', current: [], conditions: avail('False'), expected: [unavailable], changed: true },
  { name: 'no Available condition: unreachable', current: undefined, conditions: undefined, expected: [unreachable], changed: true },
  { name: 'Available Unknown: unreachable', current: [], conditions: avail('Unknown'), expected: [unreachable], changed: true },
  { name: 'Unknown → False swaps taints', current: [user, { ...unreachable, timeAdded: '2026-01-01T00:00:00Z' }], conditions: avail('False'), expected: [user, unavailable], changed: true },
  { name: 'True removes both, keeps user taints', current: [unavailable, user, unreachable], conditions: avail('True'), expected: [user], changed: true },
  { name: 'already tainted (timeAdded ignored)', current: [{ ...unreachable, timeAdded: '2026-01-01T00:00:00Z' }], conditions: avail('Unknown'), expected: [{ ...unreachable, timeAdded: '2026-01-01T00:00:00Z' }], changed: false },
];

for (const c of cases) {
  test(`desiredTaints: ${c.name}`, () => {
    const out = desiredTaints(c.current, c.conditions);
    assert.deepEqual(out, c.expected);
    assert.equal(out !== (c.current ?? out), c.changed && c.current !== undefined);
  });
}
