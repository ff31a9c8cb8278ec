import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../http/errors.js';
import type { JsonObject } from './json.js';
import { builtinFieldMeta } from './merge-keys.js';
import { applyStrategicMergePatch } from './strategic-merge-patch.js';

const pod = (): JsonObject => ({
  metadata: { name: 'p', finalizers: ['a', 'b'], ownerReferences: [{ uid: '1', name: 'o1' }], labels: { x: '1' } },
  spec: {
    containers: [
      { name: 'c1', image: 'i1', env: [{ name: 'A', value: '1' }], ports: [{ containerPort: 80 }] },
      { name: 'c2', image: 'i2' },
    ],
    tolerations: [{ key: 't1' }],
  },
  status: { conditions: [{ type: 'Ready', status: 'False' }, { type: 'Initialized', status: 'True' }] },
});

describe('applyStrategicMergePatch', () => {
  const meta = builtinFieldMeta('', 'Pod');
  const cases: Array<{ name: string; patch: JsonObject; check: (o: any) => void }> = [
    {
      name: 'merge containers by name',
      patch: { spec: { containers: [{ name: 'c2', image: 'new' }] } },
      check: (o) => assert.deepEqual(o.spec.containers.map((c: any) => c.image), ['i1', 'new']),
    },
    {
      name: 'append a new keyed element',
      patch: { spec: { containers: [{ name: 'c3', image: 'i3' }] } },
      check: (o) => assert.deepEqual(o.spec.containers.map((c: any) => c.name), ['c1', 'c2', 'c3']),
    },
    {
      name: 'merge nested env by name inside a container',
      patch: { spec: { containers: [{ name: 'c1', env: [{ name: 'B', value: '2' }] }] } },
      check: (o) => assert.deepEqual(o.spec.containers[0].env, [{ name: 'A', value: '1' }, { name: 'B', value: '2' }]),
    },
    {
      name: 'delete a keyed element with $patch: delete',
      patch: { spec: { containers: [{ name: 'c1', $patch: 'delete' }] } },
      check: (o) => assert.deepEqual(o.spec.containers.map((c: any) => c.name), ['c2']),
    },
    {
      name: 'replace a keyed list with $patch: replace',
      patch: { spec: { containers: [{ $patch: 'replace' }, { name: 'only', image: 'x' }] } },
      check: (o) => assert.deepEqual(o.spec.containers, [{ name: 'only', image: 'x' }]),
    },
    {
      name: 'merge conditions by type',
      patch: { status: { conditions: [{ type: 'Ready', status: 'True' }] } },
      check: (o) => assert.deepEqual(o.status.conditions, [{ type: 'Ready', status: 'True' }, { type: 'Initialized', status: 'True' }]),
    },
    {
      name: 'replace lists without a merge key',
      patch: { spec: { tolerations: [{ key: 't2' }] } },
      check: (o) => assert.deepEqual(o.spec.tolerations, [{ key: 't2' }]),
    },
    {
      name: 'union primitive merge lists (finalizers)',
      patch: { metadata: { finalizers: ['b', 'c'] } },
      check: (o) => assert.deepEqual(o.metadata.finalizers, ['a', 'b', 'c']),
    },
    {
      name: 'delete from a primitive list',
      patch: { metadata: { '$deleteFromPrimitiveList/finalizers': ['a'] } },
      check: (o) => assert.deepEqual(o.metadata.finalizers, ['b']),
    },
    {
      name: 'merge ownerReferences by uid',
      patch: { metadata: { ownerReferences: [{ uid: '2', name: 'o2' }] } },
      check: (o) => assert.deepEqual(o.metadata.ownerReferences.map((r: any) => r.uid), ['1', '2']),
    },
    {
      name: 'delete keys with null',
      patch: { metadata: { labels: { x: null, y: '2' } } },
      check: (o) => assert.deepEqual(o.metadata.labels, { y: '2' }),
    },
    {
      name: 'replace a map with $patch: replace',
      patch: { metadata: { labels: { $patch: 'replace', z: '3' } } },
      check: (o) => assert.deepEqual(o.metadata.labels, { z: '3' }),
    },
    {
      name: 'delete a map with $patch: delete',
      patch: { metadata: { labels: { $patch: 'delete' } } },
      check: (o) => assert.equal(o.metadata.labels, undefined),
    },
    {
      name: 'drop unlisted keys with $retainKeys',
      patch: { spec: { $retainKeys: ['containers'] } },
      check: (o) => assert.deepEqual(Object.keys(o.spec), ['containers']),
    },
    {
      name: 'honour $setElementOrder',
      patch: { spec: { '$setElementOrder/containers': [{ name: 'c2' }, { name: 'c1' }] } },
      check: (o) => assert.deepEqual(o.spec.containers.map((c: any) => c.name), ['c2', 'c1']),
    },
    {
      name: 'strip directives from inserted values',
      patch: { spec: { newMap: { $patch: 'merge', a: 1, b: null } } },
      check: (o) => assert.deepEqual(o.spec.newMap, { a: 1 }),
    },
  ];
  for (const c of cases) {
    it(`should ${c.name}`, () => {
      const original = pod();
      c.check(applyStrategicMergePatch(original, c.patch, meta));
      assert.deepEqual(original, pod(), 'input untouched');
    });
  }

  it('should behave as merge patch for kinds without metadata (ConfigMap)', () => {
    const out = applyStrategicMergePatch({ data: { a: '1', b: '2' } }, { data: { a: '2', b: null } }, builtinFieldMeta('', 'ConfigMap'));
    assert.deepEqual(out, { data: { a: '2' } });
  });

  const bad: Array<{ name: string; patch: JsonObject }> = [
    { name: 'an unknown $patch', patch: { metadata: { labels: { $patch: 'frob' } } } },
    { name: 'an element without merge key', patch: { spec: { containers: [{ image: 'x' }] } } },
    { name: 'a non-list $deleteFromPrimitiveList', patch: { metadata: { '$deleteFromPrimitiveList/finalizers': 'a' } } },
    { name: 'content outside $retainKeys', patch: { spec: { $retainKeys: ['containers'], tolerations: [] } } },
  ];
  for (const c of bad) {
    it(`should answer 400 for ${c.name}`, () => {
      assert.throws(() => applyStrategicMergePatch(pod(), c.patch, meta), (e: unknown) => e instanceof ApiError && e.code === 400);
    });
  }
});
