import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../meta.js';
import { AdmissionError } from './admission-error.js';
import { defaultClusterSetLabel, mutateManagedCluster, mutateTaints } from './managed-cluster-mutating.js';
import {
  isValidHttpsUrl, validateClusterSetBinding, validateManagedCluster, type AdmissionUser, type Authorize, type AuthorizationCheck,
} from './managed-cluster-validating.js';
import { runAsync, runSync } from './steps.js';

const NOW = '2026-12-02T12:00:00Z';
const OLD_TIME = '2026-01-01T00:00:00Z';
const user: AdmissionUser = { username: 'tester', groups: ['system:authenticated'] };

const checkKey = (c: AuthorizationCheck): string => `${c.group}/${c.resource}${c.subresource ? '/' + c.subresource : ''}:${c.verb}:${c.name}`;
const fakeAuthorizer = (grants: string[]): Authorize => (c) => grants.includes(checkKey(c));
/** The same grants, answered the way SubjectAccessReviews are: as promises. */
const asyncAuthorizer = (grants: string[]): Authorize => (c) => Promise.resolve(grants.includes(checkKey(c)));
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
  assert.throws(() => mutateTaints(bad, old, NOW), (e: unknown) => e instanceof AdmissionError && e.code === 400 && e.message === 'It is not allowed to set TimeAdded of Taint "a,c,b".');
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
const refusedAs = (expected: { code: number; message: string }) => (e: unknown): boolean =>
  e instanceof AdmissionError && e.code === expected.code && e.message === expected.message && e.status.code === expected.code && e.status.message === expected.message;

for (const c of cases) {
  test(`validating ManagedCluster: ${c.name}`, async () => {
    const input = (authorize: Authorize, async: boolean) => ({
      obj: structuredClone(c.obj), old: c.old, user, authorize,
      namespacePhase: () => (async ? Promise.resolve(c.phase) : c.phase),
    });
    const sync = (): void => runSync(validateManagedCluster(input(fakeAuthorizer(c.grants ?? []), false)));
    // The webhook's way: every answer a promise; the outcome must be the same.
    const viaPromises = (): Promise<void> => runAsync(validateManagedCluster(input(asyncAuthorizer(c.grants ?? []), true)));
    if (!c.error) {
      sync();
      await viaPromises();
      return;
    }
    assert.throws(sync, refusedAs(c.error));
    await assert.rejects(viaPromises, refusedAs(c.error));
  });
}

test('validating ManagedCluster: a failing authorizer or namespace lookup refuses with its message', async () => {
  const accepted = cluster({ hubAcceptsClient: true });
  const failingSar: Authorize = () => Promise.reject(new Error('subjectaccessreviews.authorization.k8s.io is forbidden'));
  await assert.rejects(
    runAsync(validateManagedCluster({ obj: accepted, old: undefined, user, authorize: failingSar, namespacePhase: () => undefined })),
    refusedAs({ code: 403, message: 'managedclusters/accept.cluster.open-cluster-management.io "c1" is forbidden: subjectaccessreviews.authorization.k8s.io is forbidden' }),
  );
  await assert.rejects(
    runAsync(validateManagedCluster({ obj: accepted, old: undefined, user, authorize: () => true, namespacePhase: () => Promise.reject(new Error('connection refused')) })),
    refusedAs({ code: 403, message: 'managedclusters/accept.cluster.open-cluster-management.io "c1" is forbidden: connection refused' }),
  );
  const throwingSync: Authorize = () => {
    throw new Error('boom');
  };
  const labelled = cluster({}, { 'cluster.open-cluster-management.io/clusterset': 's1' });
  assert.throws(
    () => runSync(validateManagedCluster({ obj: labelled, old: undefined, user, authorize: throwingSync, namespacePhase: () => undefined })),
    refusedAs({ code: 403, message: 'managedclustersets/join.cluster.open-cluster-management.io "s1" is forbidden: boom' }),
  );
});

