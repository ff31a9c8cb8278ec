import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ManagedClusterAddOn } from '../../api/addon.js';
import { addonLabelPatch, addonLabelValue } from './addon-decision.js';

const addon = (name: string, status?: 'True' | 'False' | 'Unknown', deleting = false): ManagedClusterAddOn => ({
  metadata: { name, namespace: 'c1', ...(deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
  ...(status ? { status: { conditions: [{ type: 'Available', status, reason: 'r', message: '' }] } } : {}),
});

const valueCases: { name: string; addon: ManagedClusterAddOn; expected: string }[] = [
  { name: 'no condition', addon: addon('a'), expected: 'unreachable' },
  { name: 'status is true', addon: addon('a', 'True'), expected: 'available' },
  { name: 'status is false', addon: addon('a', 'False'), expected: 'unhealthy' },
  { name: 'status is unknown', addon: addon('a', 'Unknown'), expected: 'unreachable' },
];
for (const c of valueCases) test(`addonLabelValue: ${c.name}`, () => assert.equal(addonLabelValue(c.addon), c.expected));

const P = 'feature.open-cluster-management.io/addon-';
test('addonLabelPatch: cluster synced (add, skip deleting, remove stale, keep others)', () => {
  const patch = addonLabelPatch({ [`${P}addon4`]: 'available', other: 'x', [`${P}addon3`]: 'available' }, [addon('addon1'), addon('addon2', 'True', true), addon('addon3', 'True')]);
  assert.deepEqual(patch, { [`${P}addon1`]: 'unreachable', [`${P}addon4`]: null });
});
test('addonLabelPatch: no change', () => {
  assert.deepEqual(addonLabelPatch({ [`${P}addon1`]: 'available' }, [addon('addon1', 'True')]), {});
});
