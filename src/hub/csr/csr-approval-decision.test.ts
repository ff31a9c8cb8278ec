import 'reflect-metadata';
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { CertificateSigningRequest } from '../../api/core.js';
import { createCsr, generateKeyPair } from '../../util/x509.js';
import { planApproval, validateSpokeCsr } from './csr-approval-decision.js';

const SIGNER = 'kubernetes.io/kube-apiserver-client';
const P = 'system:open-cluster-management:';
let key = '';
before(async () => {
  key = (await generateKeyPair('ecdsa-p256')).privateKeyPem;
});

async function csr(p: { cn: string; orgs: string[]; label?: string | null; signer?: string; username?: string; pemOverride?: string; conditions?: { type: string; status: 'True' }[] }): Promise<CertificateSigningRequest> {
  const pem = p.pemOverride ?? (await createCsr({ commonName: p.cn, organizations: p.orgs, privateKeyPem: key }));
  return {
    metadata: { name: 'csr1', ...(p.label === null ? {} : { labels: { 'open-cluster-management.io/cluster-name': p.label ?? 'managedcluster1' } }) },
    spec: { request: Buffer.from(pem).toString('base64'), signerName: p.signer ?? SIGNER, ...(p.username ? { username: p.username } : {}) },
    ...(p.conditions ? { status: { conditions: p.conditions } } : {}),
  };
}

const goodOrgs = [`${P}managedcluster1`, `${P}managed-clusters`];
const cases: { name: string; input: Parameters<typeof csr>[0]; valid: boolean }[] = [
  { name: 'a renewal csr', input: { cn: `${P}managedcluster1:agent1`, orgs: goodOrgs }, valid: true },
  { name: 'w/o ManagedClusterGroup for backward-compatibility', input: { cn: `${P}managedcluster1:agent1`, orgs: [`${P}managedcluster1`] }, valid: true },
  { name: 'a spoke cluster csr without labels', input: { cn: `${P}managedcluster1:agent1`, orgs: goodOrgs, label: null }, valid: false },
  { name: 'an invalid signer name', input: { cn: `${P}managedcluster1:agent1`, orgs: goodOrgs, signer: 'example.com/other' }, valid: false },
  { name: 'a wrong block type', input: { cn: 'x', orgs: [], pemOverride: '-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n' }, valid: false },
  { name: 'garbage PEM', input: { cn: 'x', orgs: [], pemOverride: 'not a pem at all' }, valid: false },
  { name: 'garbage DER inside a CERTIFICATE REQUEST block', input: { cn: 'x', orgs: [], pemOverride: '-----BEGIN CERTIFICATE REQUEST-----\nAAECAwQ=\n-----END CERTIFICATE REQUEST-----\n' }, valid: false },
  { name: 'an empty organization', input: { cn: `${P}managedcluster1:agent1`, orgs: [] }, valid: false },
  { name: 'an invalid organization', input: { cn: `${P}managedcluster1:agent1`, orgs: ['system:other'] }, valid: false },
  { name: 'an invalid common name', input: { cn: 'someone', orgs: goodOrgs }, valid: false },
  { name: 'prefix match attack - CN with extra suffix but org has correct cluster', input: { cn: `${P}managedcluster1xyz:agent1`, orgs: goodOrgs }, valid: false },
  { name: 'prefix match attack - org only prefix-matches the cluster', input: { cn: `${P}managedcluster1:agent1`, orgs: [`${P}managedcluster1xyz`] }, valid: false },
  { name: 'prefix match attack - org and CN agree on wrong cluster name', input: { cn: `${P}managedcluster2:agent1`, orgs: [`${P}managedcluster2`] }, valid: false },
  { name: 'prefix match attack - label and CN match but org has wrong cluster', input: { cn: `${P}managedcluster1:agent1`, orgs: [`${P}managedcluster2`] }, valid: false },
  { name: 'two cluster groups', input: { cn: `${P}managedcluster1:agent1`, orgs: [`${P}managedcluster1`, `${P}managedcluster2`] }, valid: false },
  { name: 'CN with invalid format - missing agent name', input: { cn: `${P}managedcluster1`, orgs: goodOrgs }, valid: false },
  { name: 'CN with empty agent name', input: { cn: `${P}managedcluster1:`, orgs: goodOrgs }, valid: false },
  { name: 'CN with invalid format - too many colons', input: { cn: `${P}managedcluster1:agent1:extra`, orgs: goodOrgs }, valid: false },
];

for (const c of cases) {
  test(`validateSpokeCsr: ${c.name}`, async () => {
    const v = validateSpokeCsr(await csr(c.input), SIGNER);
    assert.equal(v.valid, c.valid, v.valid ? 'valid' : v.why);
  });
}

const cn = `${P}managedcluster1:agent1`;
test('planApproval: approved/denied CSRs are skipped', async () => {
  const c = await csr({ cn, orgs: goodOrgs, username: cn, conditions: [{ type: 'Denied', status: 'True' }] });
  assert.equal(planApproval(c, { signerName: SIGNER, autoApproval: true, autoApprovedUsers: [] }).kind, 'skip');
});
test('planApproval: requester == CN → renewal (SAR), regardless of the gate', async () => {
  const c = await csr({ cn, orgs: goodOrgs, username: cn });
  assert.deepEqual(planApproval(c, { signerName: SIGNER, autoApproval: false, autoApprovedUsers: [] }), { kind: 'renewal', cluster: 'managedcluster1' });
});
test('planApproval: bootstrap user auto-approved only with the gate and the user listed', async () => {
  const c = await csr({ cn, orgs: goodOrgs, username: 'system:bootstrap:abcdef' });
  assert.equal(planApproval(c, { signerName: SIGNER, autoApproval: false, autoApprovedUsers: ['system:bootstrap:abcdef'] }).kind, 'skip');
  assert.equal(planApproval(c, { signerName: SIGNER, autoApproval: true, autoApprovedUsers: ['someone-else'] }).kind, 'skip');
  assert.deepEqual(planApproval(c, { signerName: SIGNER, autoApproval: true, autoApprovedUsers: ['system:bootstrap:abcdef'] }), { kind: 'bootstrap', cluster: 'managedcluster1' });
});
test('planApproval: an invalid CSR from a listed bootstrap user is never approved', async () => {
  const c = await csr({ cn: `${P}managedcluster2:agent1`, orgs: [`${P}managedcluster2`], username: 'system:bootstrap:abcdef' });
  assert.equal(planApproval(c, { signerName: SIGNER, autoApproval: true, autoApprovedUsers: ['system:bootstrap:abcdef'] }).kind, 'skip');
});
