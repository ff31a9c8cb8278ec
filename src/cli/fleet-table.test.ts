import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ManagedCluster } from '../api/cluster.js';
import { createFleetView, type FleetRowInput } from './fleet-table.js';

const NOW = Date.parse('2025-01-01T00:00:00Z');

function cluster(name: string, ready: boolean): ManagedCluster {
  const status = ready ? 'True' : 'Unknown';
  return {
    apiVersion: 'cluster.open-cluster-management.io/v1',
    kind: 'ManagedCluster',
    metadata: { name },
    spec: { hubAcceptsClient: ready },
    status: {
      conditions: [
        { type: 'ManagedClusterJoined', status, reason: 'r', message: '', lastTransitionTime: '2025-01-01T00:00:00Z' },
        { type: 'ManagedClusterConditionAvailable', status, reason: 'r', message: '', lastTransitionTime: '2025-01-01T00:00:00Z' },
      ],
    },
  } as ManagedCluster;
}

function row(name: string, ready: boolean, renewAgoMs = 1000): FleetRowInput {
  const renewTime = new Date(NOW - renewAgoMs).toISOString();
  return { name, cluster: cluster(name, ready), lease: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'managed-cluster-lease' }, spec: { renewTime } }, agentPhase: 'running' };
}

test('on a terminal every frame starts with cursor home + clear and redraws the whole table', () => {
  const view = createFleetView({ tty: true });
  const a = view({ rows: [row('c1', true), row('c2', false)], now: NOW, hubUrl: 'https://127.0.0.1:1' });
  assert.ok(a.startsWith('\x1b[H\x1b[J'), JSON.stringify(a.slice(0, 10)));
  assert.match(a, /1\/2 ready/);
  assert.match(a, /^NAME\s+ACCEPTED\s+JOINED\s+AVAILABLE/m);
  assert.match(a, /^c1\s+true\s+True\s+True/m);
  // The same state again is drawn again (the lease age moves on).
  const b = view({ rows: [row('c1', true, 3000), row('c2', false)], now: NOW, hubUrl: 'https://127.0.0.1:1' });
  assert.ok(b.startsWith('\x1b[H\x1b[J'));
  assert.match(b, /^c1\s.*\s3s\s/m);
});

test('off a terminal: no escape codes, one line per change, nothing when nothing changed', () => {
  const view = createFleetView({ tty: false });
  const first = view({ rows: [row('c1', false), row('c2', false)], now: NOW, hubUrl: 'h' });
  assert.doesNotMatch(first, /\x1b/);
  assert.deepEqual(first.trimEnd().split('\n'), [
    'c1: accepted=false joined=Unknown available=Unknown clock-synced=- agent=running',
    'c2: accepted=false joined=Unknown available=Unknown clock-synced=- agent=running',
    '2025-01-01T00:00:00.000Z  0/2 ready',
  ]);
  // Only the lease age moved: nothing to print.
  assert.equal(view({ rows: [row('c1', false, 5000), row('c2', false, 5000)], now: NOW, hubUrl: 'h' }), '');
  const next = view({ rows: [row('c1', true), row('c2', false)], now: NOW + 2000, hubUrl: 'h' });
  assert.deepEqual(next.trimEnd().split('\n'), ['c1: accepted=true joined=True available=True clock-synced=- agent=running', '2025-01-01T00:00:02.000Z  1/2 ready']);
});
