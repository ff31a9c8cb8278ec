import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../api/meta.js';
import { SelectorParseError } from '../../api/selector-error.js';
import type { PolicyRule } from '../auth/rbac-rules.js';
import { aggregatedRules, sameRules } from './clusterrole-aggregation.js';

const role = (name: string, labels: Record<string, string>, rules: PolicyRule[], selectors?: unknown[]): KubeObject => ({
  kind: 'ClusterRole', metadata: { name, labels }, rules, ...(selectors ? { aggregationRule: { clusterRoleSelectors: selectors } } : {}),
});

const pods: PolicyRule = { apiGroups: [''], resources: ['pods'], verbs: ['get'] };
const secrets: PolicyRule = { apiGroups: [''], resources: ['secrets'], verbs: ['get'] };
const leases: PolicyRule = { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get'] };

test('should gather the rules of matching roles, selector by selector, by name, each rule once', () => {
  const target = role('view', {}, [{ apiGroups: ['stale'], resources: ['x'], verbs: ['get'] }], [{ matchLabels: { 'agg-view': 'true' } }, { matchExpressions: [{ key: 'extra', operator: 'Exists' }] }]);
  const roles = [
    target,
    role('b-pods', { 'agg-view': 'true' }, [pods]),
    role('a-secrets', { 'agg-view': 'true' }, [secrets, { ...pods, resourceNames: [] }]),
    role('c-leases', { extra: '' }, [leases, pods]),
    role('d-other', { 'agg-view': 'false' }, [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }]),
  ];
  assert.deepEqual(aggregatedRules(target, roles), [secrets, { ...pods, resourceNames: [] }, leases]);
});

test('should never include the aggregating role itself, and select nothing without selectors', () => {
  const self = role('self', { a: 'b' }, [pods], [{ matchLabels: { a: 'b' } }]);
  assert.deepEqual(aggregatedRules(self, [self]), []);
  assert.deepEqual(aggregatedRules(role('t', {}, [], []), [role('x', {}, [pods])]), []);
  assert.deepEqual(aggregatedRules(role('t', {}, [], [null]), [role('x', {}, [pods])]), [], 'a null selector selects nothing');
  assert.deepEqual(aggregatedRules(role('t', {}, [], [{}]), [role('x', {}, [pods])]), [pods], 'an empty selector selects everything');
});

test('should throw on a malformed selector', () => {
  assert.throws(() => aggregatedRules(role('t', {}, [], [{ matchExpressions: [{ key: 'a', operator: 'Near' }] }]), [role('x', {}, [pods])]), SelectorParseError);
});

test('should compare rule lists in order, ignoring key order and empty lists', () => {
  assert.equal(sameRules([], []), true);
  assert.equal(sameRules([pods], [{ verbs: ['get'], resources: ['pods'], apiGroups: [''], resourceNames: [] }]), true);
  assert.equal(sameRules([pods, secrets], [secrets, pods]), false);
  assert.equal(sameRules([pods], [secrets]), false);
  assert.equal(sameRules([pods], []), false);
});
