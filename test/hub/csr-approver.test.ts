// CSR approval against the embedded server (hub-controller.md §7): renewals approved after a SAR,
// bootstrap CSRs only for listed users, forged CSRs never.

import 'reflect-metadata';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import type { ManagedCluster } from '../../src/api/cluster.js';
import type { CertificateSigningRequest, ClusterRole, ClusterRoleBinding } from '../../src/api/core.js';
import { resourceTypes } from '../../src/client/index.js';
import type { KubeClient } from '../../src/client/types.js';
import { bootstrapClusterRole } from '../../src/hub/rbac-manifests.js';
import { createCsr, generateKeyPair } from '../../src/util/x509.js';
import { waitFor } from '../helpers/wait-for.js';
import { startHubFixture, type HubFixture } from './hub-fixture.js';
import { agentGroups, agentUser, clientAs } from './identities.js';

const P = 'system:open-cluster-management:';
let fx: HubFixture;
let bootstrap: KubeClient;
let agentR1: KubeClient;
let agentR2: KubeClient;
let key = '';
let n = 0;

before(async () => {
  fx = await startHubFixture({ hub: { featureGates: ['ManagedClusterAutoApproval=true'], autoApprovedCsrUsers: ['bootstrap-user'] } });
  key = (await generateKeyPair('ecdsa-p256')).privateKeyPem;
  await fx.admin.resource<ClusterRole>(resourceTypes.clusterRoles).create(bootstrapClusterRole());
  await fx.admin.resource<ClusterRoleBinding>(resourceTypes.clusterRoleBindings).create({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'bootstrap' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'open-cluster-management:bootstrap' },
    subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'system:bootstrappers:managedcluster' }],
  });
  bootstrap = await clientAs(fx.server, 'bootstrap-user', ['system:bootstrappers:managedcluster']);
  // r1 and r2 are accepted (auto-approval accepts every new cluster once with the gate on)
  for (const c of ['r1', 'r2']) {
    await bootstrap.resource<ManagedCluster>(resourceTypes.managedClusters).create({ metadata: { name: c }, spec: { hubAcceptsClient: false } });
  }
  await waitFor(async () => {
    for (const c of ['r1', 'r2']) {
      const mc = await fx.admin.resource<ManagedCluster>(resourceTypes.managedClusters).get(c);
      if (mc.status?.conditions?.find((x) => x.type === 'HubAcceptedManagedCluster')?.status !== 'True') return false;
    }
    return true;
  }, 5000);
  // auto-accept stamps the annotation once (RFC 3339, second precision)
  const r1 = await fx.admin.resource<ManagedCluster>(resourceTypes.managedClusters).get('r1');
  assert.match(r1.metadata.annotations?.['open-cluster-management.io/automatically-accepted-on'] ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  agentR1 = await clientAs(fx.server, agentUser('r1'), agentGroups('r1'));
  agentR2 = await clientAs(fx.server, agentUser('r2'), agentGroups('r2'));
});
after(async () => {
  bootstrap?.close();
  agentR1?.close();
  agentR2?.close();
  await fx?.stop();
});

async function submit(as: KubeClient, label: string, cn: string | string[], orgs: string[], usages = ['digital signature', 'key encipherment', 'client auth']): Promise<string> {
  const pem = typeof cn === 'string' ? await createCsr({ commonName: cn, organizations: orgs, privateKeyPem: key }) : await multiCnCsr(cn, orgs);
  const name = `csr-${++n}`;
  // The cluster-scoped CSR client: wait until RBAC for the new identity is visible to the authorizer.
  await waitFor(async () => {
    await as.resource<CertificateSigningRequest>(resourceTypes.certificateSigningRequests).create({
      apiVersion: 'certificates.k8s.io/v1',
      kind: 'CertificateSigningRequest',
      metadata: { name, labels: { 'open-cluster-management.io/cluster-name': label } },
      spec: { request: Buffer.from(pem).toString('base64'), signerName: 'kubernetes.io/kube-apiserver-client', usages },
    });
    return true;
  }, 5000);
  return name;
}

/** A request with several CN attributes: Go's x509 (kube-apiserver) authenticates as the last one. */
async function multiCnCsr(cns: string[], orgs: string[]): Promise<string> {
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const name: x509.JsonName = [...orgs.map((o) => ({ O: [o] })), ...cns.map((c) => ({ CN: [c] }))];
  return (await x509.Pkcs10CertificateRequestGenerator.create({ name, keys, signingAlgorithm: alg }, webcrypto)).toString('pem') + '\n';
}

