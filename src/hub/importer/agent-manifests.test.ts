import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../api/meta.js';
import { loadAgentTemplate, parseAgentTemplate, renderAgentManifests } from './agent-manifests.js';
import { initialImportConfig } from './import-config.js';

interface Pod {
  containers: { image: string; args: string[]; imagePullPolicy?: string }[];
  imagePullSecrets?: { name: string }[];
  nodeSelector?: Record<string, string>;
}
const podOf = (d: KubeObject): Pod => (d as unknown as { spec: { template: { spec: Pod } } }).spec.template.spec;

test('renderAgentManifests: the shipped agent manifest, filled for the cluster, Secrets before the Deployment', () => {
  const template = parseAgentTemplate(loadAgentTemplate());
  const objects = renderAgentManifests(template, { ...initialImportConfig('capi-1'), image: 'reg/ocm-ts:9', bootstrapHubKubeconfig: 'kc', dockerConfigJson: '{"auths":{}}', nodeSelector: { a: 'b' } });
  assert.deepEqual(objects.map((o) => o.kind), ['Namespace', 'ServiceAccount', 'Role', 'RoleBinding', 'ClusterRole', 'ClusterRoleBinding', 'Secret', 'Secret', 'Deployment']);
  for (const o of objects) if (o.kind !== 'Namespace' && o.kind !== 'ClusterRole' && o.kind !== 'ClusterRoleBinding') assert.equal(o.metadata.namespace, 'open-cluster-management-agent', o.kind);
  const bootstrap = objects[6] as KubeObject & { data: Record<string, string> };
  assert.equal(bootstrap.metadata.name, 'bootstrap-hub-kubeconfig');
  assert.equal(Buffer.from(bootstrap.data['kubeconfig']!, 'base64').toString(), 'kc');
  assert.equal((objects[7] as KubeObject & { type: string }).type, 'kubernetes.io/dockerconfigjson');
  const pod = podOf(objects[8]!);
  assert.equal(pod.containers[0]!.image, 'reg/ocm-ts:9');
  assert.ok(pod.containers[0]!.args.includes('--spoke-cluster-name=capi-1'), pod.containers[0]!.args.join(' '));
  assert.ok(!JSON.stringify(objects).includes('CLUSTER_NAME'));
  assert.deepEqual(pod.imagePullSecrets, [{ name: 'open-cluster-management-image-pull-credentials' }]);
  assert.deepEqual(pod.nodeSelector, { a: 'b' });
  // rendering leaves the parsed template untouched for the next cluster
  assert.equal(podOf(template.find((o) => o.kind === 'Deployment')!).containers[0]!.image, 'IMAGE');
});

test('renderAgentManifests: without a bootstrap kubeconfig or credentials, no Secret; the default image', () => {
  const objects = renderAgentManifests(parseAgentTemplate(loadAgentTemplate()), initialImportConfig('c2'));
  assert.ok(!objects.some((o) => o.kind === 'Secret'));
  const pod = podOf(objects.at(-1)!);
  assert.equal(pod.containers[0]!.image, 'ocm-ts:latest');
  assert.equal(pod.imagePullSecrets, undefined);
});

test('parseAgentTemplate: a template without a Deployment is refused', () => {
  assert.throws(() => parseAgentTemplate('apiVersion: v1\nkind: Namespace\nmetadata: { name: x }\n'), /exactly one Deployment/);
  assert.throws(() => parseAgentTemplate('- just a list\n'), /every document must be a Kubernetes object/);
});
