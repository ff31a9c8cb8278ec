import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dataTypes } from '../../grpc/event-types.js';
import { acceptedAction, accessAttributes, clusterMismatch, GrpcAuthzError, subjectAccessReview } from './authz.js';

test('access attributes follow OCM\'s reviews: namespace = cluster, verb from the action, the cluster\'s own name', () => {
  assert.deepEqual(accessAttributes('managedClusters', 'c1', { dataType: dataTypes.managedClusters, subResource: 'status', action: 'update_request' }), {
    verb: 'update', namespace: 'c1', group: 'cluster.open-cluster-management.io', resource: 'managedclusters', subresource: 'status', name: 'c1',
  });
  assert.deepEqual(accessAttributes('csrs', 'c1', { dataType: dataTypes.csrs, subResource: 'spec', action: 'watch_request' }), {
    verb: 'watch', namespace: 'c1', group: 'certificates.k8s.io', resource: 'certificatesigningrequests',
  });
  assert.equal(accessAttributes('leases', 'c1', { dataType: dataTypes.leases, subResource: 'spec', action: 'resync_request' }).verb, 'list');
  assert.deepEqual(accessAttributes('tokenRequests', 'c1', { dataType: dataTypes.tokenRequests, subResource: 'spec', action: 'create_request' }, 'addon-sa'), {
    verb: 'create', namespace: 'c1', group: '', resource: 'serviceaccounts', subresource: 'token', name: 'addon-sa',
  });
  assert.equal(accessAttributes('tokenRequests', 'c1', { dataType: dataTypes.tokenRequests, subResource: 'spec', action: 'watch_request' }).verb, 'subscribe');
  assert.throws(() => accessAttributes('leases', 'c1', { dataType: dataTypes.leases, subResource: 'spec', action: 'resync_response' }), GrpcAuthzError);
  const sar = subjectAccessReview({ name: 'u', groups: ['g'] }, { verb: 'get' });
  assert.deepEqual(sar.spec, { user: 'u', groups: ['g'], resourceAttributes: { verb: 'get' } });
});

test('an event\'s object must belong to the cluster it names', () => {
  assert.equal(clusterMismatch('managedClusters', 'c1', { metadata: { name: 'c1' } }), undefined);
  assert.match(clusterMismatch('managedClusters', 'c1', { metadata: { name: 'c2' } }) ?? '', /not cluster c1/);
  assert.equal(clusterMismatch('csrs', 'c1', { metadata: { labels: { 'open-cluster-management.io/cluster-name': 'c1' } } }), undefined);
  assert.match(clusterMismatch('csrs', 'c1', { metadata: { labels: { 'open-cluster-management.io/cluster-name': 'c2' } } }) ?? '', /label/);
  assert.match(clusterMismatch('leases', 'c1', { metadata: { namespace: 'c2' } }) ?? '', /namespace c2/);
  assert.match(clusterMismatch('leases', '', { metadata: { namespace: '' } }) ?? '', /names no cluster/);
});

test('only the actions OCM\'s services handle are accepted', () => {
  assert.ok(acceptedAction('managedClusters', 'status', 'update_request'));
  assert.ok(acceptedAction('csrs', 'spec', 'create_request'));
  assert.ok(!acceptedAction('csrs', 'spec', 'update_request'));
  assert.ok(!acceptedAction('managedClusters', 'spec', 'delete_request'));
  assert.ok(!acceptedAction('managedClusterAddOns', 'spec', 'create_request'));
});
