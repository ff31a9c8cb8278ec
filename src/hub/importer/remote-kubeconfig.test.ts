import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ManagedCluster } from '../../api/cluster.js';
import { capiKey } from './capi-provider.js';
import { importCondition } from './import-condition.js';
import { mergeForUpdate } from './apply-remote.js';
import { parseRemoteKubeconfig } from './remote-kubeconfig.js';

const kubeconfig = (cluster: string, user: string): string =>
  `apiVersion: v1\nkind: Config\ncurrent-context: c\ncontexts: [{ name: c, context: { cluster: k, user: u } }]\nclusters: [{ name: k, cluster: { server: "https://10.0.0.1:6443", ${cluster} } }]\nusers: [{ name: u, user: { ${user} } }]\n`;

test('parseRemoteKubeconfig: inline data is used; files on the hub and plugins are refused', () => {
  const ok = parseRemoteKubeconfig(kubeconfig(`certificate-authority-data: ${Buffer.from('CA').toString('base64')}`, 'token: abc'));
  assert.deepEqual([ok.server, ok.caPem, ok.token], ['https://10.0.0.1:6443', 'CA', 'abc']);
  assert.throws(() => parseRemoteKubeconfig(kubeconfig('certificate-authority: /etc/hub/ca.crt', 'token: abc')), /refers to a file \(certificate-authority\)/);
  assert.throws(() => parseRemoteKubeconfig(kubeconfig('insecure-skip-tls-verify: true', 'tokenFile: /var/run/secrets/kubernetes.io/serviceaccount/token')), /refers to a file \(tokenFile\)/);
  assert.throws(() => parseRemoteKubeconfig(kubeconfig('insecure-skip-tls-verify: true', 'client-key: key.pem')), /refers to a file \(client-key\)/);
  assert.throws(() => parseRemoteKubeconfig(kubeconfig('insecure-skip-tls-verify: true', 'exec: { command: aws }')), /exec credential plugins are not supported/);
  assert.throws(() => parseRemoteKubeconfig('{{'), /invalid kubeconfig/);
  assert.throws(() => parseRemoteKubeconfig('apiVersion: v1\n'), /no current-context/);
});

const mc = (name: string, annotation?: string): ManagedCluster => ({ metadata: { name, ...(annotation !== undefined ? { annotations: { 'cluster.x-k8s.io/cluster': annotation } } : {}) } });
test('capiKey: the annotation names ns/name, else the cluster name in its own namespace', () => {
  assert.deepEqual(capiKey(mc('c1')), { namespace: 'c1', name: 'c1' });
  assert.deepEqual(capiKey(mc('c1', 'capi-ns/cluster-a')), { namespace: 'capi-ns', name: 'cluster-a' });
  for (const bad of ['just-a-name', 'a/b/c', '/b', 'a/']) assert.equal(capiKey(mc('c1', bad)), undefined, bad);
});

test("importCondition: OCM's reasons and message prefixes", () => {
  const table: [Parameters<typeof importCondition>[0], string, string, string][] = [
    [{ kind: 'kubeconfigGetFailed', error: 'boom' }, 'False', 'KubeConfigGetFailed', 'failed to get kubeconfig. See errors:\nboom'],
    [{ kind: 'kubeconfigNotFound' }, 'False', 'KubeConfigNotFound', 'Secret for kubeconfig is not found.'],
    [{ kind: 'renderFailed', error: 'e' }, 'False', 'ConfigRendererFailed', 'failed to render config. See errors:\ne'],
    [{ kind: 'importFailed', error: 'e' }, 'False', 'ImportFailed', 'failed to import the klusterlet. See errors:\ne'],
    [{ kind: 'imported' }, 'True', 'ImportSucceed', ''],
  ];
  for (const [o, status, reason, message] of table) assert.deepEqual(importCondition(o), { type: 'ManagedClusterImportSucceeded', status, reason, message });
});

test('mergeForUpdate: only a differing content or missing label means an update; extra labels stay', () => {
  const existing = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', labels: { keep: 'me' }, resourceVersion: '7' }, data: { a: 'eA==' } };
  assert.equal(mergeForUpdate(existing, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { a: 'eA==' } }), undefined);
  const u = mergeForUpdate(existing, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', labels: { add: 'x' } }, data: { a: 'eQ==' } });
  assert.deepEqual(u?.metadata.labels, { keep: 'me', add: 'x' });
  assert.equal(u?.metadata.resourceVersion, '7');
  assert.deepEqual(u?.['data'], { a: 'eQ==' });
});
