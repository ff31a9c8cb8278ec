import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openSqliteStore } from '../storage/sqlite-store.js';
import { storageKey, type RequestAttributes, type UserInfo } from '../pipeline.js';
import type { KubeObject } from '../../api/meta.js';
import { createAuthorizer } from './rbac-authorizer.js';
import { RbacIndex } from './rbac-index.js';
import { bootstrapPolicyObjects } from './bootstrap-policy.js';
import { forbiddenError } from './forbidden.js';
import { waitFor } from '../../../test/helpers/wait-for.js';

const RBAC = 'rbac.authorization.k8s.io';

function put(store: ReturnType<typeof openSqliteStore>, resource: string, obj: KubeObject): void {
  store.create(storageKey(RBAC, resource, obj.metadata.namespace ?? '', obj.metadata.name!), obj);
}

function attrs(user: UserInfo, verb: string, apiGroup: string, resource: string, extra: Partial<RequestAttributes> = {}): RequestAttributes {
  return { user, verb, resourceRequest: true, path: '', apiGroup, apiVersion: 'v1', resource, subresource: '', namespace: '', name: '', ...extra };
}

test('should allow system:masters everything and deny others without bindings', () => {
  const store = openSqliteStore({ path: ':memory:' });
  try {
    const authz = createAuthorizer(store);
    assert.equal(authz.authorize(attrs({ username: 'root', groups: ['system:masters'] }, 'delete', '', 'secrets', { namespace: 'x', name: 'y' })).decision, 'allow');
    assert.equal(authz.authorize(attrs({ username: 'bob', groups: ['system:authenticated'] }, 'get', '', 'secrets', { namespace: 'x', name: 'y' })).decision, 'noOpinion');
    authz.stop();
  } finally {
    store.close();
  }
});

test('should evaluate cluster and namespaced bindings, role kinds and service-account subjects', async () => {
  const store = openSqliteStore({ path: ':memory:' });
  try {
    for (const o of bootstrapPolicyObjects()) put(store, o.kind === 'ClusterRole' ? 'clusterroles' : 'clusterrolebindings', o);
    put(store, 'clusterroles', { kind: 'ClusterRole', metadata: { name: 'secret-reader' }, rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }] });
    put(store, 'roles', { kind: 'Role', metadata: { name: 'lease-updater', namespace: 'c1' }, rules: [{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['update'] }] });
    put(store, 'rolebindings', {
      kind: 'RoleBinding',
      metadata: { name: 'rb1', namespace: 'c1' },
      roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'secret-reader' },
      subjects: [{ kind: 'ServiceAccount', name: 'agent' }],
    });
    put(store, 'rolebindings', {
      kind: 'RoleBinding',
      metadata: { name: 'rb2', namespace: 'c1' },
      roleRef: { apiGroup: RBAC, kind: 'Role', name: 'lease-updater' },
      subjects: [{ kind: 'Group', apiGroup: RBAC, name: 'g1' }],
    });
    const authz = createAuthorizer(store);
    const sa: UserInfo = { username: 'system:serviceaccount:c1:agent', groups: ['system:serviceaccounts', 'system:authenticated'] };
    // RoleBinding with a ClusterRole: only inside its namespace.
    assert.equal(authz.authorize(attrs(sa, 'get', '', 'secrets', { namespace: 'c1', name: 's' })).decision, 'allow');
    assert.equal(authz.authorize(attrs(sa, 'get', '', 'secrets', { namespace: 'c2', name: 's' })).decision, 'noOpinion');
    assert.equal(authz.authorize(attrs(sa, 'get', '', 'secrets', { name: 's' })).decision, 'noOpinion');
    // Role through a group.
    const g: UserInfo = { username: 'x', groups: ['g1'] };
    const d = authz.authorize(attrs(g, 'update', 'coordination.k8s.io', 'leases', { namespace: 'c1', name: 'l' }));
    assert.deepEqual(d, { decision: 'allow', reason: 'RBAC: allowed by RoleBinding "rb2/c1" of Role "lease-updater" to Group "g1"' });
    // Bootstrap policy: discovery for authenticated, public info for anonymous.
    const nonRes = (u: UserInfo, path: string): RequestAttributes => ({ ...attrs(u, 'get', '', ''), resourceRequest: false, path });
    assert.equal(authz.authorize(nonRes(sa, '/apis/apps')).decision, 'allow');
    const anon: UserInfo = { username: 'system:anonymous', groups: ['system:unauthenticated'] };
    assert.equal(authz.authorize(nonRes(anon, '/healthz')).decision, 'allow');
    assert.equal(authz.authorize(nonRes(anon, '/apis')).decision, 'noOpinion');

    // Watch keeps the index current: delete rb2, add a ClusterRoleBinding.
    store.delete(storageKey(RBAC, 'rolebindings', 'c1', 'rb2'));
    put(store, 'clusterrolebindings', {
      kind: 'ClusterRoleBinding',
      metadata: { name: 'crb' },
      roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'secret-reader' },
      subjects: [{ kind: 'User', apiGroup: RBAC, name: 'x' }],
    });
    await waitFor(() => authz.authorize(attrs(g, 'get', '', 'secrets', { namespace: 'any', name: 's' })).decision === 'allow');
    assert.equal(authz.authorize(attrs(g, 'update', 'coordination.k8s.io', 'leases', { namespace: 'c1', name: 'l' })).decision, 'noOpinion');
    // A binding whose role is missing grants nothing.
    put(store, 'clusterrolebindings', {
      kind: 'ClusterRoleBinding',
      metadata: { name: 'dangling' },
      roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'missing' },
      subjects: [{ kind: 'User', apiGroup: RBAC, name: 'y' }],
    });
    await waitFor(() => authz.index.size.bindings === 6);
    assert.equal(authz.authorize(attrs({ username: 'y', groups: [] }, 'get', '', 'secrets', { namespace: 'a', name: 'b' })).decision, 'noOpinion');
    authz.stop();
  } finally {
    store.close();
  }
});

