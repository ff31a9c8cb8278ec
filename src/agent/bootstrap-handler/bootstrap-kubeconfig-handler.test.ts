import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bootstrapSecretChanged, type SecretEvent } from './bootstrap-kubeconfig-handler.js';

const NAME = 'bootstrap-hub-kubeconfig';
function secret(name: string, data: Record<string, string>, labels?: Record<string, string>) {
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: 'open-cluster-management-agent', ...(labels ? { labels } : {}) }, data };
}
const oldS = secret(NAME, { kubeconfig: 'YQ==' });

test('should cancel only on data changes or deletion of the bootstrap secret', () => {
  const cases: { name: string; input: SecretEvent; secretName?: string; expected: boolean }[] = [
    { name: 'add', input: { type: 'add', obj: oldS }, expected: false },
    { name: 'label changes', input: { type: 'update', oldObj: oldS, newObj: secret(NAME, { kubeconfig: 'YQ==' }, { a: 'b' }) }, expected: false },
    { name: 'spec changes', input: { type: 'update', oldObj: oldS, newObj: secret(NAME, { kubeconfig: 'Yg==' }) }, expected: true },
    { name: 'update with different secret name', input: { type: 'update', oldObj: secret('x', {}), newObj: secret('x', { a: 'Yg==' }) }, expected: false },
    { name: 'invalid new object type - update', input: { type: 'update', oldObj: oldS, newObj: { kind: 'ConfigMap', metadata: { name: NAME } } }, expected: false },
    { name: 'invalid old object type - update', input: { type: 'update', oldObj: 'not an object', newObj: secret(NAME, { kubeconfig: 'Yg==' }) }, expected: false },
    { name: 'delete', input: { type: 'delete', obj: oldS }, expected: true },
    { name: 'delete other secret', input: { type: 'delete', obj: secret('other', {}) }, expected: false },
    { name: 'delete custom secret name', input: { type: 'delete', obj: secret('custom', {}) }, secretName: 'custom', expected: true },
    { name: 'invalid type - delete', input: { type: 'delete', obj: 42 }, expected: false },
    { name: 'delete with DeletedFinalStateUnknown', input: { type: 'delete', obj: { key: `ns/${NAME}`, obj: oldS } }, expected: true },
    { name: 'delete with DeletedFinalStateUnknown - other secret name', input: { type: 'delete', obj: { key: 'ns/other', obj: secret('other', {}) } }, expected: false },
  ];
  for (const c of cases) assert.equal(bootstrapSecretChanged(c.input, c.secretName ?? NAME), c.expected, c.name);
});
