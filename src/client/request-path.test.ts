import { test } from 'node:test';
import assert from 'node:assert/strict';
import { queryString, resourcePath } from './request-path.js';
import { resourceTypes as R } from './resource-types.js';

test('should build collection, object and subresource paths', () => {
  const cases: Array<{ name: string; got: string; want: string }> = [
    { name: 'core namespaced collection', got: resourcePath(R.secrets, { namespace: 'ns1' }), want: '/api/v1/namespaces/ns1/secrets' },
    { name: 'core all namespaces', got: resourcePath(R.secrets), want: '/api/v1/secrets' },
    { name: 'core cluster object', got: resourcePath(R.namespaces, { name: 'a' }), want: '/api/v1/namespaces/a' },
    { name: 'group cluster-scoped object status', got: resourcePath(R.managedClusters, { name: 'c1', subresource: 'status' }), want: '/apis/cluster.open-cluster-management.io/v1/managedclusters/c1/status' },
    { name: 'namespace ignored for cluster-scoped', got: resourcePath(R.certificateSigningRequests, { namespace: 'x', name: 'csr-1', subresource: 'approval' }), want: '/apis/certificates.k8s.io/v1/certificatesigningrequests/csr-1/approval' },
    { name: 'group namespaced object', got: resourcePath(R.leases, { namespace: 'c1', name: 'managed-cluster-lease' }), want: '/apis/coordination.k8s.io/v1/namespaces/c1/leases/managed-cluster-lease' },
    { name: 'name is escaped', got: resourcePath(R.configMaps, { namespace: 'n', name: 'a b' }), want: '/api/v1/namespaces/n/configmaps/a%20b' },
  ];
  for (const c of cases) assert.equal(c.got, c.want, c.name);
});

test('should encode query parameters and skip undefined ones', () => {
  assert.equal(queryString({}), '');
  assert.equal(queryString({ watch: true, resourceVersion: '12', labelSelector: 'a=b,c in (d)', x: undefined }), '?watch=true&resourceVersion=12&labelSelector=a%3Db%2Cc+in+%28d%29');
  assert.equal(queryString({ limit: 5, force: false }), '?limit=5&force=false');
});

test('should refuse an empty object name', () => {
  assert.throws(() => resourcePath(R.secrets, { namespace: 'n', name: '' }));
});
