import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clusterRoleBindings, clusterSpecificRbac, commonClusterRoles, mergeRbacForUpdate } from './rbac-manifests.js';

test('per-cluster RBAC: names, labels (--labels + cluster-name), subjects, finalizer on the work RoleBinding', () => {
  const [cr, crb] = clusterSpecificRbac('c1', true, { team: 'a', 'open-cluster-management.io/cluster-name': 'stale' });
  assert.equal(cr.metadata.name, 'open-cluster-management:managedcluster:c1');
  assert.deepEqual(cr.metadata.labels, { team: 'a', 'open-cluster-management.io/cluster-name': 'c1' });
  assert.equal(cr.rules?.length, 4);
  assert.deepEqual(cr.rules?.[1], { apiGroups: ['register.open-cluster-management.io'], resources: ['managedclusters/clientcertificates'], verbs: ['renew'] });
  assert.deepEqual(crb.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'open-cluster-management:managedcluster:c1' });
  assert.deepEqual(crb.subjects?.map((s) => `${s.kind}:${s.name}`), ['Group:system:open-cluster-management:c1', 'Group:open-cluster-management:c1']);
  const [denied] = clusterSpecificRbac('c1', false, {});
  assert.deepEqual(denied.rules, [{ apiGroups: ['cluster.open-cluster-management.io'], resources: ['managedclusters'], resourceNames: ['c1'], verbs: ['get', 'list', 'watch'] }]);
  const [reg, work] = clusterRoleBindings('c1', {});
  assert.equal(reg.metadata.name, 'open-cluster-management:managedcluster:c1:registration');
  assert.equal(reg.metadata.namespace, 'c1');
  assert.equal(reg.roleRef.name, 'open-cluster-management:managedcluster:registration');
  assert.equal(reg.metadata.finalizers, undefined);
  assert.deepEqual(work.metadata.finalizers, ['cluster.open-cluster-management.io/manifest-work-cleanup']);
  assert.equal(work.roleRef.name, 'open-cluster-management:managedcluster:work');
});

test('common ClusterRoles carry an empty cluster-name label', () => {
  const [reg, work] = commonClusterRoles({ x: 'y' });
  assert.equal(reg.metadata.name, 'open-cluster-management:managedcluster:registration');
  assert.equal(work.metadata.name, 'open-cluster-management:managedcluster:work');
  assert.deepEqual(reg.metadata.labels, { x: 'y', 'open-cluster-management.io/cluster-name': '' });
  assert.deepEqual(work.rules?.[0], { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'update'] });
});

test('mergeRbacForUpdate: keeps extra labels, restores content, undefined when nothing differs', () => {
  const [required] = clusterSpecificRbac('c1', true, {});
  const existing = { ...structuredClone(required), metadata: { ...required.metadata, labels: { ...required.metadata.labels, extra: 'kept' }, resourceVersion: '7' } };
  assert.equal(mergeRbacForUpdate(existing, required), undefined);
  const edited = { ...existing, rules: [] };
  const out = mergeRbacForUpdate(edited, required);
  assert.ok(out);
  assert.equal(out.rules?.length, 4);
  assert.equal(out.metadata.labels?.['extra'], 'kept');
  assert.equal(out.metadata.resourceVersion, '7');
  const [, crb] = clusterSpecificRbac('c1', true, {});
  assert.ok(mergeRbacForUpdate({ ...crb, subjects: [] }, crb));
});
