// Bad input does not stop the hub: a cluster whose name cannot be a namespace, a CSR with garbage PEM
// or a forged subject, a lease without renewTime, leaseDurationSeconds 0.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ManagedCluster } from '../../src/api/cluster.js';
import type { CertificateSigningRequest, Lease } from '../../src/api/core.js';
import { resourceTypes } from '../../src/client/index.js';
import { createCsr, generateKeyPair } from '../../src/util/x509.js';
import { waitFor } from '../helpers/wait-for.js';
import { startHubFixture, type HubFixture } from './hub-fixture.js';

let fx: HubFixture;
before(async () => {
  fx = await startHubFixture();
});
after(async () => fx?.stop());

const mcs = () => fx.admin.resource<ManagedCluster>(resourceTypes.managedClusters);
const acceptedCond = async (name: string) => (await mcs().get(name)).status?.conditions?.find((c) => c.type === 'HubAcceptedManagedCluster');

async function stillWorking(name: string): Promise<void> {
  await mcs().create({ metadata: { name }, spec: { hubAcceptsClient: true } });
  await waitFor(async () => (await acceptedCond(name))?.status === 'True', 5000, { message: `${name} accepted` });
}

test('a cluster whose name is not a valid namespace name gets HubAccepted False/Error; others still work', async () => {
  await mcs().create({ metadata: { name: 'dotted.name' }, spec: { hubAcceptsClient: true } });
  const c = await waitFor(async () => acceptedCond('dotted.name'), 5000);
  assert.equal(c.status, 'False');
  assert.equal(c.reason, 'Error');
  assert.match(c.message, /namespace dotted\.name/);
  await stillWorking('ok1');
});

test('a CSR with garbage PEM is refused by the server; a well-formed forged one stays unapproved', async () => {
  const csrs = fx.admin.resource<CertificateSigningRequest>(resourceTypes.certificateSigningRequests);
  const spec = { signerName: 'kubernetes.io/kube-apiserver-client', usages: ['digital signature', 'key encipherment', 'client auth'] };
  const garbage = Buffer.from('-----BEGIN CERTIFICATE REQUEST-----\nAAECAwQ=\n-----END CERTIFICATE REQUEST-----\n').toString('base64');
  await assert.rejects(
    csrs.create({ metadata: { name: 'garbage', labels: { 'open-cluster-management.io/cluster-name': 'ok1' } }, spec: { ...spec, request: garbage } }),
    (err: unknown) => (err as { code?: number }).code === 422,
  );
  // Created by the admin (so the requester is not what is refused): the hub controller's own identity.
  const key = (await generateKeyPair('ecdsa-p256')).privateKeyPem;
  const request = Buffer.from(await createCsr({ commonName: 'ocm-ts:hub-controller', organizations: [], privateKeyPem: key })).toString('base64');
  await csrs.create({ metadata: { name: 'forged', labels: { 'open-cluster-management.io/cluster-name': 'ok1' } }, spec: { ...spec, request } });
  const refusal = await waitFor(() => fx.logs.lines.find((l) => l['key'] === 'forged' && String(l['msg']).startsWith('csr refused')), 5000, {
    message: 'the approver refused the forged CSR',
  });
  assert.match(String(refusal['reason']), /common name ocm-ts:hub-controller is not system:open-cluster-management:ok1:<agent>/);
  assert.equal((await csrs.get('forged')).status?.conditions?.find((c) => c.type === 'Approved'), undefined);
  await stillWorking('ok2');
});

test('a lease without renewTime counts as stopped; leaseDurationSeconds 0 means 60', async () => {
  await mcs().create({ metadata: { name: 'nolease' }, spec: { hubAcceptsClient: true, leaseDurationSeconds: 0 } });
  const leases = fx.admin.resource<Lease>(resourceTypes.leases, 'nolease');
  const l = await waitFor(() => leases.get('managed-cluster-lease'), 5000);
  // 0 → 60 s: a fresh lease is not flagged
  await new Promise((r) => setTimeout(r, 300));
  assert.equal((await mcs().get('nolease')).status?.conditions?.find((c) => c.type === 'ManagedClusterConditionAvailable'), undefined);
  await leases.update({ ...l, spec: { holderIdentity: 'managed-cluster-lease' } });
  await waitFor(async () => (await mcs().get('nolease')).status?.conditions?.find((c) => c.type === 'ManagedClusterConditionAvailable')?.status === 'Unknown', 5000);
  await stillWorking('ok3');
});
