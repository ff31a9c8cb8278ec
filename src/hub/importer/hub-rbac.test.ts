import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hubControllerClusterRole } from '../rbac-manifests.js';

test('hubControllerClusterRole: the importer rules only with the ClusterImporter gate, the token for the bootstrap account only', () => {
  const plain = JSON.stringify(hubControllerClusterRole().rules);
  assert.ok(!plain.includes('"cluster.x-k8s.io"') && !plain.includes('secrets') && !plain.includes('serviceaccounts/token'));
  const rules = hubControllerClusterRole({ clusterImporter: { bootstrapServiceAccount: 'agent-registration-bootstrap' } }).rules ?? [];
  assert.ok(rules.some((r) => r.apiGroups?.includes('cluster.x-k8s.io') && r.resources?.includes('clusters') && r.verbs.includes('watch')));
  assert.ok(rules.some((r) => r.resources?.includes('secrets') && r.verbs.join() === 'get'));
  assert.deepEqual(rules.find((r) => r.resources?.includes('serviceaccounts/token'))?.resourceNames, ['agent-registration-bootstrap']);
});
