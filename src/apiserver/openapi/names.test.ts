import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { definitionName, groupVersionPath, metaName, operationStem, tagOf } from './names.js';

describe('OpenAPI names', () => {
  it('should name definitions as kube-apiserver does', () => {
    const cases = [
      { name: 'core kind', gvk: { group: '', version: 'v1', kind: 'Namespace' }, custom: false, expected: 'io.k8s.api.core.v1.Namespace' },
      { name: 'named group', gvk: { group: 'apps', version: 'v1', kind: 'Deployment' }, custom: false, expected: 'io.k8s.api.apps.v1.Deployment' },
      { name: 'k8s.io group', gvk: { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'Role' }, custom: false, expected: 'io.k8s.api.rbac.v1.Role' },
      { name: 'events', gvk: { group: 'events.k8s.io', version: 'v1', kind: 'Event' }, custom: false, expected: 'io.k8s.api.events.v1.Event' },
      { name: 'CRD kind', gvk: { group: 'apiextensions.k8s.io', version: 'v1', kind: 'CustomResourceDefinition' }, custom: false, expected: 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition' },
      { name: 'custom resource', gvk: { group: 'cluster.open-cluster-management.io', version: 'v1', kind: 'ManagedCluster' }, custom: true, expected: 'io.open-cluster-management.cluster.v1.ManagedCluster' },
      { name: 'custom list', gvk: { group: 'example.com', version: 'v1beta2', kind: 'WidgetList' }, custom: true, expected: 'com.example.v1beta2.WidgetList' },
      { name: 'custom resource in a k8s.io group', gvk: { group: 'about.k8s.io', version: 'v1alpha1', kind: 'ClusterProperty' }, custom: true, expected: 'io.k8s.about.v1alpha1.ClusterProperty' },
    ];
    for (const c of cases) assert.equal(definitionName(c.gvk, c.custom), c.expected, c.name);
    assert.equal(metaName('ObjectMeta'), 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
  });

  it('should build operation stems, tags and group version paths', () => {
    assert.equal(operationStem({ group: '', version: 'v1', kind: 'Pod' }, false), 'CoreV1');
    assert.equal(operationStem({ group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'Role' }, false), 'RbacAuthorizationV1');
    assert.equal(operationStem({ group: 'cluster.open-cluster-management.io', version: 'v1beta2', kind: 'X' }, true), 'ClusterOpenClusterManagementIoV1beta2');
    assert.equal(tagOf('', 'v1', false), 'core_v1');
    assert.equal(tagOf('cluster.open-cluster-management.io', 'v1', true), 'clusterOpenClusterManagementIo_v1');
    assert.equal(groupVersionPath('', 'v1'), 'api/v1');
    assert.equal(groupVersionPath('apps', 'v1'), 'apis/apps/v1');
  });
});
