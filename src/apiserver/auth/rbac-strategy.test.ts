import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../api/meta.js';
import type { StrategyContext } from '../registry/types.js';
import { rbacStrategyOverrides } from './rbac-strategy.js';

const G = 'rbac.authorization.k8s.io';
const s = rbacStrategyOverrides();
const ctx = {} as StrategyContext;
const crb = (roleRef: unknown, subjects: unknown): KubeObject => ({ kind: 'ClusterRoleBinding', metadata: { name: 'b' }, roleRef, subjects });
const render = (errs: Array<{ field: string; message: string }>): string[] => errs.map((e) => `${e.field}: ${e.message}`);

test('bindings: valid roleRef and subjects pass; roleRef is immutable', () => {
  const ok = crb({ apiGroup: G, kind: 'ClusterRole', name: 'r' }, [{ kind: 'Group', apiGroup: G, name: 'g' }, { kind: 'ServiceAccount', name: 'sa', namespace: 'ns' }]);
  assert.deepEqual(s[`${G}/clusterrolebindings`]!.validate!(ok, undefined, ctx), []);
  const changed = crb({ apiGroup: G, kind: 'ClusterRole', name: 'other' }, []);
  assert.deepEqual(render(s[`${G}/clusterrolebindings`]!.validate!(changed, ok, ctx)), ['roleRef: Invalid value: {"APIGroup":"rbac.authorization.k8s.io","Kind":"ClusterRole","Name":"other"}: cannot change roleRef']);
});

test('bindings: the same roleRef with its fields in another order is no change', () => {
  const stored = crb({ apiGroup: G, kind: 'ClusterRole', name: 'r' }, []);
  const reordered = crb({ name: 'r', kind: 'ClusterRole', apiGroup: G }, []);
  assert.deepEqual(s[`${G}/clusterrolebindings`]!.validate!(reordered, stored, ctx), []);
});

test('bindings: bad roleRef kinds and subjects are refused', () => {
  const bad = crb({ apiGroup: G, kind: 'Role', name: '' }, [{ kind: 'ServiceAccount', name: 'sa' }, { kind: 'Robot', name: 'x' }]);
  assert.deepEqual(render(s[`${G}/clusterrolebindings`]!.validate!(bad, undefined, ctx)), [
    'roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"',
    'roleRef.name: Required value',
    'subjects[0].namespace: Required value',
    'subjects[1].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"',
  ]);
  const rb: KubeObject = { kind: 'RoleBinding', metadata: { name: 'b', namespace: 'ns' }, roleRef: { apiGroup: G, kind: 'Role', name: 'r' }, subjects: [{ kind: 'ServiceAccount', name: 'sa' }] };
  assert.deepEqual(s[`${G}/rolebindings`]!.validate!(rb, undefined, ctx), []);
});

test('roles: rules need verbs and cannot mix resources with non-resource URLs', () => {
  const role: KubeObject = { kind: 'ClusterRole', metadata: { name: 'r' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: [] }, { resources: ['pods'], nonResourceURLs: ['/x'], verbs: ['get'] }] };
  assert.deepEqual(render(s[`${G}/clusterroles`]!.validate!(role, undefined, ctx)).map((m) => m.split(':')[0]), ['rules[0].verbs', 'rules[1].nonResourceURLs']);
});

test('roles: an empty rule needs verbs, api groups and resources, as kube-apiserver says', () => {
  const role: KubeObject = { kind: 'Role', metadata: { name: 'r', namespace: 'n' }, rules: [{}, { nonResourceURLs: ['/x'], verbs: ['get'] }] };
  assert.deepEqual(render(s[`${G}/roles`]!.validate!(role, undefined, ctx)), [
    'rules[0].verbs: Required value: verbs must contain at least one value',
    'rules[0].apiGroups: Required value: resource rules must supply at least one api group',
    'rules[0].resources: Required value: resource rules must supply at least one resource',
    'rules[1].nonResourceURLs: Invalid value: ["/x"]: namespaced rules cannot apply to non-resource URLs',
  ]);
});

test('bindings: a missing roleRef reads as an empty one with the default apiGroup', () => {
  const b: KubeObject = { kind: 'RoleBinding', metadata: { name: 'b', namespace: 'ns' }, subjects: [] };
  assert.deepEqual(render(s[`${G}/rolebindings`]!.validate!(b, undefined, ctx)), [
    'roleRef.kind: Unsupported value: "": supported values: "Role", "ClusterRole"',
    'roleRef.name: Required value',
  ]);
  const partial: KubeObject = { kind: 'RoleBinding', metadata: { name: 'b', namespace: 'ns' }, roleRef: { kind: 'Role', name: 'r' } };
  s[`${G}/rolebindings`]!.prepareForCreate!(partial, ctx);
  assert.deepEqual(partial.roleRef, { kind: 'Role', name: 'r', apiGroup: G });
});

test('bindings: User/Group subjects default their apiGroup', () => {
  const b = crb({ apiGroup: G, kind: 'ClusterRole', name: 'r' }, [{ kind: 'User', name: 'u' }, { kind: 'ServiceAccount', name: 'sa', namespace: 'n' }]);
  s[`${G}/clusterrolebindings`]!.prepareForCreate!(b, ctx);
  assert.deepEqual(b.subjects, [{ kind: 'User', name: 'u', apiGroup: G }, { kind: 'ServiceAccount', name: 'sa', namespace: 'n' }]);
  assert.deepEqual(s[`${G}/clusterrolebindings`]!.validate!(b, undefined, ctx), []);
});

test('clusterroles: an aggregationRule needs valid selectors', () => {
  const agg = (rule: unknown): KubeObject => ({ kind: 'ClusterRole', metadata: { name: 'r' }, aggregationRule: rule });
  const v = (o: KubeObject): string[] => render(s[`${G}/clusterroles`]!.validate!(o, undefined, ctx)).map((m) => m.split(':')[0]!);
  assert.deepEqual(v(agg({ clusterRoleSelectors: [{ matchLabels: { a: 'b' } }] })), []);
  assert.deepEqual(v(agg({})), ['aggregationRule.clusterRoleSelectors']);
  assert.deepEqual(v(agg({ clusterRoleSelectors: [{ matchExpressions: [{ key: 'a', operator: 'Near' }] }] })), ['aggregationRule.clusterRoleSelectors[0]']);
  assert.deepEqual(v(agg({ clusterRoleSelectors: [{ matchLabels: { 'bad key!': 'x' } }] })), ['aggregationRule.clusterRoleSelectors[0]']);
});