const get = (name: string) => fx.admin.resource<CertificateSigningRequest>(resourceTypes.certificateSigningRequests).get(name);
const approved = async (name: string) => (await get(name)).status?.conditions?.find((c) => c.type === 'Approved');

test('a renewal CSR (requester == CN, accepted cluster) is approved with OCM reason and message, then signed', async () => {
  const name = await submit(agentR1, 'r1', agentUser('r1'), agentGroups('r1'));
  const cond = await waitFor(() => approved(name), 5000);
  assert.equal(cond.reason, 'AutoApprovedByHubCSRApprovingController');
  assert.equal(cond.message, 'Auto approving Managed cluster agent certificate after SubjectAccessReview.');
  await waitFor(async () => ((await get(name)).status?.certificate ?? '') !== '', 5000);
});

test('a bootstrap CSR from a listed user is approved (gate on)', async () => {
  const name = await submit(bootstrap, 'b1', agentUser('b1'), agentGroups('b1'));
  await waitFor(() => approved(name), 5000);
});

test('forged CSRs are never approved; later valid ones are', async () => {
  const forged = [
    // organization only prefix-matches the labelled cluster
    await submit(bootstrap, 'r1', agentUser('r1'), [`${P}r1x`, 'system:open-cluster-management:managed-clusters']),
    // CN and organization agree on another cluster than the label
    await submit(bootstrap, 'r1', agentUser('r2'), agentGroups('r2')),
    // same, sent by r2's own agent as a "renewal" for r1
    await submit(agentR2, 'r1', agentUser('r2'), agentGroups('r2')),
    // CN with a cluster that only prefix-matches
    await submit(bootstrap, 'r1', agentUser('r1x'), agentGroups('r1')),
    // the agent's CN first, then one that kube-apiserver would authenticate as
    await submit(bootstrap, 'f1', [agentUser('f1'), 'system:admin'], agentGroups('f1')),
    // a server certificate usage from a listed bootstrap user
    await submit(bootstrap, 'f2', agentUser('f2'), agentGroups('f2'), ['digital signature', 'key encipherment', 'client auth', 'server auth']),
  ];
  // Ordering: one worker, FIFO queue. Once a CSR created after the forged ones is approved, they were all seen.
  const marker = await submit(bootstrap, 'm1', agentUser('m1'), agentGroups('m1'));
  await waitFor(() => approved(marker), 5000);
  for (const f of forged) {
    assert.equal(await approved(f), undefined, `${f} must not be approved`);
    assert.ok(fx.logs.lines.some((l) => l['key'] === f && String(l['msg']).startsWith('csr refused') && String(l['reason']) !== ''), `${f}: refusal logged with its reason`);
  }
});

test('a renewal CSR whose requester may not renew (denied cluster) is not approved', async () => {
  await fx.admin.resource<ManagedCluster>(resourceTypes.managedClusters).patch('r2', 'merge', { spec: { hubAcceptsClient: false } });
  await waitFor(async () => (await fx.admin.resource<ManagedCluster>(resourceTypes.managedClusters).get('r2')).status?.conditions?.some((c) => c.reason === 'HubClusterAdminDenied'), 5000);
  // give r2's agent CSR create rights through a separate role, without `renew`
  await fx.admin.resource<ClusterRoleBinding>(resourceTypes.clusterRoleBindings).create({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'r2-csr-only' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:node-bootstrapper' },
    subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: agentUser('r2') }],
  });
  const name = await submit(agentR2, 'r2', agentUser('r2'), agentGroups('r2'));
  const marker = await submit(bootstrap, 'm2', agentUser('m2'), agentGroups('m2'));
  await waitFor(() => approved(marker), 5000);
  assert.equal(await approved(name), undefined);
});

test('a bootstrap CSR from an unlisted user waits for a human', async () => {
  const other = await clientAs(fx.server, 'someone', ['system:bootstrappers:managedcluster']);
  try {
    const name = await submit(other, 'u1', agentUser('u1'), agentGroups('u1'));
    const marker = await submit(bootstrap, 'm3', agentUser('m3'), agentGroups('m3'));
    await waitFor(() => approved(marker), 5000);
    assert.equal(await approved(name), undefined);
  } finally {
    other.close();
  }
});
