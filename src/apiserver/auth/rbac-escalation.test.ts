import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../api/meta.js';
import { ApiError } from '../http/errors.js';
import { storageKey, type AdmissionContext, type AdmissionOperation, type AdmissionRequest, type ResourceDef, type UserInfo } from '../pipeline.js';
import { openSqliteStore } from '../storage/sqlite-store.js';
import { nullLogger } from '../../util/logger.js';
import { bootstrapPolicyObjects } from './bootstrap-policy.js';
import { createAuthorizer, type RbacAuthorizer } from './rbac-authorizer.js';
import { onlyGcFieldsChanged, rbacEscalationAdmission } from './rbac-escalation.js';
import type { PolicyRule } from './rbac-rules.js';

const RBAC = 'rbac.authorization.k8s.io';
const KINDS: Record<string, [string, boolean]> = {
  roles: ['Role', true], clusterroles: ['ClusterRole', false], rolebindings: ['RoleBinding', true], clusterrolebindings: ['ClusterRoleBinding', false],
};

function def(resource: string): ResourceDef {
  const [kind, namespaced] = KINDS[resource]!;
  return {
    group: RBAC, versions: ['v1'], storageVersion: 'v1', resource, kind, listKind: `${kind}List`, singular: kind.toLowerCase(),
    shortNames: [], categories: [], namespaced, subresources: [], verbs: ['create'],
  };
}

const store = openSqliteStore({ path: ':memory:' });
let authz: RbacAuthorizer;
let ctx: AdmissionContext;

function put(resource: string, obj: KubeObject): void {
  store.create(storageKey(RBAC, resource, obj.metadata.namespace ?? '', obj.metadata.name!), obj);
}
const clusterRole = (name: string, rules: PolicyRule[]): KubeObject => ({ apiVersion: `${RBAC}/v1`, kind: 'ClusterRole', metadata: { name }, rules });
const role = (ns: string, name: string, rules: PolicyRule[]): KubeObject => ({ apiVersion: `${RBAC}/v1`, kind: 'Role', metadata: { name, namespace: ns }, rules });
const binding = (kind: 'RoleBinding' | 'ClusterRoleBinding', name: string, ns: string, roleKind: string, roleName: string, user: string): KubeObject => ({
  apiVersion: `${RBAC}/v1`, kind, metadata: { name, ...(ns ? { namespace: ns } : {}) },
  roleRef: { apiGroup: RBAC, kind: roleKind, name: roleName },
  subjects: [{ kind: 'User', apiGroup: RBAC, name: user }],
});
const user = (name: string): UserInfo => ({ username: name, groups: ['system:authenticated'] });

function admit(who: UserInfo, resource: string, obj: KubeObject, op: AdmissionOperation = 'CREATE', old?: KubeObject): void {
  const req: AdmissionRequest = {
    operation: op, resource: def(resource), subresource: '', namespace: obj.metadata.namespace ?? '', name: obj.metadata.name ?? '',
    object: obj, ...(old ? { oldObject: old } : {}), user: who,
  };
  rbacEscalationAdmission({ authorizer: authz }).validate!(req, ctx);
}

function refused(fn: () => void, code: number, message?: RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof ApiError, String(e));
    assert.equal(e.code, code, e.message);
    if (message) assert.match(e.message, message);
    return true;
  });
}

async function synced(): Promise<void> {
  const rev = store.currentRevision();
  await store.whenDurable(rev);
  // The index follows the store's watch, which delivers asynchronously after the commit.
  for (let i = 0; i < 100; i++) await new Promise((r) => setImmediate(r));
}

