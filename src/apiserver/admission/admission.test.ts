import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../api/meta.js';
import type { Authorizer, RequestAttributes, UserInfo } from '../pipeline.js';
import { ApiError } from '../http/errors.js';
import { defaultClusterSetLabel, mutateTaints } from './managed-cluster-mutating.js';
import { isValidHttpsUrl, validateClusterSetBinding, validateManagedCluster } from './managed-cluster-validating.js';

const NOW = '2026-12-02T12:00:00Z';
const OLD_TIME = '2026-01-01T00:00:00Z';
const user: UserInfo = { username: 'tester', groups: ['system:authenticated'] };

function fakeAuthorizer(grants: string[]): Authorizer {
  return {
    authorize(a: RequestAttributes) {
      const k = `${a.apiGroup}/${a.resource}${a.subresource ? '/' + a.subresource : ''}:${a.verb}:${a.name}`;
      return { decision: grants.includes(k) ? 'allow' : 'noOpinion', reason: '' };
    },
  };
}
const ACCEPT = 'register.open-cluster-management.io/managedclusters/accept:update:c1';
const join = (s: string): string => `cluster.open-cluster-management.io/managedclustersets/join:create:${s}`;

function cluster(spec: Record<string, unknown> = {}, labels?: Record<string, string>, name = 'c1'): KubeObject {
  return { apiVersion: 'cluster.open-cluster-management.io/v1', kind: 'ManagedCluster', metadata: { name, ...(labels ? { labels } : {}) }, spec };
}
const taint = (key: string, effect = 'NoSelect', value = '', timeAdded?: string | null): Record<string, unknown> => ({ key, value, effect, ...(timeAdded !== undefined ? { timeAdded } : {}) });

test('mutating: TestDefault cases', () => {
  const c1 = cluster();
  defaultClusterSetLabel(c1);
  assert.deepEqual(c1.metadata.labels, { 'cluster.open-cluster-management.io/clusterset': 'default' });
  const c2 = cluster({}, { 'cluster.open-cluster-management.io/clusterset': 'prod' });
  defaultClusterSetLabel(c2);
  assert.equal(c2.metadata.labels!['cluster.open-cluster-management.io/clusterset'], 'prod');
  const c3 = cluster({}, { 'cluster.open-cluster-management.io/clusterset': '', other: 'x' });
  defaultClusterSetLabel(c3);
  assert.deepEqual(c3.metadata.labels, { 'cluster.open-cluster-management.io/clusterset': 'default', other: 'x' });

  // CREATE: every taint gets now, client values overwritten
  const created = cluster({ taints: [taint('a'), taint('b', 'NoSelect', '', OLD_TIME)] });
  mutateTaints(created, undefined, NOW);
  assert.deepEqual((created.spec as { taints: Array<{ timeAdded: string }> }).taints.map((t) => t.timeAdded), [NOW, NOW]);

  // UPDATE: changed effect → new time; unchanged keeps old
  const old = cluster({ taints: [taint('a', 'NoSelect', '', OLD_TIME), taint('b', 'NoSelect', '', OLD_TIME)] });
  const upd = cluster({ taints: [taint('a', 'NoSelect', '', OLD_TIME), taint('b', 'PreferNoSelect', '', null), taint('c')] });
  mutateTaints(upd, old, NOW);
  assert.deepEqual((upd.spec as { taints: Array<{ timeAdded: string }> }).taints.map((t) => t.timeAdded), [OLD_TIME, NOW, NOW]);

  // denied: altered timeAdded on unchanged taint, timeAdded on a new taint, omitted on an unchanged one
  const bad = cluster({ taints: [taint('a', 'NoSelect', '', NOW), taint('c', 'NoSelect', '', NOW), taint('b')] });
  assert.throws(() => mutateTaints(bad, old, NOW), (e: unknown) => e instanceof ApiError && e.code === 400 && e.message === 'It is not allowed to set TimeAdded of Taint "a,c,b".');
  // delete taint allowed
  const del = cluster({ taints: [taint('a', 'NoSelect', '', OLD_TIME)] });
  mutateTaints(del, old, NOW);
});

interface Case {
  name: string;
  obj: KubeObject;
  old?: KubeObject;
  grants?: string[];
  phase?: string;
  error?: { code: number; message: string };
}

