import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findCondition } from '../../api/conditions.js';
import type { Condition } from '../../api/meta.js';
import { reconcileJoining } from './joining-reconciler.js';
import { acceptedCondition, joinedCondition, newCluster, recordingContext } from './test-fixtures.js';

test('joining reconciler', async (t) => {
  const denied: Condition = { ...acceptedCondition, status: 'False', reason: 'HubClusterAdminDenied' };
  const cases: {
    name: string;
    conditions: Condition[];
    next: 'continue' | 'stop';
    joined?: Partial<Condition>;
    events: string[];
  }[] = [
    { name: 'not accepted yet: stop, nothing reported', conditions: [], next: 'stop', events: ['ManagedClusterIsNotAccepted'] },
    { name: 'denied: stop', conditions: [denied], next: 'stop', events: ['ManagedClusterIsNotAccepted'] },
    {
      name: 'accepted: Joined True',
      conditions: [acceptedCondition],
      next: 'continue',
      joined: { status: 'True', reason: 'ManagedClusterJoined', message: 'Managed cluster joined', lastTransitionTime: '2026-06-01T00:00:00Z' },
      events: [],
    },
    {
      name: 'already joined: unchanged',
      conditions: [acceptedCondition, joinedCondition],
      next: 'continue',
      joined: { lastTransitionTime: joinedCondition.lastTransitionTime },
      events: [],
    },
  ];
  for (const c of cases) {
    await t.test(c.name, () => {
      const ctx = recordingContext();
      const res = reconcileJoining(newCluster(structuredClone(c.conditions)), ctx);
      assert.equal(res.next, c.next);
      const joined = findCondition(res.obj.status?.conditions, 'ManagedClusterJoined');
      if (c.joined) {
        assert.ok(joined);
        for (const [k, v] of Object.entries(c.joined)) assert.equal(joined[k as keyof Condition], v, k);
      } else assert.equal(joined, undefined);
      assert.deepEqual(ctx.events.map((e) => e.reason), c.events);
      if (c.events.length) assert.equal(ctx.events[0]!.message, 'Managed cluster "testmanagedcluster" is not accepted by hub yet');
    });
  }
});
