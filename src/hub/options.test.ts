import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseGcResourceList, parseLabelsFlag, resolveHubOptions } from './options.js';

test("parseLabelsFlag: OCM's parse rules and error texts", () => {
  assert.deepEqual(parseLabelsFlag(''), {});
  assert.deepEqual(parseLabelsFlag('a=b,c=d'), { a: 'b', c: 'd' });
  assert.deepEqual(parseLabelsFlag('a='), { a: '' });
  assert.throws(() => parseLabelsFlag('a=b=c'), /^HubOptionsError: unexpected label spec: a=b=c$|unexpected label spec: a=b=c/);
  assert.throws(() => parseLabelsFlag('a'), /unexpected label spec: a/);
  assert.throws(() => parseLabelsFlag('=b'), /unexpected empty label key/);
});

test('parseGcResourceList: entries without exactly 3 parts are skipped', () => {
  const r = parseGcResourceList(['addon.open-cluster-management.io/v1beta1/managedclusteraddons', 'bad/entry', 'work.open-cluster-management.io/v1/manifestworks']);
  assert.deepEqual(r.resources.map((x) => x.resource), ['managedclusteraddons', 'manifestworks']);
  assert.deepEqual(r.invalid, ['bad/entry']);
});

test('resolveHubOptions: defaults, gates, --auto-approved-csr-users replaces the deprecated flag', () => {
  const d = resolveHubOptions().options;
  assert.equal(d.featureGates['DefaultClusterSet'], true);
  assert.equal(d.featureGates['ManagedClusterAutoApproval'], false);
  assert.equal(d.timings.cleanupRequeueMs, 5000);
  assert.equal(d.gcResources.length, 2);
  assert.deepEqual(resolveHubOptions({ clusterAutoApprovalUsers: ['old'] }).options.autoApprovedCsrUsers, ['old']);
  assert.deepEqual(resolveHubOptions({ clusterAutoApprovalUsers: ['old'], autoApprovedCsrUsers: ['new'] }).options.autoApprovedCsrUsers, ['new']);
  assert.equal(resolveHubOptions({ featureGates: ['ManagedClusterAutoApproval=true'] }).options.featureGates['ManagedClusterAutoApproval'], true);
  assert.throws(() => resolveHubOptions({ featureGates: ['Nope=true'] }), /unrecognized feature gate: Nope/);
  assert.ok(Object.isFrozen(d));
});