before(async () => {
  for (const o of bootstrapPolicyObjects()) put(o.kind === 'ClusterRole' ? 'clusterroles' : 'clusterrolebindings', o);
  // "writer" may write RBAC objects, read configmaps everywhere and read secrets in ns1 only.
  put('clusterroles', clusterRole('rbac-writer', [{ apiGroups: [RBAC], resources: ['roles', 'clusterroles', 'rolebindings', 'clusterrolebindings'], verbs: ['create', 'update', 'patch'] }]));
  put('clusterroles', clusterRole('cm-reader', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }]));
  put('clusterroles', clusterRole('secret-reader', [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }]));
  put('clusterrolebindings', binding('ClusterRoleBinding', 'writer-rbac', '', 'ClusterRole', 'rbac-writer', 'writer'));
  put('clusterrolebindings', binding('ClusterRoleBinding', 'writer-cm', '', 'ClusterRole', 'cm-reader', 'writer'));
  put('rolebindings', binding('RoleBinding', 'writer-secrets', 'ns1', 'ClusterRole', 'secret-reader', 'writer'));
  // "escalator" may escalate clusterroles; "binder" may bind cluster-admin only; "ns-binder" may bind secret-reader in ns2.
  put('clusterroles', clusterRole('escalate-cr', [{ apiGroups: [RBAC], resources: ['clusterroles'], verbs: ['escalate'] }]));
  put('clusterroles', clusterRole('bind-admin', [{ apiGroups: [RBAC], resources: ['clusterroles'], resourceNames: ['cluster-admin'], verbs: ['bind'] }]));
  put('clusterroles', clusterRole('bind-secret-reader', [{ apiGroups: [RBAC], resources: ['clusterroles'], resourceNames: ['secret-reader'], verbs: ['bind'] }]));
  put('clusterrolebindings', binding('ClusterRoleBinding', 'escalator', '', 'ClusterRole', 'escalate-cr', 'escalator'));
  put('clusterrolebindings', binding('ClusterRoleBinding', 'binder', '', 'ClusterRole', 'bind-admin', 'binder'));
  put('rolebindings', binding('RoleBinding', 'ns-binder', 'ns2', 'ClusterRole', 'bind-secret-reader', 'ns-binder'));
  put('roles', role('ns1', 'secret-getter', [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }]));
  authz = createAuthorizer(store);
  authz.start();
  ctx = { store, authorizer: authz, log: nullLogger() };
  await synced();
});

after(() => {
  authz.stop();
  store.close();
});

test('should let system:masters grant anything', () => {
  admit({ username: 'root', groups: ['system:masters'] }, 'clusterrolebindings', binding('ClusterRoleBinding', 'x', '', 'ClusterRole', 'cluster-admin', 'eve'));
  admit({ username: 'root', groups: ['system:masters'] }, 'clusterroles', clusterRole('all', [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }]));
});

test('should refuse a ClusterRole granting more than the author holds, with the missing permissions', () => {
  refused(() => admit(user('writer'), 'clusterroles', clusterRole('x', [{ apiGroups: [''], resources: ['configmaps', 'secrets'], verbs: ['get', 'delete'] }])), 403,
    /^clusterroles\.rbac\.authorization\.k8s\.io "x" is forbidden: user "writer" \(groups=\["system:authenticated"\]\) is attempting to grant RBAC permissions not currently held:\n\{APIGroups:\[""\], Resources:\["configmaps"\], Verbs:\["delete"\]\}\n\{APIGroups:\[""\], Resources:\["secrets"\], Verbs:\["get" "delete"\]\}$/);
  admit(user('writer'), 'clusterroles', clusterRole('x', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }]));
});

test('should judge a Role by what the author holds in its namespace', () => {
  const secretRole = (ns: string): KubeObject => role(ns, 'r', [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }]);
  admit(user('writer'), 'roles', secretRole('ns1'));
  refused(() => admit(user('writer'), 'roles', secretRole('ns2')), 403, /^roles\.rbac\.authorization\.k8s\.io "r" is forbidden: user "writer"/);
});

test('should let the escalate verb lift the check, for its resource only', () => {
  admit(user('escalator'), 'clusterroles', clusterRole('x', [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }]));
  refused(() => admit(user('escalator'), 'roles', role('ns1', 'r', [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }])), 403);
});

test('should require every permission to set or change an aggregationRule', () => {
  const agg: KubeObject = { ...clusterRole('agg', []), aggregationRule: { clusterRoleSelectors: [{ matchLabels: { a: 'b' } }] } };
  refused(() => admit(user('writer'), 'clusterroles', agg), 403, /must have cluster-admin privileges to use the aggregationRule/);
  admit(user('escalator'), 'clusterroles', agg);
  refused(() => admit(user('writer'), 'clusterroles', clusterRole('agg', []), 'UPDATE', agg), 403, /aggregationRule/);
});

