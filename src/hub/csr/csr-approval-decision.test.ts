import 'reflect-metadata';
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { CertificateSigningRequest } from '../../api/core.js';
import { createCsr, generateKeyPair } from '../../util/x509.js';
import type { ManagedCluster } from '../../api/cluster.js';
import { bootstrapApprovalTiming, planApproval } from './csr-approval-decision.js';

const P = 'system:open-cluster-management:';
const USAGES = ['digital signature', 'key encipherment', 'client auth'];
let key = '';
before(async () => {
  key = (await generateKeyPair('ecdsa-p256')).privateKeyPem;
});

async function csr(p: { cn: string; orgs: string[]; label?: string; username?: string; groups?: string[]; usages?: string[]; conditions?: { type: string; status: 'True' }[] }): Promise<CertificateSigningRequest> {
  const pem = await createCsr({ commonName: p.cn, organizations: p.orgs, privateKeyPem: key });
  return {
    metadata: { name: 'csr1', labels: { 'open-cluster-management.io/cluster-name': p.label ?? 'managedcluster1' } },
    spec: {
      request: Buffer.from(pem).toString('base64'),
      signerName: 'kubernetes.io/kube-apiserver-client',
      usages: p.usages ?? USAGES,
      ...(p.username ? { username: p.username } : {}),
      ...(p.groups ? { groups: p.groups } : {}),
    },
    ...(p.conditions ? { status: { conditions: p.conditions } } : {}),
  };
}

const cn = `${P}managedcluster1:agent1`;
const goodOrgs = [`${P}managedcluster1`, `${P}managed-clusters`];
const off = { autoApproval: false, autoApprovedUsers: [] };

test('planApproval: approved/denied CSRs are skipped', async () => {
  const c = await csr({ cn, orgs: goodOrgs, username: cn, conditions: [{ type: 'Denied', status: 'True' }] });
  assert.equal(planApproval(c, { autoApproval: true, autoApprovedUsers: [] }).kind, 'skip');
});
test('planApproval: requester == CN → renewal (SAR), regardless of the gate', async () => {
  const c = await csr({ cn, orgs: goodOrgs, username: cn });
  assert.deepEqual(planApproval(c, off), { kind: 'renewal', cluster: 'managedcluster1' });
});
test('planApproval: bootstrap user auto-approved only with the gate and the user listed', async () => {
  const c = await csr({ cn, orgs: goodOrgs, username: 'system:bootstrap:abcdef' });
  assert.equal(planApproval(c, { autoApproval: false, autoApprovedUsers: ['system:bootstrap:abcdef'] }).kind, 'skip');
  assert.equal(planApproval(c, { autoApproval: true, autoApprovedUsers: ['someone-else'] }).kind, 'skip');
  assert.deepEqual(planApproval(c, { autoApproval: true, autoApprovedUsers: ['system:bootstrap:abcdef'] }), { kind: 'bootstrap', cluster: 'managedcluster1' });
});
test('planApproval: a listed service account (no bootstrap group) is auto-approved', async () => {
  const sa = 'system:serviceaccount:open-cluster-management:agent-registration-bootstrap';
  const c = await csr({ cn, orgs: goodOrgs, username: sa, groups: ['system:serviceaccounts'] });
  assert.deepEqual(planApproval(c, { autoApproval: true, autoApprovedUsers: [sa] }), { kind: 'bootstrap', cluster: 'managedcluster1' });
});

const refused: { name: string; input: Parameters<typeof csr>[0]; reason: RegExp }[] = [
  { name: "another cluster's identity from a listed bootstrap user", input: { cn: `${P}managedcluster2:agent1`, orgs: [`${P}managedcluster2`], username: 'system:bootstrap:abcdef' }, reason: /common name/ },
  { name: "the hub controller's identity as a 'renewal'", input: { cn: 'ocm-ts:hub-controller', orgs: [], username: 'ocm-ts:hub-controller' }, reason: /common name ocm-ts:hub-controller/ },
  { name: 'system:masters', input: { cn, orgs: [...goodOrgs, 'system:masters'], username: cn }, reason: /system:masters/ },
  { name: 'server auth usage', input: { cn, orgs: goodOrgs, username: cn, usages: [...USAGES, 'server auth'] }, reason: /server auth/ },
  { name: "renewal-shaped CSR sent by another cluster's agent", input: { cn: `${P}managedcluster2:a`, orgs: [`${P}managedcluster2`], label: 'managedcluster1', username: `${P}managedcluster2:a` }, reason: /common name/ },
];
for (const r of refused) {
  test(`planApproval: refuses ${r.name}, with the reason`, async () => {
    const plan = planApproval(await csr(r.input), { autoApproval: true, autoApprovedUsers: ['system:bootstrap:abcdef'] });
    assert.equal(plan.kind, 'refuse');
    assert.match(plan.kind === 'refuse' ? plan.why : '', r.reason);
  });
}