test('validating ManagedCluster: the Forbidden Status names the resource like kube-apiserver', () => {
  try {
    runSync(validateManagedCluster({ obj: cluster({ hubAcceptsClient: true }), old: undefined, user, authorize: () => false, namespacePhase: () => undefined }));
    assert.fail('expected a refusal');
  } catch (e) {
    assert.ok(e instanceof AdmissionError);
    assert.deepEqual(e.status, {
      apiVersion: 'v1', kind: 'Status', metadata: {}, status: 'Failure', reason: 'Forbidden', code: 403,
      message: 'managedclusters/accept.cluster.open-cluster-management.io "c1" is forbidden: user "tester" cannot update the HubAcceptsClient field',
      details: { name: 'c1', group: 'cluster.open-cluster-management.io', kind: 'managedclusters/accept' },
    });
  }
});

test('validating ManagedClusterSetBinding', async () => {
  const b = (name: string, set: string): KubeObject => ({ metadata: { name, namespace: 'ns' }, spec: { clusterSet: set } });
  const bind = 'cluster.open-cluster-management.io/managedclustersets/bind:create:s1';
  const check = (obj: KubeObject, isCreate: boolean, grants: string[]): void =>
    runSync(validateClusterSetBinding({ obj, isCreate, user, authorize: fakeAuthorizer(grants) }));
  check(b('s1', 's1'), true, [bind]);
  assert.throws(() => check(b('s1', 's2'), true, [bind]), refusedAs({ code: 400, message: 'The ManagedClusterSetBinding must have the same name as the target ManagedClusterSet' }));
  const noBind = { code: 403, message: 'managedclustersets/bind.apps "s1" is forbidden: user "tester" is not allowed to bind cluster set "s1"' };
  assert.throws(() => check(b('s1', 's1'), true, []), refusedAs(noBind));
  await assert.rejects(runAsync(validateClusterSetBinding({ obj: b('s1', 's1'), isCreate: true, user, authorize: asyncAuthorizer([]) })), refusedAs(noBind));
  check(b('s1', 's1'), false, []);
  assert.throws(() => check(b('s1', 's2'), false, []), (e: unknown) => e instanceof AdmissionError && e.code === 400);
});

test('mutateManagedCluster: taints, the default set under the gate, and the lease duration', () => {
  const withGate = cluster({ taints: [taint('a')] });
  mutateManagedCluster(withGate, undefined, { nowRfc3339: NOW, defaultClusterSet: true });
  assert.deepEqual(withGate.metadata.labels, { 'cluster.open-cluster-management.io/clusterset': 'default' });
  assert.deepEqual(withGate.spec, { taints: [taint('a', 'NoSelect', '', NOW)], leaseDurationSeconds: 60 });
  const withoutGate = cluster({ leaseDurationSeconds: 30 });
  mutateManagedCluster(withoutGate, undefined, { nowRfc3339: NOW, defaultClusterSet: false });
  assert.equal(withoutGate.metadata.labels, undefined);
  assert.deepEqual(withoutGate.spec, { leaseDurationSeconds: 30 });
});

test('mutateTaints: a null entry among the stored taints is skipped, not a crash', () => {
  const old = cluster({ taints: [null, taint('a', 'NoSelect', '', OLD_TIME)] });
  const upd = cluster({ taints: [taint('a', 'NoSelect', '', OLD_TIME), taint('b')] });
  mutateTaints(upd, old, NOW);
  assert.deepEqual((upd.spec as { taints: Array<{ timeAdded: string }> }).taints.map((t) => t.timeAdded), [OLD_TIME, NOW]);
});

test('isValidHttpsUrl', () => {
  assert.equal(isValidHttpsUrl(''), false);
  assert.equal(isValidHttpsUrl('not a url'), false);
  assert.equal(isValidHttpsUrl('http://127.0.0.1'), false);
  assert.equal(isValidHttpsUrl('https://127.0.0.1:6443'), true);
});
