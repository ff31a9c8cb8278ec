import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CertificateSigningRequest } from '../../api/core.js';
import type { ManagedClusterAddOn } from '../../api/addon.js';
import type { Lease } from '../../api/core.js';
import { addonCsrTarget, isAddonCsr } from './addon-csr-driver.js';
import { leaseQueueKey } from './addon-lease-controller.js';

test('addonCsrTarget table', () => {
  const cases: { name: string; reg: Parameters<typeof addonCsrTarget>[0]; expected: ReturnType<typeof addonCsrTarget> }[] = [
    {
      name: 'kubeClient: kube-apiserver-client signer, CN user, O groups',
      reg: { type: 'kubeClient', kubeClient: { driver: 'csr', subject: { user: 'u', groups: ['g1', 'g2'] } } },
      expected: { signerName: 'kubernetes.io/kube-apiserver-client', subject: { commonName: 'u', organizations: ['g1', 'g2'] } },
    },
    {
      name: 'customSigner: its signer, CN/O/OU',
      reg: { type: 'customSigner', customSigner: { signerName: 'example.com/s', subject: { user: 'u', groups: ['g'], organizationUnits: ['ou'] } } },
      expected: { signerName: 'example.com/s', subject: { commonName: 'u', organizations: ['g'], organizationalUnits: ['ou'] } },
    },
    {
      name: 'empty CN defaults to the addon user',
      reg: { type: 'customSigner', customSigner: { signerName: 'example.com/s' } },
      expected: { signerName: 'example.com/s', subject: { commonName: 'system:open-cluster-management:cluster:c1:addon:a1:agent:a1', organizations: [], organizationalUnits: [] } },
    },
  ];
  for (const c of cases) assert.deepEqual(addonCsrTarget(c.reg, 'c1', 'a1'), c.expected, c.name);
});

test('isAddonCsr filter', () => {
  const csr = (labels: Record<string, string>, signerName: string): CertificateSigningRequest => ({ metadata: { name: 'x', labels }, spec: { request: '', signerName } });
  const both = { 'open-cluster-management.io/cluster-name': 'c1', 'open-cluster-management.io/addon-name': 'a1' };
  const s = 'kubernetes.io/kube-apiserver-client';
  assert.equal(isAddonCsr(csr(both, s), 'c1', 'a1', s), true);
  assert.equal(isAddonCsr(csr(both, 'other/signer'), 'c1', 'a1', s), false, 'signer');
  assert.equal(isAddonCsr(csr({ 'open-cluster-management.io/cluster-name': 'c1' }, s), 'c1', 'a1', s), false, 'no addon label');
  assert.equal(isAddonCsr(csr({ ...both, 'open-cluster-management.io/cluster-name': 'c2' }, s), 'c1', 'a1', s), false, 'other cluster');
  assert.equal(isAddonCsr(csr(both, ''), 'c1', 'a1', ''), false, 'empty signer');
});

test('leaseQueueKey (TestQueueKeyFunc)', () => {
  const lease: Lease = { metadata: { name: 'test', namespace: 'test' } };
  const addon = (ns?: string): ManagedClusterAddOn => ({ metadata: { name: 'test', namespace: 'cluster1' }, ...(ns ? { status: { namespace: ns } } : {}) });
  const cases: { name: string; addon?: ManagedClusterAddOn; expected: string }[] = [
    { name: 'no addons', expected: '' },
    { name: 'no install namespace', addon: addon(), expected: '' },
    { name: 'different install namespace', addon: addon('other'), expected: '' },
    { name: 'an addon lease', addon: addon('test'), expected: 'test/test' },
  ];
  for (const c of cases) assert.equal(leaseQueueKey(lease, () => c.addon), c.expected, c.name);
});
