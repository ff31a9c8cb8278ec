import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { apiResourceList, compareVersions, storageVersionHash } from './discovery.js';
import { builtinResources } from '../registry/builtin-resources.js';
import { ResourceRegistry } from '../registry/resource-registry.js';

describe('discovery', () => {
  it('should order versions GA > beta > alpha, higher first, others last', () => {
    assert.deepEqual(['v1alpha1', 'foo', 'v1', 'v2', 'v1beta2', 'v1beta1'].sort(compareVersions), ['v2', 'v1', 'v1beta2', 'v1beta1', 'v1alpha1', 'foo']);
  });
  it('should list a resource before its subresources', () => {
    const doc = apiResourceList(new ResourceRegistry(builtinResources(), []), '', 'v1') as { resources: { name: string; verbs: string[] }[] };
    const names = doc.resources.map((r) => r.name);
    assert.ok(names.indexOf('namespaces') < names.indexOf('namespaces/finalize'));
    assert.ok(names.indexOf('namespaces') < names.indexOf('namespaces/status'));
    assert.deepEqual(doc.resources.find((r) => r.name === 'namespaces/finalize')?.verbs, ['update']);
    assert.ok(!doc.resources.find((r) => r.name === 'namespaces')?.verbs.includes('deletecollection'));
  });

  it('should give the storage version hash kube-apiserver gives', () => {
    // Values read from kube-apiserver v1.35 discovery.
    assert.equal(storageVersionHash('', 'v1', 'ConfigMap'), 'qFsyl6wFWjQ=');
    assert.equal(storageVersionHash('diff.example.com', 'v1', 'Widget'), 'ttSe6q+QNj8=');
    const doc = apiResourceList(new ResourceRegistry(builtinResources(), []), '', 'v1') as { resources: { name: string; storageVersionHash?: string }[] };
    assert.equal(doc.resources.find((r) => r.name === 'configmaps')?.storageVersionHash, 'qFsyl6wFWjQ=');
  });
});
