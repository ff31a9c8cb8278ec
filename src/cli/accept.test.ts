import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pendingClusterCsrs } from './accept.js';
import type { CertificateSigningRequest } from '../api/core.js';

function csr(name: string, lbls: Record<string, string>, conds: { type: string; status: 'True' }[] = [], signer = 'kubernetes.io/kube-apiserver-client'): CertificateSigningRequest {
  return { metadata: { name, labels: lbls }, spec: { request: '', signerName: signer }, status: { conditions: conds } };
}

const L = 'open-cluster-management.io/cluster-name';
const cases: { name: string; input: CertificateSigningRequest[]; expected: string[] }[] = [
  { name: 'pending CSR of the cluster', input: [csr('a', { [L]: 'c1' })], expected: ['a'] },
  { name: 'other cluster ignored', input: [csr('a', { [L]: 'c2' })], expected: [] },
  { name: 'addon CSR ignored', input: [csr('a', { [L]: 'c1', 'open-cluster-management.io/addon-name': 'x' })], expected: [] },
  { name: 'approved ignored', input: [csr('a', { [L]: 'c1' }, [{ type: 'Approved', status: 'True' }])], expected: [] },
  { name: 'denied ignored', input: [csr('a', { [L]: 'c1' }, [{ type: 'Denied', status: 'True' }])], expected: [] },
  { name: 'other signer ignored', input: [csr('a', { [L]: 'c1' }, [], 'example.com/x')], expected: [] },
];
for (const c of cases) {
  test(`pendingClusterCsrs: ${c.name}`, () => {
    assert.deepEqual(pendingClusterCsrs(c.input, 'c1').map((x) => x.metadata.name), c.expected);
  });
}
