import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Node } from '../../api/core.js';
import { computeNodeResources, createResourceReconciler } from './resource-reconciler.js';
import { newJoinedCluster, recordingContext } from './test-fixtures.js';

function node(name: string, capacity: Record<string, string>, allocatable: Record<string, string>, unschedulable = false): Node {
  return { metadata: { name }, spec: unschedulable ? { unschedulable: true } : {}, status: { capacity, allocatable } };
}

test('computeNodeResources table', () => {
  const cases: { name: string; nodes: Node[]; existing?: Record<string, string>; expected: { capacity: Record<string, string>; allocatable: Record<string, string> } }[] = [
    { name: 'no nodes', nodes: [], expected: { capacity: {}, allocatable: {} } },
    {
      name: 'one node',
      nodes: [node('n1', { cpu: '32', memory: '64Mi' }, { cpu: '16', memory: '32Mi' })],
      expected: { capacity: { cpu: '32', memory: '64Mi' }, allocatable: { cpu: '16', memory: '32Mi' } },
    },
    {
      name: 'two nodes summed, foreign keys kept',
      nodes: [node('n1', { cpu: '32', memory: '64Mi' }, { cpu: '16', memory: '32Mi' }), node('n2', { cpu: '32', memory: '64Mi' }, { cpu: '16', memory: '32Mi' })],
      existing: { sockets: '1', cores: '2', cpu: '1' },
      expected: { capacity: { sockets: '1', cores: '2', cpu: '64', memory: '128Mi' }, allocatable: { cpu: '32', memory: '64Mi' } },
    },
    {
      name: 'every resource name, unschedulable nodes excluded from allocatable',
      nodes: [
        node('n1', { cpu: '4', pods: '110', 'ephemeral-storage': '10Gi' }, { cpu: '3500m', pods: '110' }),
        node('n2', { cpu: '4', pods: '110', 'nvidia.com/gpu': '1' }, { cpu: '4', pods: '110', 'nvidia.com/gpu': '1' }, true),
      ],
      expected: { capacity: { cpu: '8', 'ephemeral-storage': '10Gi', 'nvidia.com/gpu': '1', pods: '220' }, allocatable: { cpu: '3500m', pods: '110' } },
    },
  ];
  for (const c of cases) assert.deepEqual(computeNodeResources(c.nodes, c.existing), c.expected, c.name);
});

test('resource reconciler sets version, capacity and allocatable', async () => {
  const r = createResourceReconciler({
    version: async () => 'test-version',
    listNodes: () => [node('n1', { cpu: '32', memory: '64Mi' }, { cpu: '16', memory: '32Mi' })],
  });
  const cluster = newJoinedCluster();
  cluster.status!.allocatable = { stale: '1' };
  const res = await r.reconcile(cluster, recordingContext());
  assert.equal(res.next, 'continue');
  assert.deepEqual(res.obj.status?.version, { kubernetes: 'test-version' });
  assert.deepEqual(res.obj.status?.capacity, { cpu: '32', memory: '64Mi' });
  assert.deepEqual(res.obj.status?.allocatable, { cpu: '16', memory: '32Mi' });
});

test('resource reconciler stops with an error when /version fails', async () => {
  const r = createResourceReconciler({ version: async () => Promise.reject(new Error('boom')), listNodes: () => [] });
  const res = await r.reconcile(newJoinedCluster(), recordingContext());
  assert.equal(res.next, 'stop');
  assert.equal(res.error?.message, 'unable to get server version of managed cluster "testmanagedcluster": boom');
});

test('resource reconciler stops with an error when nodes cannot be listed', async () => {
  const r = createResourceReconciler({
    version: async () => 'v1',
    listNodes: () => {
      throw new Error('cache not ready');
    },
  });
  const res = await r.reconcile(newJoinedCluster(), recordingContext());
  assert.equal(res.next, 'stop');
  assert.equal(res.error?.message, 'unable to get capacity and allocatable of managed cluster "testmanagedcluster": cache not ready');
});
