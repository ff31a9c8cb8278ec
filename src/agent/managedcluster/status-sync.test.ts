import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ManagedCluster } from '../../api/cluster.js';
import type { Condition } from '../../api/meta.js';
import { createJoiningReconciler } from './joining-reconciler.js';
import type { StatusReconciler } from './reconciler.js';
import { syncClusterStatus, type StatusSyncDeps } from './status-sync.js';
import type { AvailabilityEvent } from './hub-events.js';
import { acceptedCondition, availableCondition, joinedCondition, newCluster } from './test-fixtures.js';

function setAvailable(status: 'True' | 'False', next: 'continue' | 'stop' = 'continue'): StatusReconciler {
  return {
    name: 'available',
    reconcile: async (obj) => {
      const conditions = (obj.status?.conditions ?? []).filter((c) => c.type !== 'ManagedClusterConditionAvailable');
      conditions.push({ ...availableCondition, status });
      obj.status = { ...obj.status, conditions };
      return { obj, next };
    },
  };
}

const failingWith = (message: string): StatusReconciler => ({ name: 'failing', reconcile: async (obj) => ({ obj, next: 'continue', error: new Error(message) }) });
const failing = failingWith('step failed');
const mustNotRun: StatusReconciler = {
  name: 'never',
  reconcile: async () => {
    throw new Error('must not run');
  },
};

function harness(cluster: ManagedCluster | undefined, reconcilers: StatusReconciler[], patchError?: Error) {
  const patches: Record<string, unknown>[] = [];
  const events: AvailabilityEvent[] = [];
  const logEvents: string[] = [];
  const deps: StatusSyncDeps = {
    clusterName: 'testmanagedcluster',
    getCached: () => cluster,
    reconcilers,
    patchStatus: async (p) => {
      if (patchError) throw patchError;
      patches.push(p);
    },
    onAvailabilityChange: (ev) => events.push(ev),
    event: (reason) => logEvents.push(reason),
    requeueAfter: () => {},
    now: () => new Date('2026-06-01T00:00:00Z'),
  };
  return { deps, patches, events, logEvents };
}

const clockOutOfSync: Condition = { type: 'ManagedClusterConditionClockSynced', status: 'False', reason: 'ManagedClusterClockOutOfSync', message: 'x', lastTransitionTime: '2026-01-01T00:00:00Z' };

test('status sync table', async (t) => {
  const cases: {
    name: string;
    cluster?: ManagedCluster;
    reconcilers: StatusReconciler[];
    patchError?: Error;
    error?: string | RegExp;
    patches: number;
    events: string[];
    check?: (patch: Record<string, unknown>) => void;
  }[] = [
    {
      name: 'sync no managed cluster',
      reconcilers: [createJoiningReconciler()],
      error: 'unable to get managed cluster "testmanagedcluster" from hub: managedcluster.cluster.open-cluster-management.io "testmanagedcluster" not found',
      patches: 0,
      events: [],
    },
    { name: 'sync an unaccepted managed cluster', cluster: newCluster([]), reconcilers: [createJoiningReconciler(), mustNotRun], patches: 0, events: [] },
    {
      name: 'sync an accepted managed cluster',
      cluster: newCluster([acceptedCondition]),
      reconcilers: [createJoiningReconciler()],
      patches: 1,
      events: [],
      check: (p) => {
        assert.deepEqual(p['metadata'], { uid: 'uid-1', resourceVersion: '1' });
        const conds = (p['status'] as { conditions: Condition[] }).conditions;
        const joined = conds.find((c) => c.type === 'ManagedClusterJoined');
        assert.deepEqual([joined?.status, joined?.reason, joined?.message], ['True', 'ManagedClusterJoined', 'Managed cluster joined']);
      },
    },
    { name: 'unchanged status: no patch', cluster: newCluster([acceptedCondition, joinedCondition]), reconcilers: [createJoiningReconciler()], patches: 0, events: [] },
    {
      name: 'available becomes True: patch and one Available event',
      cluster: newCluster([acceptedCondition, joinedCondition]),
      reconcilers: [createJoiningReconciler(), setAvailable('True')],
      patches: 1,
      events: ['Available'],
    },
    {
      name: 'available unchanged True: no event',
      cluster: newCluster([acceptedCondition, joinedCondition, availableCondition]),
      reconcilers: [createJoiningReconciler(), setAvailable('True')],
      patches: 0,
      events: [],
    },
    {
      name: 'available goes False: Unavailable event; stop skips later steps but Joined is patched',
      cluster: newCluster([acceptedCondition, availableCondition]),
      reconcilers: [createJoiningReconciler(), setAvailable('False', 'stop'), mustNotRun],
      patches: 1,
      events: ['Unavailable'],
    },
    {
      name: 'clock out of sync: no patch, error',
      cluster: newCluster([acceptedCondition, clockOutOfSync]),
      reconcilers: [createJoiningReconciler(), setAvailable('True')],
      error: "the managed cluster's clock is out of sync, the agent will not be able to update the status of managed cluster",
      patches: 0,
      events: [],
    },
    {
      name: 'step errors are aggregated after patching',
      cluster: newCluster([acceptedCondition]),
      reconcilers: [createJoiningReconciler(), failing, failingWith('other step failed'), failing],
      // like apimachinery's aggregate: distinct messages, in order
      error: '[step failed, other step failed]',
      patches: 1,
      events: [],
    },
    {
      name: 'patch failure: error, no event',
      cluster: newCluster([acceptedCondition, joinedCondition]),
      reconcilers: [createJoiningReconciler(), setAvailable('True')],
      patchError: new Error('conflict'),
      error: 'unable to patch status of managed cluster "testmanagedcluster": conflict',
      patches: 0,
      events: [],
    },
  ];
  for (const c of cases) {
    await t.test(c.name, async () => {
      const cached = c.cluster ? structuredClone(c.cluster) : undefined;
      const h = harness(cached, c.reconcilers, c.patchError);
      const run = syncClusterStatus(h.deps, new AbortController().signal);
      if (c.error) await assert.rejects(run, (err: Error) => (typeof c.error === 'string' ? err.message === c.error : c.error!.test(err.message)));
      else await run;
      assert.equal(h.patches.length, c.patches);
      assert.deepEqual(h.events.map((e) => e.reason), c.events);
      if (c.check) c.check(h.patches[0]!);
      assert.deepEqual(cached, c.cluster, 'cached object not mutated');
    });
  }
});
