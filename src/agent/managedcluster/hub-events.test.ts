import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Condition } from '../../api/meta.js';
import { availabilityEvent } from './hub-events.js';
import { availableCondition, newCluster } from './test-fixtures.js';

test('availabilityEvent table', () => {
  const unavailable: Condition = { ...availableCondition, status: 'False', reason: 'ManagedClusterKubeAPIServerUnavailable' };
  const unknown: Condition = { ...availableCondition, status: 'Unknown', reason: 'ManagedClusterLeaseUpdateStopped' };
  const cases: { name: string; old: Condition[]; next: Condition[]; expected?: string }[] = [
    { name: 'new absent', old: [availableCondition], next: [], expected: undefined },
    { name: 'unchanged True', old: [availableCondition], next: [{ ...availableCondition, message: 'x' }], expected: undefined },
    { name: 'appears True', old: [], next: [availableCondition], expected: 'Normal/Available' },
    { name: 'Unknown to True', old: [unknown], next: [availableCondition], expected: 'Normal/Available' },
    { name: 'True to False', old: [availableCondition], next: [unavailable], expected: 'Warning/Unavailable' },
    { name: 'unchanged False', old: [unavailable], next: [unavailable], expected: undefined },
  ];
  for (const c of cases) {
    const ev = availabilityEvent(newCluster(c.old), newCluster(c.next), 'c1');
    assert.equal(ev ? `${ev.type}/${ev.reason}` : undefined, c.expected, c.name);
  }
  assert.equal(
    availabilityEvent(newCluster([]), newCluster([availableCondition]), 'c1')?.note,
    'The c1 is successfully imported, and it is managed by the hub cluster. Its apieserver is available',
  );
  assert.equal(
    availabilityEvent(newCluster([availableCondition]), newCluster([unavailable]), 'c1')?.note,
    'The c1 is successfully imported. However, its Kube API server is unavailable',
  );
});
