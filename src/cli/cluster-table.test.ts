import { test } from 'node:test';
import assert from 'node:assert/strict';
import { humanAge, renderClusters } from './cluster-table.js';
import type { ManagedCluster } from '../api/cluster.js';

const now = Date.parse('2026-01-01T01:00:00Z');

const ages: { name: string; input: number; expected: string }[] = [
  { name: 'seconds', input: 45_000, expected: '45s' },
  { name: 'minutes and seconds', input: 150_000, expected: '2m30s' },
  { name: 'minutes', input: 30 * 60_000, expected: '30m' },
  { name: 'hours and minutes', input: 3 * 3_600_000 + 5 * 60_000, expected: '3h5m' },
  { name: 'days', input: 3 * 86_400_000, expected: '3d' },
];
for (const c of ages) test(`humanAge: ${c.name}`, () => assert.equal(humanAge(c.input), c.expected));

test('renderClusters prints kubectl columns sorted by name', () => {
  const mk = (name: string, accepted: boolean, joined?: 'True'): ManagedCluster => ({
    apiVersion: 'cluster.open-cluster-management.io/v1',
    kind: 'ManagedCluster',
    metadata: { name, creationTimestamp: '2026-01-01T00:59:00Z' },
    spec: { hubAcceptsClient: accepted, managedClusterClientConfigs: [{ url: `https://${name}:6443` }] },
    status: { conditions: joined ? [{ type: 'ManagedClusterJoined', status: joined, reason: 'x', message: '' }] : [] },
  });
  const out = renderClusters([mk('b', false), mk('a', true, 'True')], now, 'table');
  const lines = out.trimEnd().split('\n');
  assert.match(lines[0]!, /^NAME\s+HUB ACCEPTED\s+MANAGED CLUSTER URLS\s+JOINED\s+AVAILABLE\s+AGE$/);
  assert.match(lines[1]!, /^a\s+true\s+https:\/\/a:6443\s+True\s+60s$/);
  assert.match(lines[2]!, /^b\s+false\s+https:\/\/b:6443\s+60s$/);
  assert.equal(renderClusters([], now, 'table'), 'No resources found\n');
});
