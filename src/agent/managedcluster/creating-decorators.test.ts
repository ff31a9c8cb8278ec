import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ManagedCluster } from '../../api/cluster.js';
import { clientConfigCount, decorateCluster, newHubCluster } from './creating-decorators.js';

test('decorateCluster table', () => {
  const existing: ManagedCluster = { metadata: { name: 'c1', annotations: { keep: 'me' } }, spec: { hubAcceptsClient: true, managedClusterClientConfigs: [{ url: 'https://a', caBundle: 'b2xk' }] } };
  const cases: {
    name: string;
    input: ManagedCluster;
    annotations?: Record<string, string>;
    urls?: string[];
    expectedAnnotations?: Record<string, string>;
    expectedConfigs?: { url: string; caBundle?: string }[];
    ignored: string[];
  }[] = [
    {
      name: 'create a new cluster',
      input: newHubCluster('c1'),
      annotations: { 'agent.open-cluster-management.io/test': 'true', 'foo.io/x': 'y' },
      urls: ['https://spoke:6443'],
      expectedAnnotations: { 'agent.open-cluster-management.io/test': 'true' },
      expectedConfigs: [{ url: 'https://spoke:6443', caBundle: 'Y2E=' }],
      ignored: ['foo.io/x'],
    },
    { name: 'plain prefix match without slash', input: newHubCluster('c1'), annotations: { 'agent.open-cluster-management.ioX': '1' }, expectedAnnotations: { 'agent.open-cluster-management.ioX': '1' }, ignored: [] },
    { name: 'nothing to add', input: newHubCluster('c1'), ignored: [] },
    {
      name: 'existing URL not duplicated, new one appended; other annotations kept',
      input: existing,
      urls: ['https://a', 'https://b'],
      expectedAnnotations: { keep: 'me' },
      expectedConfigs: [{ url: 'https://a', caBundle: 'b2xk' }, { url: 'https://b', caBundle: 'Y2E=' }],
      ignored: [],
    },
  ];
  for (const c of cases) {
    const res = decorateCluster(c.input, { ...(c.annotations ? { annotations: c.annotations } : {}), ...(c.urls ? { externalServerUrls: c.urls } : {}), caBundle: 'Y2E=' });
    assert.deepEqual(res.cluster.metadata.annotations, c.expectedAnnotations, c.name);
    assert.deepEqual(res.cluster.spec?.managedClusterClientConfigs, c.expectedConfigs, c.name);
    assert.deepEqual(res.ignoredAnnotations, c.ignored, c.name);
  }
  assert.equal(clientConfigCount(existing), 1, 'input untouched');
  assert.equal(decorateCluster(existing, { externalServerUrls: ['https://z'] }).cluster.spec?.hubAcceptsClient, true);
});