test('should refuse a binding to a role whose permissions the author does not hold', () => {
  refused(() => admit(user('writer'), 'clusterrolebindings', binding('ClusterRoleBinding', 'b', '', 'ClusterRole', 'cluster-admin', 'eve')), 403,
    /^clusterrolebindings\.rbac\.authorization\.k8s\.io "b" is forbidden: user "writer" .* not currently held:\n\{APIGroups:\["\*"\], Resources:\["\*"\], Verbs:\["\*"\]\}\n\{NonResourceURLs:\["\*"\], Verbs:\["\*"\]\}$/);
  admit(user('writer'), 'clusterrolebindings', binding('ClusterRoleBinding', 'b', '', 'ClusterRole', 'cm-reader', 'eve'));
  // secret-reader is held in ns1 only: a RoleBinding there is fine, a ClusterRoleBinding is not.
  admit(user('writer'), 'rolebindings', binding('RoleBinding', 'b', 'ns1', 'ClusterRole', 'secret-reader', 'eve'));
  admit(user('writer'), 'rolebindings', binding('RoleBinding', 'b', 'ns1', 'Role', 'secret-getter', 'eve'));
  refused(() => admit(user('writer'), 'clusterrolebindings', binding('ClusterRoleBinding', 'b', '', 'ClusterRole', 'secret-reader', 'eve')), 403);
  refused(() => admit(user('writer'), 'rolebindings', binding('RoleBinding', 'b', 'ns2', 'ClusterRole', 'secret-reader', 'eve')), 403);
});

test('should answer 404 for a binding to a missing role', () => {
  refused(() => admit(user('writer'), 'clusterrolebindings', binding('ClusterRoleBinding', 'b', '', 'ClusterRole', 'nope', 'eve')), 404, /clusterroles\.rbac\.authorization\.k8s\.io "nope" not found/);
  refused(() => admit(user('writer'), 'rolebindings', binding('RoleBinding', 'b', 'ns2', 'Role', 'nope', 'eve')), 404, /roles\.rbac\.authorization\.k8s\.io "nope" not found/);
});

test('should let the bind verb lift the check for the named role only, where it is granted', () => {
  admit(user('binder'), 'clusterrolebindings', binding('ClusterRoleBinding', 'b', '', 'ClusterRole', 'cluster-admin', 'eve'));
  refused(() => admit(user('binder'), 'clusterrolebindings', binding('ClusterRoleBinding', 'b', '', 'ClusterRole', 'secret-reader', 'eve')), 403);
  admit(user('ns-binder'), 'rolebindings', binding('RoleBinding', 'b', 'ns2', 'ClusterRole', 'secret-reader', 'eve'));
  refused(() => admit(user('ns-binder'), 'rolebindings', binding('RoleBinding', 'b', 'ns3', 'ClusterRole', 'secret-reader', 'eve')), 403);
  refused(() => admit(user('ns-binder'), 'clusterrolebindings', binding('ClusterRoleBinding', 'b', '', 'ClusterRole', 'secret-reader', 'eve')), 403);
});

test('should let updates that only change garbage-collection metadata through', () => {
  const old: KubeObject = { ...binding('ClusterRoleBinding', 'b', '', 'ClusterRole', 'cluster-admin', 'eve'), metadata: { name: 'b', finalizers: ['x'], resourceVersion: '5' } };
  const next: KubeObject = { ...old, metadata: { name: 'b', resourceVersion: '5', ownerReferences: [] } };
  admit(user('writer'), 'clusterrolebindings', next, 'UPDATE', old);
  refused(() => admit(user('writer'), 'clusterrolebindings', { ...next, metadata: { ...next.metadata, labels: { a: 'b' } } }, 'UPDATE', old), 403);
});

test('should tell garbage-collection-only changes apart from others', () => {
  const base: KubeObject = { kind: 'ClusterRole', metadata: { name: 'r', labels: { a: '1' }, resourceVersion: '1' }, rules: [] };
  const cases: Array<{ name: string; next: KubeObject; expected: boolean }> = [
    { name: 'same', next: structuredClone(base), expected: true },
    { name: 'finalizers and owners', next: { ...base, metadata: { ...base.metadata, finalizers: ['f'], ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: 'x', uid: 'u' }] } }, expected: true },
    { name: 'key order', next: { rules: [], metadata: { resourceVersion: '2', labels: { a: '1' }, name: 'r' }, kind: 'ClusterRole' }, expected: true },
    { name: 'labels', next: { ...base, metadata: { ...base.metadata, labels: { a: '2' } } }, expected: false },
    { name: 'rules', next: { ...base, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] }, expected: false },
  ];
  for (const c of cases) assert.equal(onlyGcFieldsChanged(c.next, base), c.expected, c.name);
});