test('should consult only the bindings of the user and its groups (10,000 clusters)', () => {
  const index = new RbacIndex();
  let roleRefReads = 0;
  const counting = (name: string): object =>
    new Proxy({ apiGroup: RBAC, kind: 'ClusterRole', name }, {
      get(target, prop, receiver) {
        roleRefReads++;
        return Reflect.get(target, prop, receiver) as unknown;
      },
    });
  const n = 10_000;
  for (let i = 0; i < n; i++) {
    const c = `cluster${i}`;
    index.put(storageKey(RBAC, 'clusterroles', '', `ocm:${c}`), { metadata: { name: `ocm:${c}` }, rules: [{ apiGroups: ['cluster.open-cluster-management.io'], resources: ['managedclusters'], resourceNames: [c], verbs: ['get'] }] });
    index.put(storageKey(RBAC, 'clusterrolebindings', '', `ocm:${c}`), {
      metadata: { name: `ocm:${c}` }, roleRef: counting(`ocm:${c}`), subjects: [{ kind: 'Group', apiGroup: RBAC, name: `system:open-cluster-management:${c}` }],
    });
    index.put(storageKey(RBAC, 'rolebindings', c, 'registration'), {
      metadata: { name: 'registration', namespace: c }, roleRef: counting(`ocm:${c}`), subjects: [{ kind: 'Group', apiGroup: RBAC, name: `system:open-cluster-management:${c}` }],
    });
  }
  const u: UserInfo = { username: 'agent', groups: ['system:open-cluster-management:cluster7', 'system:authenticated'] };
  roleRefReads = 0;
  assert.equal(index.evaluate(attrs(u, 'get', 'cluster.open-cluster-management.io', 'managedclusters', { name: 'cluster7' })).allowed, true);
  assert.equal(index.evaluate(attrs(u, 'get', 'cluster.open-cluster-management.io', 'managedclusters', { name: 'cluster8' })).allowed, false);
  assert.equal(index.evaluate(attrs(u, 'get', '', 'secrets', { namespace: 'cluster7', name: 's' })).allowed, false);
  // Each decision reads the roleRef only of the bindings naming the user or its groups (a scan would read it 20,000+ times).
  assert.ok(roleRefReads <= 30, `roleRef read ${roleRefReads} times`);
  assert.equal(index.size.bindings, 2 * n);
});

test('forbiddenError renders the kube-apiserver message', () => {
  const u: UserInfo = { username: 'system:open-cluster-management:c1:agent', groups: [] };
  const e1 = forbiddenError(attrs(u, 'get', '', 'secrets', { namespace: 'kube-system', name: 'foo' }));
  assert.equal(e1.code, 403);
  assert.equal(e1.message, 'secrets "foo" is forbidden: User "system:open-cluster-management:c1:agent" cannot get resource "secrets" in API group "" in the namespace "kube-system"');
  assert.deepEqual(e1.status.details, { name: 'foo', kind: 'secrets' });
  const e2 = forbiddenError(attrs(u, 'patch', 'cluster.open-cluster-management.io', 'managedclusters', { subresource: 'status', name: 'c2' }));
  assert.equal(e2.message, 'managedclusters.cluster.open-cluster-management.io "c2" is forbidden: User "system:open-cluster-management:c1:agent" cannot patch resource "managedclusters/status" in API group "cluster.open-cluster-management.io" at the cluster scope');
  const e3 = forbiddenError(attrs(u, 'list', '', 'namespaces'));
  assert.equal(e3.message, 'namespaces is forbidden: User "system:open-cluster-management:c1:agent" cannot list resource "namespaces" in API group "" at the cluster scope');
  const e4 = forbiddenError({ ...attrs(u, 'get', '', ''), resourceRequest: false, path: '/foo' });
  assert.equal(e4.message, 'forbidden: User "system:open-cluster-management:c1:agent" cannot get path "/foo"');
});
