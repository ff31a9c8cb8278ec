import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ManagedClusterAddOn } from '../../../api/addon.js';
import { fromV1alpha1Addon, toV1alpha1Addon } from './addon-versions.js';

const v1alpha1 = {
  apiVersion: 'addon.open-cluster-management.io/v1alpha1',
  kind: 'ManagedClusterAddOn',
  metadata: { name: 'a1', namespace: 'c1', resourceVersion: '7' },
  spec: { installNamespace: 'addon-ns' },
  status: {
    kubeClientDriver: 'token',
    namespace: 'addon-ns',
    registrations: [
      { signerName: 'kubernetes.io/kube-apiserver-client', subject: { user: 'u', groups: ['g'] } },
      { signerName: 'example.com/signer', subject: { user: 'v', organizationUnit: ['ou'] } },
    ],
    configReferences: [{ group: 'g', resource: 'r', name: 'n', namespace: 'ns', desiredConfig: { name: 'n', specHash: 'h' } }],
    conditions: [{ type: 'Available', status: 'True' }],
  },
};

test('should read a v1alpha1 addon as v1beta1, as OCM converts it', () => {
  const b = fromV1alpha1Addon(structuredClone(v1alpha1));
  assert.equal(b.apiVersion, 'addon.open-cluster-management.io/v1beta1');
  assert.equal(b.metadata.annotations?.['addon.open-cluster-management.io/v1alpha1-install-namespace'], 'addon-ns');
  assert.deepEqual(b.spec, {});
  assert.deepEqual(b.status?.registrations, [
    { type: 'kubeClient', kubeClient: { subject: { user: 'u', groups: ['g'] }, driver: 'token' } },
    { type: 'customSigner', customSigner: { signerName: 'example.com/signer', subject: { user: 'v', organizationUnits: ['ou'] } } },
  ]);
  assert.equal(b.status?.['kubeClientDriver'], undefined);
  assert.deepEqual(b.status?.['configReferences'], [{ group: 'g', resource: 'r', desiredConfig: { name: 'n', specHash: 'h' } }]);
  assert.deepEqual(b.status?.conditions, v1alpha1.status.conditions);
});

test('should write a v1beta1 addon back as the v1alpha1 the hub reads', () => {
  const b = fromV1alpha1Addon(structuredClone(v1alpha1));
  const a = toV1alpha1Addon(b as ManagedClusterAddOn);
  assert.equal(a.apiVersion, 'addon.open-cluster-management.io/v1alpha1');
  assert.deepEqual(a['spec'], { installNamespace: 'addon-ns' });
  const status = a['status'] as Record<string, unknown>;
  assert.equal(status['kubeClientDriver'], 'token');
  assert.deepEqual(status['registrations'], v1alpha1.status.registrations);
  assert.equal(a.metadata.resourceVersion, '7');
});
