import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseYamlDocuments } from '../util/yaml.js';
import { joinManifests } from './join-manifests.js';

const AGENT_YAML = new URL('../../deploy/agent/agent.yaml', import.meta.url);

test('join --print-manifests matches deploy/agent/agent.yaml with the cluster name and image filled in', () => {
  const text = readFileSync(AGENT_YAML, 'utf8').replaceAll('CLUSTER_NAME', 'c7').replaceAll('IMAGE', 'registry.local/ocm-ts:1');
  const expected = parseYamlDocuments(text);
  const got = joinManifests({ clusterName: 'c7', image: 'registry.local/ocm-ts:1', bootstrapKubeconfig: 'x' }).filter((o) => o.kind !== 'Secret');
  assert.deepEqual(got, expected);
});

test('the bootstrap secret holds the kubeconfig under the key the agent reads, in the agent namespace, before the Deployment', () => {
  const objs = joinManifests({ clusterName: 'c1', image: 'i', bootstrapKubeconfig: 'apiVersion: v1\nkind: Config\n' });
  const kinds = objs.map((o) => o.kind);
  assert.equal(kinds[0], 'Namespace');
  assert.equal(kinds.at(-1), 'Deployment');
  const secret = objs.find((o) => o.kind === 'Secret') as { metadata: { name: string; namespace: string }; data: Record<string, string> };
  assert.equal(secret.metadata.name, 'bootstrap-hub-kubeconfig');
  assert.equal(secret.metadata.namespace, 'open-cluster-management-agent');
  assert.equal(Buffer.from(secret.data['kubeconfig']!, 'base64').toString(), 'apiVersion: v1\nkind: Config\n');
});
