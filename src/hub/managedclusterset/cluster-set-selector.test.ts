import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ManagedClusterSet } from '../../api/cluster.js';
import { builtinSetAction, clusterSetEmptyCondition, setSelects, setsSelecting, symmetricDifference } from './cluster-set-selector.js';

const set = (name: string, clusterSelector?: NonNullable<ManagedClusterSet['spec']>['clusterSelector']): ManagedClusterSet => ({
  metadata: { name },
  spec: clusterSelector ? { clusterSelector } : {},
});
const member = (s: string): Record<string, string> => ({ 'cluster.open-cluster-management.io/clusterset': s });

const cases: { name: string; set: ManagedClusterSet; labels: Record<string, string> | undefined; expected: boolean | 'throws' }[] = [
  { name: 'empty selector type → exclusive label', set: set('s1'), labels: member('s1'), expected: true },
  { name: 'legacy set, other member', set: set('s1', { selectorType: 'ExclusiveClusterSetLabel' }), labels: member('s2'), expected: false },
  { name: 'label selector matches', set: set('s1', { selectorType: 'LabelSelector', labelSelector: { matchLabels: { vendor: 'x' } } }), labels: { vendor: 'x' }, expected: true },
  { name: 'global: empty selector matches all', set: set('global', { selectorType: 'LabelSelector', labelSelector: {} }), labels: undefined, expected: true },
  { name: 'label type with no selector matches nothing', set: set('s1', { selectorType: 'LabelSelector' }), labels: { a: 'b' }, expected: false },
  { name: 'unknown selector type', set: set('s1', { selectorType: 'Bogus' as 'LabelSelector' }), labels: {}, expected: 'throws' },
];
for (const c of cases) {
  test(`setSelects: ${c.name}`, () => {
    if (c.expected === 'throws') assert.throws(() => setSelects(c.set, c.labels), /selectorType is not right: Bogus/);
    else assert.equal(setSelects(c.set, c.labels), c.expected);
  });
}

test('setsSelecting skips broken sets', () => {
  assert.deepEqual(setsSelecting([set('a'), set('b', { selectorType: 'Bogus' as 'LabelSelector' }), set('global', { selectorType: 'LabelSelector', labelSelector: {} })], member('a')), ['a', 'global']);
});

test('symmetricDifference', () => {
  assert.deepEqual(symmetricDifference(['a', 'b'], ['b', 'c']), ['a', 'c']);
  assert.deepEqual(symmetricDifference([], ['c']), ['c']);
  assert.deepEqual(symmetricDifference(['a'], []), ['a']);
});

test('clusterSetEmptyCondition', () => {
  assert.deepEqual(clusterSetEmptyCondition(0), { type: 'ClusterSetEmpty', status: 'True', reason: 'NoClusterMatched', message: 'No ManagedCluster selected' });
  assert.deepEqual(clusterSetEmptyCondition(2), { type: 'ClusterSetEmpty', status: 'False', reason: 'ClustersSelected', message: '2 ManagedClusters selected' });
});

test('builtinSetAction: default and global', () => {
  assert.equal(builtinSetAction('default', undefined).kind, 'create');
  assert.equal(builtinSetAction('default', set('default', { selectorType: 'ExclusiveClusterSetLabel' })).kind, 'none');
  const edited = { ...set('default', { selectorType: 'LabelSelector', labelSelector: {} }), spec: { clusterSelector: { selectorType: 'LabelSelector' as const, labelSelector: {} }, managedNamespaces: [{ name: 'ns1' }] } };
  const a = builtinSetAction('default', edited);
  assert.equal(a.kind, 'update');
  if (a.kind === 'update') assert.deepEqual(a.set.spec, { clusterSelector: { selectorType: 'ExclusiveClusterSetLabel' }, managedNamespaces: [{ name: 'ns1' }] });
  const disabled = { ...edited, metadata: { name: 'default', annotations: { 'cluster.open-cluster-management.io/autoupdate': 'false' } } };
  assert.equal(builtinSetAction('default', disabled).kind, 'none');
  assert.equal(builtinSetAction('global', set('global', { selectorType: 'LabelSelector', labelSelector: {} })).kind, 'none');
  assert.equal(builtinSetAction('global', set('global', { selectorType: 'LabelSelector', labelSelector: { matchLabels: { a: 'b' } } })).kind, 'update');
  const created = builtinSetAction('global', undefined);
  assert.ok(created.kind === 'create' && created.set.spec?.clusterSelector?.labelSelector !== undefined);
});
