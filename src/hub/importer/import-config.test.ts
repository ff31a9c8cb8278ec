import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyChartValues, initialImportConfig } from './import-config.js';

test('applyChartValues: the chart values our agent uses overlay the config; the rest keeps its value', () => {
  const base = { ...initialImportConfig('c1'), image: 'from-flag:1' };
  const out = applyChartValues(base, [
    'bootstrapHubKubeConfig: "apiVersion: v1\\n"',
    'replicaCount: 2',
    'images:',
    '  overrides: { registrationImage: reg.example/ocm-ts:2 }',
    '  imagePullPolicy: Always',
    '  imagePullSecrets: [{ name: mine }]',
    '  imageCredentials: { createImageCredentials: true, dockerConfigJson: "{}" }',
    'nodeSelector: { role: infra }',
    'tolerations: [{ key: infra, operator: Exists }]',
    'priorityClassName: high',
    'klusterlet: { mode: Singleton }',
  ].join('\n'));
  assert.deepEqual(out, {
    clusterName: 'c1', replicas: 2, image: 'reg.example/ocm-ts:2', imagePullPolicy: 'Always', bootstrapHubKubeconfig: 'apiVersion: v1\n',
    dockerConfigJson: '{}', imagePullSecrets: ['mine'], nodeSelector: { role: 'infra' }, tolerations: [{ key: 'infra', operator: 'Exists' }], priorityClassName: 'high',
  });
  assert.deepEqual(applyChartValues(base, '{}'), base);
  assert.equal(applyChartValues(base, 'images: { registry: reg.example/, tag: v3 }').image, 'reg.example/ocm-ts:v3');
  // credentials count only when the chart would create them
  assert.equal(applyChartValues(base, 'images: { imageCredentials: { dockerConfigJson: "{}" } }').dockerConfigJson, undefined);
});

const invalid: { name: string; values: string; message: RegExp }[] = [
  { name: 'not a mapping', values: '- a', message: /not a YAML mapping/ },
  { name: 'not YAML', values: 'a: [', message: /invalid: / },
  { name: 'replicaCount a string', values: 'replicaCount: two', message: /replicaCount must be a non-negative integer/ },
  { name: 'images a list', values: 'images: []', message: /images must be a mapping/ },
  { name: 'bad pull policy', values: 'images: { imagePullPolicy: Sometimes }', message: /images.imagePullPolicy must be Always, IfNotPresent or Never/ },
  { name: 'nodeSelector of numbers', values: 'nodeSelector: { a: 1 }', message: /nodeSelector must be a mapping of strings/ },
];
for (const c of invalid) {
  test(`applyChartValues: refuses ${c.name} with OCM's message prefix`, () => {
    assert.throws(() => applyChartValues(initialImportConfig('c1'), c.values), (e: Error) => e.message.startsWith('the values in the cluster import config secret is invalid: ') && c.message.test(e.message));
  });
}
