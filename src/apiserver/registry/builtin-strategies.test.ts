import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../api/meta.js';
import { configMapStrategy, secretStrategy } from './builtin-strategies.js';
import type { StrategyContext } from './types.js';

const ctx = {} as StrategyContext;
const fields = (errs: Array<{ field: string }>): string[] => errs.map((e) => e.field);

test('an immutable ConfigMap accepts its own data with the keys in another order', () => {
  const old: KubeObject = { kind: 'ConfigMap', metadata: { name: 'c' }, immutable: true, data: { a: '1', b: '2' } };
  const same: KubeObject = { ...old, data: { b: '2', a: '1' } };
  assert.deepEqual(configMapStrategy.validate!(same, old, ctx), []);
  const changed: KubeObject = { ...old, data: { a: '1', b: '3' } };
  assert.deepEqual(fields(configMapStrategy.validate!(changed, old, ctx)), ['data']);
});

test('an immutable Secret accepts its own data with the keys in another order', () => {
  const old: KubeObject = { kind: 'Secret', metadata: { name: 's' }, type: 'Opaque', immutable: true, data: { a: 'MQ==', b: 'Mg==' } };
  assert.deepEqual(secretStrategy.validate!({ ...old, data: { b: 'Mg==', a: 'MQ==' } }, old, ctx), []);
  assert.deepEqual(fields(secretStrategy.validate!({ ...old, data: { a: 'MQ==' } }, old, ctx)), ['data']);
});