const cases: Case[] = [
  { name: 'Empty spec cluster', obj: cluster() },
  { name: 'creating an accepted ManagedCluster without permission', obj: cluster({ hubAcceptsClient: true }), error: { code: 403, message: 'managedclusters/accept.cluster.open-cluster-management.io "c1" is forbidden: user "tester" cannot update the HubAcceptsClient field' } },
  { name: 'creating an accepted ManagedCluster with permission', obj: cluster({ hubAcceptsClient: true }), grants: [ACCEPT] },
  { name: 'cluster namespace active', obj: cluster({ hubAcceptsClient: true }), grants: [ACCEPT], phase: 'Active' },
  { name: 'cluster namespace terminating', obj: cluster({ hubAcceptsClient: true }), grants: [ACCEPT], phase: 'Terminating', error: { code: 403, message: 'managedclusters/accept.cluster.open-cluster-management.io "c1" is forbidden: cluster namespace "c1" is terminating' } },
  { name: 'setting clusterset label', obj: cluster({}, { 'cluster.open-cluster-management.io/clusterset': 's1' }), grants: [join('s1')] },
  { name: 'setting clusterset label without permission', obj: cluster({}, { 'cluster.open-cluster-management.io/clusterset': 's1' }), error: { code: 403, message: 'managedclustersets/join.cluster.open-cluster-management.io "s1" is forbidden: user "tester" cannot add/remove a ManagedCluster to/from ManagedClusterSet "s1"' } },
  { name: 'create cluster with invalid config', obj: cluster({ managedClusterClientConfigs: [{ url: 'http://x' }, { url: '' }] }), error: { code: 400, message: 'url "" is invalid in client configs\nurl "http://x" is invalid in client configs' } },
  { name: 'create cluster with valid config', obj: cluster({ managedClusterClientConfigs: [{ url: 'https://127.0.0.1:6443' }] }) },
  { name: 'cluster name with a config', obj: cluster({ managedClusterClientConfigs: [{ url: 'https://a' }] }, undefined, '01.set'), error: { code: 400, message: "metadata.name format is not correct: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')" } },
  { name: 'cluster name without configs (Go quirk: allowed)', obj: cluster({}, undefined, '01.set') },
  { name: 'update accepted without permission', obj: cluster({ hubAcceptsClient: true }), old: cluster({ hubAcceptsClient: false }), error: { code: 403, message: 'managedclusters/accept.cluster.open-cluster-management.io "c1" is forbidden: user "tester" cannot update the HubAcceptsClient field' } },
  { name: 'update other fields without accept permission', obj: cluster({ hubAcceptsClient: true, leaseDurationSeconds: 30 }), old: cluster({ hubAcceptsClient: true }) },
  { name: 'deny (true→false) needs nothing', obj: cluster({ hubAcceptsClient: false }), old: cluster({ hubAcceptsClient: true }) },
  { name: 'update label with 2 set permission', obj: cluster({}, { 'cluster.open-cluster-management.io/clusterset': 's2' }), old: cluster({}, { 'cluster.open-cluster-management.io/clusterset': 's1' }), grants: [join('s1'), join('s2')] },
  { name: 'update label with 1 set permission', obj: cluster({}, { 'cluster.open-cluster-management.io/clusterset': 's2' }), old: cluster({}, { 'cluster.open-cluster-management.io/clusterset': 's1' }), grants: [join('s2')], error: { code: 403, message: 'managedclustersets/join.cluster.open-cluster-management.io "s1" is forbidden: user "tester" cannot add/remove a ManagedCluster to/from ManagedClusterSet "s1"' } },
  { name: 'remove label with permission on old set only', obj: cluster({}, {}), old: cluster({}, { 'cluster.open-cluster-management.io/clusterset': 's1' }), grants: [join('s1')] },
  { name: 'label unchanged needs nothing', obj: cluster({ x: 1 }, { 'cluster.open-cluster-management.io/clusterset': 's1' }), old: cluster({}, { 'cluster.open-cluster-management.io/clusterset': 's1' }) },
];

for (const c of cases) {
  test(`validating ManagedCluster: ${c.name}`, () => {
    const run = (): void =>
      validateManagedCluster({ obj: c.obj, old: c.old, user, authorizer: fakeAuthorizer(c.grants ?? []), namespacePhase: () => c.phase });
    if (!c.error) return run();
    assert.throws(run, (e: unknown) => e instanceof ApiError && e.code === c.error!.code && e.message === c.error!.message);
  });
}

test('validating ManagedClusterSetBinding', () => {
  const b = (name: string, set: string): KubeObject => ({ metadata: { name, namespace: 'ns' }, spec: { clusterSet: set } });
  const bind = 'cluster.open-cluster-management.io/managedclustersets/bind:create:s1';
  validateClusterSetBinding(b('s1', 's1'), true, user, fakeAuthorizer([bind]));
  assert.throws(() => validateClusterSetBinding(b('s1', 's2'), true, user, fakeAuthorizer([bind])), /^Error|The ManagedClusterSetBinding must have the same name as the target ManagedClusterSet/);
  assert.throws(() => validateClusterSetBinding(b('s1', 's1'), true, user, fakeAuthorizer([])), (e: unknown) => e instanceof ApiError && e.code === 403 && e.message === 'managedclustersets/bind.apps "s1" is forbidden: user "tester" is not allowed to bind cluster set "s1"');
  validateClusterSetBinding(b('s1', 's1'), false, user, fakeAuthorizer([]));
  assert.throws(() => validateClusterSetBinding(b('s1', 's2'), false, user, fakeAuthorizer([])), (e: unknown) => e instanceof ApiError && e.code === 400);
});

test('isValidHttpsUrl', () => {
  assert.equal(isValidHttpsUrl(''), false);
  assert.equal(isValidHttpsUrl('not a url'), false);
  assert.equal(isValidHttpsUrl('http://127.0.0.1'), false);
  assert.equal(isValidHttpsUrl('https://127.0.0.1:6443'), true);
});
