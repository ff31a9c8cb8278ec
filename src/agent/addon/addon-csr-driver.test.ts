import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CertificateSigningRequest } from '../../api/core.js';
import type { ManagedClusterAddOn } from '../../api/addon.js';
import type { Lease } from '../../api/core.js';
import { resourceTypes } from '../../client/resource-types.js';
import { realClock } from '../../util/clock.js';
import { nullLogger } from '../../util/logger.js';
import { parseCsr } from '../../util/x509.js';
import { fakeLister, fakeResourceClient } from '../register/fake-clients.js';
import { addonCsrTarget, createAddonCsrDriver, isAddonCsr } from './addon-csr-driver.js';
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

function addonDriver(initial: CertificateSigningRequest[] = []) {
  const csrs = fakeResourceClient<CertificateSigningRequest>(resourceTypes.certificateSigningRequests, undefined, initial);
  const driver = createAddonCsrDriver({
    clusterName: 'c1',
    addonName: 'a1',
    registration: { type: 'kubeClient', kubeClient: { driver: 'csr', subject: { user: 'u', groups: ['g'] } } },
    csrs,
    csrLister: fakeLister(() => [...csrs.objects.values()]),
    expirationSeconds: 3600,
    log: nullLogger(),
    clock: realClock,
    random: () => 0.5,
  });
  return { csrs, driver };
}

const signal = new AbortController().signal;
const secret = { metadata: { namespace: 'ns', name: 'a1-hub-kubeconfig' }, data: {} };

test('addon CSR driver: CSR named and labelled for the addon, with its DNS name and subject', async () => {
  const { csrs, driver } = addonDriver();
  assert.deepEqual(await driver.process('test', secret, {}, signal), {});
  const csr = [...csrs.objects.values()][0]!;
  assert.equal(csr.metadata.generateName, 'addon-c1-a1-');
  assert.deepEqual(csr.metadata.labels, { 'open-cluster-management.io/cluster-name': 'c1', 'open-cluster-management.io/addon-name': 'a1' });
  assert.equal(csr.spec.expirationSeconds, 3600);
  const req = parseCsr(Buffer.from(csr.spec.request, 'base64').toString());
  assert.deepEqual([req.commonName, req.organizations, req.dnsNames], ['u', ['g'], ['a1.addon.open-cluster-management.io']]);
});

test('addon CSR driver: the creation halt counts only this addon\'s CSRs', async () => {
  const csr = (name: string, addon: string): CertificateSigningRequest => ({
    metadata: { name, labels: { 'open-cluster-management.io/cluster-name': 'c1', 'open-cluster-management.io/addon-name': addon } },
    spec: { request: '', signerName: 'kubernetes.io/kube-apiserver-client' },
  });
  const others = addonDriver(Array.from({ length: 10 }, (_, i) => csr(`o${i}`, 'other')));
  await others.driver.process('test', secret, {}, signal);
  assert.deepEqual(others.csrs.actions, ['create']);
  const mine = addonDriver(Array.from({ length: 10 }, (_, i) => csr(`m${i}`, 'a1')));
  const out = await mine.driver.process('test', secret, {}, signal);
  assert.deepEqual(mine.csrs.actions, []);
  assert.equal(out.condition?.message, 'Stop creating csr since there are too many csr created already on hub');
});
