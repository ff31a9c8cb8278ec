import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ManagedCluster } from '../api/cluster.js';
import type { CertificateSigningRequest, Lease } from '../api/core.js';
import { appendPoint, buildFleetState, buildRow, buildTimeline, seedHistory } from './fleet-view.js';

const cond = (type: string, status: string, at: string) => ({ type, status: status as 'True', reason: 'R', message: '', lastTransitionTime: at });

function cluster(name: string, o: { accepted?: boolean; joinedAt?: string; availableAt?: string; created?: string } = {}): ManagedCluster {
  const conditions = [];
  if (o.accepted) conditions.push(cond('HubAcceptedManagedCluster', 'True', '2026-01-01T00:00:03Z'));
  if (o.joinedAt) conditions.push(cond('ManagedClusterJoined', 'True', o.joinedAt));
  if (o.availableAt) conditions.push(cond('ManagedClusterConditionAvailable', 'True', o.availableAt));
  return {
    apiVersion: 'cluster.open-cluster-management.io/v1', kind: 'ManagedCluster',
    metadata: { name, creationTimestamp: o.created ?? '2026-01-01T00:00:00Z', labels: { 'cluster.open-cluster-management.io/clusterset': 'default' } },
    spec: { hubAcceptsClient: o.accepted === true, managedClusterClientConfigs: [{ url: `https://${name}:6443` }] },
    status: { conditions },
  };
}

function csr(name: string, clusterName: string, o: { created: string; approvedAt?: string; certificate?: string }): CertificateSigningRequest {
  return {
    apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest',
    metadata: { name, creationTimestamp: o.created, labels: { 'open-cluster-management.io/cluster-name': clusterName } },
    spec: { request: '', signerName: 'kubernetes.io/kube-apiserver-client', username: 'system:bootstrap:abcdef' },
    status: {
      ...(o.approvedAt ? { conditions: [{ type: 'Approved', status: 'True', lastUpdateTime: o.approvedAt }] } : {}),
      ...(o.certificate ? { certificate: o.certificate } : {}),
    },
  };
}

test('should put every step of a join on the timeline with its time', () => {
  const c = cluster('c1', { accepted: true, joinedAt: '2026-01-01T00:00:05Z', availableAt: '2026-01-01T00:00:06Z' });
  const csrs = [csr('c1-a', 'c1', { created: '2026-01-01T00:00:01Z', approvedAt: '2026-01-01T00:00:02Z', certificate: 'eA==' })];
  const steps = buildTimeline(c, csrs, new Map([['c1-a', '2026-01-01T00:00:02.500Z']]));
  assert.deepEqual(steps.map((s) => [s.id, s.at]), [
    ['created', '2026-01-01T00:00:00Z'],
    ['csrCreated', '2026-01-01T00:00:01Z'],
    ['approved', '2026-01-01T00:00:02Z'],
    ['signed', '2026-01-01T00:00:02.500Z'],
    ['accepted', '2026-01-01T00:00:03Z'],
    ['joined', '2026-01-01T00:00:05Z'],
    ['available', '2026-01-01T00:00:06Z'],
  ]);
});

test('should leave the steps not reached without a time, and take the approval time for a signature seen before start', () => {
  const pending = buildTimeline(cluster('c2'), [csr('c2-a', 'c2', { created: '2026-01-01T00:00:01Z' })]);
  assert.deepEqual(pending.filter((s) => s.at).map((s) => s.id), ['created', 'csrCreated']);
  const signed = buildTimeline(cluster('c3'), [csr('c3-a', 'c3', { created: '2026-01-01T00:00:01Z', approvedAt: '2026-01-01T00:00:02Z', certificate: 'eA==' })]);
  assert.equal(signed.find((s) => s.id === 'signed')?.at, '2026-01-01T00:00:02Z');
  // Another cluster's CSR does not count.
  assert.equal(buildTimeline(cluster('c4'), [csr('x', 'c3', { created: '2026-01-01T00:00:01Z' })])[1]?.at, undefined);
});

test('should give a row the columns of get clusters plus its own lease age', () => {
  const lease: Lease = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'managed-cluster-lease', namespace: 'c1' }, spec: { renewTime: '2026-01-01T00:01:00.000000Z' } };
  const other: Lease = { ...lease, metadata: { name: 'managed-cluster-lease', namespace: 'c2' }, spec: { renewTime: '2026-01-01T09:00:00.000000Z' } };
  const row = buildRow(cluster('c1', { accepted: true, joinedAt: '2026-01-01T00:00:05Z' }), { clusters: [], leases: [other, lease], csrs: [], sets: [] });
  assert.equal(row.hubAccepted, true);
  assert.deepEqual(row.urls, ['https://c1:6443']);
  assert.equal(row.joined, 'True');
  assert.equal(row.available, '');
  assert.equal(row.leaseRenewedAt, '2026-01-01T00:01:00.000000Z');
  assert.equal(row.clusterSet, 'default');
  assert.equal(row.certNotAfter, undefined);
});

test('should list unaccepted clusters and undecided agent CSRs with why accept would refuse them', () => {
  const state = buildFleetState({
    objs: { clusters: [cluster('b', { accepted: true }), cluster('a')], leases: [], csrs: [csr('a-1', 'a', { created: '2026-01-01T00:00:01Z' }), csr('b-1', 'b', { created: '2026-01-01T00:00:01Z', approvedAt: '2026-01-01T00:00:02Z' })], sets: [] },
    history: [], now: Date.parse('2026-01-01T00:10:00Z'), user: 'me',
  });
  assert.deepEqual(state.rows.map((r) => r.name), ['a', 'b']);
  assert.deepEqual(state.unaccepted, ['a']);
  assert.deepEqual(state.pendingCsrs.map((c) => c.name), ['a-1']);
  assert.match(state.pendingCsrs[0]!.problem ?? '', /.+/);
});

test('should rebuild the chart from condition times and add a point only when counts change', () => {
  const now = Date.parse('2026-01-01T01:00:00Z');
  const h = seedHistory([
    cluster('a', { created: '2026-01-01T00:00:00Z', joinedAt: '2026-01-01T00:00:10Z', availableAt: '2026-01-01T00:00:20Z' }),
    cluster('b', { created: '2026-01-01T00:00:00Z' }),
  ], now);
  assert.deepEqual(h.map((p) => [p.t - Date.parse('2026-01-01T00:00:00Z'), p.total, p.joined, p.available]), [[0, 2, 0, 0], [10_000, 2, 1, 0], [20_000, 2, 1, 1]]);
  assert.equal(appendPoint(h, { t: now, total: 2, joined: 1, available: 1 }).length, 3);
  const next = appendPoint(h, { t: now, total: 2, joined: 1, available: 0 }, 3);
  assert.equal(next.length, 3);
  assert.deepEqual(next[2], { t: now, total: 2, joined: 1, available: 0 });
});
