import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Namespace } from '../../api/core.js';
import type { ManagedNamespaceConfig } from '../../api/cluster.js';
import { ApiStatusError, statusFromCode } from '../../client/errors.js';
import { createManagedNamespaceReconciler, hubClusterSetLabel, hubHash, withLabel } from './managed-namespace-reconciler.js';
import { newJoinedCluster, recordingContext } from './test-fixtures.js';

const LABEL = hubClusterSetLabel(hubHash('https://hub.example.com:6443'));

test('hub cluster set label', () => {
  const full = 'a'.repeat(64);
  const cases: { name: string; hash: string; expected: string }[] = [
    { name: 'normal hub hash', hash: 'abc123', expected: 'clusterset.open-cluster-management.io/abc123' },
    { name: 'empty hub hash', hash: '', expected: 'clusterset.open-cluster-management.io/' },
    { name: 'long hub hash gets truncated', hash: full, expected: 'clusterset.open-cluster-management.io/' + 'a'.repeat(63) },
  ];
  for (const c of cases) assert.equal(hubClusterSetLabel(c.hash), c.expected, c.name);
  assert.match(hubHash('https://x'), /^[0-9a-f]{64}$/);
});

test('withLabel', () => {
  const ns: Namespace = { metadata: { name: 'a', labels: { x: 'y' } } };
  assert.equal(withLabel(ns, 'x', 'y'), undefined);
  assert.deepEqual(withLabel(ns, 'k', 'true')?.metadata.labels, { x: 'y', k: 'true' });
  assert.deepEqual(ns.metadata.labels, { x: 'y' }, 'input not mutated');
});

function fakeNamespaces(initial: Namespace[], failOn: string[] = []) {
  const store = new Map(initial.map((n) => [n.metadata.name!, structuredClone(n)]));
  const actions: string[] = [];
  const notFound = () => new ApiStatusError({ ...statusFromCode(404, 'not found'), reason: 'NotFound' });
  return {
    store,
    actions,
    client: {
      get: async (name: string) => {
        actions.push(`get:${name}`);
        if (failOn.includes(name)) throw new Error('injected failure');
        const ns = store.get(name);
        if (!ns) throw notFound();
        return structuredClone(ns);
      },
      create: async (ns: Namespace) => {
        actions.push(`create:${ns.metadata.name}`);
        store.set(ns.metadata.name!, structuredClone(ns));
        return ns;
      },
      update: async (ns: Namespace) => {
        actions.push(`update:${ns.metadata.name}`);
        store.set(ns.metadata.name!, structuredClone(ns));
        return ns;
      },
    },
    labelled: () => [...store.values()].filter((n) => n.metadata.labels?.[LABEL] === 'true'),
  };
}

function labelled(name: string, value = 'true'): Namespace {
  return { metadata: { name, labels: { [LABEL]: value } } };
}

test('managed namespace reconcile table', async (t) => {
  const cases: {
    name: string;
    existing: Namespace[];
    managed: ManagedNamespaceConfig[];
    deleting?: boolean;
    failOn?: string[];
    actions: string[];
    labels: Record<string, string>;
    conditions?: { name: string; status: string; reason: string }[];
    error?: string;
  }[] = [
    {
      name: 'cluster being deleted should cleanup all namespaces',
      existing: [labelled('ns1')],
      managed: [{ name: 'ns1', clusterSet: 'set1' }],
      deleting: true,
      actions: ['get:ns1', 'update:ns1'],
      labels: { ns1: 'false' },
    },
    { name: 'no managed namespaces should cleanup previously managed ones', existing: [labelled('ns1'), labelled('ns2')], managed: [], actions: ['get:ns1', 'update:ns1', 'get:ns2', 'update:ns2'], labels: { ns1: 'false', ns2: 'false' } },
    { name: 'no existing namespaces: no actions', existing: [], managed: [], actions: [], labels: {} },
    {
      name: 'create new managed namespaces',
      existing: [],
      managed: [{ name: 'ns1', clusterSet: 'set1' }, { name: 'ns2', clusterSet: 'set1' }],
      actions: ['get:ns1', 'create:ns1', 'get:ns2', 'create:ns2'],
      labels: { ns1: 'true', ns2: 'true' },
      conditions: [
        { name: 'ns1', status: 'True', reason: 'NamespaceApplied' },
        { name: 'ns2', status: 'True', reason: 'NamespaceApplied' },
      ],
    },
    {
      name: 'update existing managed namespaces and cleanup old ones',
      existing: [{ metadata: { name: 'ns1', labels: { other: 'x' } } }, labelled('old')],
      managed: [{ name: 'ns1', clusterSet: 'set1' }],
      actions: ['get:ns1', 'update:ns1', 'get:old', 'update:old'],
      labels: { ns1: 'true', old: 'false' },
    },
    { name: 'already labelled: get only', existing: [labelled('ns1')], managed: [{ name: 'ns1', clusterSet: 's' }], actions: ['get:ns1'], labels: { ns1: 'true' } },
    {
      name: 'apply failure reports a False condition and an error',
      existing: [],
      managed: [{ name: 'bad', clusterSet: 's' }],
      failOn: ['bad'],
      actions: ['get:bad'],
      labels: {},
      conditions: [{ name: 'bad', status: 'False', reason: 'NamespaceApplyFailed' }],
      error: 'failed to create namespace "bad": injected failure',
    },
  ];
  for (const c of cases) {
    await t.test(c.name, async () => {
      const fake = fakeNamespaces(c.existing, c.failOn);
      const r = createManagedNamespaceReconciler({ namespaces: fake.client, listLabelledNamespaces: fake.labelled, hubLabel: LABEL });
      const cluster = newJoinedCluster();
      cluster.status!.managedNamespaces = structuredClone(c.managed);
      if (c.deleting) cluster.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
      const res = await r.reconcile(cluster, recordingContext());
      assert.equal(res.next, 'continue');
      assert.deepEqual(fake.actions, c.actions);
      const got: Record<string, string> = {};
      for (const [name, ns] of fake.store) if (ns.metadata.labels?.[LABEL] !== undefined) got[name] = ns.metadata.labels[LABEL]!;
      assert.deepEqual(got, c.labels);
      for (const exp of c.conditions ?? []) {
        const entry = res.obj.status?.managedNamespaces?.find((m) => m.name === exp.name);
        const cond = entry?.conditions?.find((x) => x.type === 'NamespaceAvailable');
        assert.equal(cond?.status, exp.status);
        assert.equal(cond?.reason, exp.reason);
      }
      assert.equal(res.error?.message, c.error);
    });
  }
});

test('failure condition message', async () => {
  const fake = fakeNamespaces([], ['bad']);
  const r = createManagedNamespaceReconciler({ namespaces: fake.client, listLabelledNamespaces: fake.labelled, hubLabel: LABEL });
  const cluster = newJoinedCluster();
  cluster.status!.managedNamespaces = [{ name: 'bad', clusterSet: 's' }];
  const res = await r.reconcile(cluster, recordingContext());
  assert.equal(res.obj.status?.managedNamespaces?.[0]?.conditions?.[0]?.message, 'Failed to apply namespace: failed to apply namespace "bad": injected failure');
});