test('planApproval: a gRPC-signer CSR takes its requester from the csr-user annotation, never from the hub that created it', async () => {
  const base = await csr({ cn, orgs: goodOrgs, username: 'ocm-ts:hub-controller' });
  const grpc = (user?: string): CertificateSigningRequest => ({
    ...base,
    metadata: { ...base.metadata, ...(user ? { annotations: { 'open-cluster-management.io/csr-user': user } } : {}) },
    spec: { ...base.spec, signerName: 'open-cluster-management.io/grpc' },
  });
  const on = { autoApproval: true, autoApprovedUsers: ['system:bootstrap:abcdef'] };
  assert.deepEqual(planApproval(grpc('system:bootstrap:abcdef'), on), { kind: 'bootstrap', cluster: 'managedcluster1' });
  assert.deepEqual(planApproval(grpc(cn), on), { kind: 'renewal', cluster: 'managedcluster1' });
  assert.equal(planApproval(grpc(), on).kind, 'refuse');
  assert.equal(planApproval(grpc(`${P}managedcluster2:agent1`), on).kind, 'refuse');
});

test('bootstrapApprovalTiming: approve once the cluster is accepted or its RBAC written, wait (bounded) while it is on its way', () => {
  const mc = (o: { accepted?: boolean; hubAcceptsClient?: boolean; autoAccepted?: boolean }): ManagedCluster => ({
    metadata: { name: 'c1', ...(o.autoAccepted ? { annotations: { 'open-cluster-management.io/automatically-accepted-on': '2026-12-03T00:00:00Z' } } : {}) },
    spec: { hubAcceptsClient: o.hubAcceptsClient ?? false },
    ...(o.accepted ? { status: { conditions: [{ type: 'HubAcceptedManagedCluster', status: 'True', reason: 'HubClusterAdminAccepted', message: '', lastTransitionTime: '2026-12-03T00:00:00Z' }] } } : {}),
  });
  const cases: Array<{ name: string; cluster: ManagedCluster | undefined; rbac?: boolean; now: number; expected: ReturnType<typeof bootstrapApprovalTiming> }> = [
    { name: 'accepted, RBAC in the caches, condition not written yet', cluster: mc({ hubAcceptsClient: true, autoAccepted: true }), rbac: true, now: 0, expected: { approve: true } },
    { name: 'RBAC of an earlier acceptance, not accepted now', cluster: mc({}), rbac: true, now: 0, expected: { approve: false, recheckInMs: 10_000 } },
    { name: 'accepted', cluster: mc({ accepted: true, hubAcceptsClient: true, autoAccepted: true }), now: 0, expected: { approve: true } },
    { name: 'no ManagedCluster (yet)', cluster: undefined, now: 0, expected: { approve: true } },
    { name: 'not yet auto-accepted', cluster: mc({}), now: 0, expected: { approve: false, recheckInMs: 10_000 } },
    { name: 'auto-accepted, RBAC being written', cluster: mc({ hubAcceptsClient: true, autoAccepted: true }), now: 2_000, expected: { approve: false, recheckInMs: 8_000 } },
    { name: 'denied after its automatic acceptance', cluster: mc({ autoAccepted: true }), now: 0, expected: { approve: true } },
    { name: 'waited long enough', cluster: mc({ hubAcceptsClient: true, autoAccepted: true }), now: 10_000, expected: { approve: true } },
  ];
  for (const c of cases) assert.deepEqual(bootstrapApprovalTiming(c.cluster, c.rbac ?? false, 0, c.now, 10_000), c.expected, c.name);
});
