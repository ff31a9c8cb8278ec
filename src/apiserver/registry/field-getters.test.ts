import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../api/meta.js';
import { fieldGettersFor, selectableFieldValues, type SelectableKind } from './field-getters.js';

const labelsOf = (k: SelectableKind): string[] => Object.keys(fieldGettersFor(k));
const valuesOf = (obj: KubeObject, k: SelectableKind): Record<string, string> => selectableFieldValues(obj, fieldGettersFor(k));

describe('selectable fields per kind', () => {
  it('should list kind-specific field labels', () => {
    assert.deepEqual(labelsOf({ group: '', kind: 'Secret', namespaced: true }), ['metadata.name', 'metadata.namespace', 'type']);
    assert.ok(labelsOf({ group: 'certificates.k8s.io', kind: 'CertificateSigningRequest', namespaced: false }).includes('spec.signerName'));
    assert.ok(labelsOf({ group: '', kind: 'Event', namespaced: true }).includes('involvedObject.uid'));
    assert.ok(labelsOf({ group: 'events.k8s.io', kind: 'Event', namespaced: true }).includes('regarding.name'));
    assert.deepEqual(labelsOf({ group: 'cluster.open-cluster-management.io', kind: 'ManagedCluster', namespaced: false }),
      ['metadata.name', 'metadata.namespace']);
  });

  it('should read values from objects', () => {
    const ev = {
      apiVersion: 'v1', kind: 'Event', metadata: { name: 'e', namespace: 'ns' },
      involvedObject: { kind: 'Pod', name: 'p' }, reason: 'Started', source: { component: 'kubelet' }, type: 'Normal',
    };
    const v = valuesOf(ev, { group: '', kind: 'Event', namespaced: true });
    assert.equal(v['involvedObject.kind'], 'Pod');
    assert.equal(v['involvedObject.uid'], '');
    assert.equal(v['source'], 'kubelet');
    assert.equal(v['metadata.namespace'], 'ns');
    const node = valuesOf({ metadata: { name: 'n1' } }, { group: '', kind: 'Node', namespaced: false });
    assert.deepEqual(node, { 'metadata.name': 'n1', 'metadata.namespace': '', 'spec.unschedulable': 'false' });
    const csr = valuesOf({ metadata: { name: 'c' }, spec: { signerName: 'kubernetes.io/kube-apiserver-client' } },
      { group: 'certificates.k8s.io', kind: 'CertificateSigningRequest', namespaced: false });
    assert.equal(csr['spec.signerName'], 'kubernetes.io/kube-apiserver-client');
  });
});
