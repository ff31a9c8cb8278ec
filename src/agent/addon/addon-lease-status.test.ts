import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Lease } from '../../api/core.js';
import type { ManagedClusterAddOn } from '../../api/addon.js';
import { addonLeaseCondition, splitAddonKey } from './addon-lease-status.js';
import { addonInstallNamespace, isHostedAddon } from './addon-helpers.js';

const now = Date.parse('2026-06-01T00:10:00Z');
function lease(renewTime?: string): Lease {
  return { metadata: { name: 'test', namespace: 'test' }, spec: renewTime ? { renewTime } : {} };
}

test('addonLeaseCondition table', () => {
  const cases: { name: string; lease?: Lease; hosting?: string; expected: [string, string, string] }[] = [
    { name: 'no addon leases', expected: ['Unknown', 'ManagedClusterAddOnLeaseNotFound', 'The status of test add-on is unknown.'] },
    {
      name: 'no addon lease on management cluster names the hosting cluster in the message',
      hosting: 'cluster2',
      expected: [
        'Unknown',
        'ManagedClusterAddOnLeaseNotFound',
        'The status of test add-on is unknown. No lease found on hosting cluster "cluster2"; verify it matches the cluster where this managed cluster\'s klusterlet actually runs.',
      ],
    },
    { name: 'addon stop to update its lease (5 min ago)', lease: lease('2026-06-01T00:05:00.000000Z'), expected: ['False', 'ManagedClusterAddOnLeaseUpdateStopped', 'test add-on is not available.'] },
    { name: 'addon update its lease constantly', lease: lease('2026-06-01T00:09:59.000000Z'), expected: ['True', 'ManagedClusterAddOnLeaseUpdated', 'test add-on is available.'] },
    { name: 'just inside the grace period', lease: lease('2026-06-01T00:05:00.001000Z'), expected: ['True', 'ManagedClusterAddOnLeaseUpdated', 'test add-on is available.'] },
    { name: 'lease without renewTime', lease: lease(), expected: ['False', 'ManagedClusterAddOnLeaseUpdateStopped', 'test add-on is not available.'] },
  ];
  for (const c of cases) {
    const cond = addonLeaseCondition({ addonName: 'test', lease: c.lease, hostingCluster: c.hosting ?? '', nowMs: now });
    assert.deepEqual([cond.status, cond.reason, cond.message], c.expected, c.name);
    assert.equal(cond.type, 'Available');
  }
});

test('splitAddonKey', () => {
  assert.deepEqual(splitAddonKey('test/test'), { namespace: 'test', name: 'test' });
  assert.equal(splitAddonKey('test/test/test'), undefined);
  assert.equal(splitAddonKey('test'), undefined);
  assert.equal(splitAddonKey('/test'), undefined);
});

test('install namespace and hosted flag', () => {
  const a = (status?: { namespace?: string }, annotations?: Record<string, string>): ManagedClusterAddOn => ({ metadata: { name: 'x', ...(annotations ? { annotations } : {}) }, ...(status ? { status } : {}) });
  assert.equal(addonInstallNamespace(a({ namespace: 'ns1' }, { 'addon.open-cluster-management.io/v1alpha1-install-namespace': 'ns2' })), 'ns1');
  assert.equal(addonInstallNamespace(a(undefined, { 'addon.open-cluster-management.io/v1alpha1-install-namespace': 'ns2' })), 'ns2');
  assert.equal(addonInstallNamespace(a()), 'open-cluster-management-agent-addon');
  assert.equal(isHostedAddon(a(undefined, { 'addon.open-cluster-management.io/hosting-cluster-name': 'h' })), true);
  assert.equal(isHostedAddon(a(undefined, { 'addon.open-cluster-management.io/hosting-cluster-name': '' })), false);
  assert.equal(isHostedAddon(a()), false);
});
