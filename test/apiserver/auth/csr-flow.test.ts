// CSR create → approve → sign over HTTPS, with the identity rules of §13.2, the approval and signing
// permissions of §13.3, and clean 4xx answers (nothing stored, nothing signed, nothing secret in the
// logs) for bad input.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createSelfSignedCa, generateKeyPair, createCsr, issueCertificate, parseCertificate, parseCsr, toPem, keyMatchesCertificate } from '../../../src/util/x509.js';
import { waitFor } from '../../helpers/wait-for.js';
import { BOOTSTRAP_TOKEN, CLUSTER_A, startAuthHub, type AuthHub } from './auth-hub.js';
import { identityClient, type IdentityClient } from './identity-client.js';

const CSRS = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
const SIGNER = 'kubernetes.io/kube-apiserver-client';
const b64 = (s: string): string => Buffer.from(s).toString('base64');
const USAGES = ['digital signature', 'key encipherment', 'client auth'];

let hub: AuthHub;
before(async () => {
  hub = await startAuthHub();
});
after(async () => {
  await hub?.stop();
});

function csrBody(name: string, request: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name }, spec: { request, signerName: SIGNER, usages: USAGES, ...extra } };
}

async function approve(c: IdentityClient, name: string, type: 'Approved' | 'Denied' = 'Approved'): Promise<{ status: number; message?: string }> {
  const cur = await hub.admin.request('GET', `${CSRS}/${name}`);
  const obj = cur.json as { status?: { conditions?: unknown[] } };
  obj.status = { ...(obj.status ?? {}), conditions: [...(obj.status?.conditions ?? []), { type, status: 'True', reason: 'Test', message: 'by test' }] };
  const r = await c.request('PUT', `${CSRS}/${name}/approval`, obj);
  return { status: r.status, ...(r.json?.message ? { message: r.json.message } : {}) };
}

test('a bootstrap-token CSR gets the requester identity, is signed once approved, and the certificate works', async () => {
  const key = await generateKeyPair('ecdsa-p256');
  const cn = `system:open-cluster-management:${CLUSTER_A}:agent2`;
  const orgs = [`system:open-cluster-management:${CLUSTER_A}`, 'system:open-cluster-management:managed-clusters'];
  const request = b64(await createCsr({ commonName: cn, organizations: orgs, privateKeyPem: key.privateKeyPem }));
  const created = await hub.clients.bootstrap.request('POST', CSRS, {
    ...csrBody('join-a', request, { username: 'system:admin', groups: ['system:masters'], uid: 'forged', expirationSeconds: 3600 }),
    status: { conditions: [{ type: 'Approved', status: 'True', reason: 'Self', message: 'pre-approved' }], certificate: b64('forged') },
  });
  assert.equal(created.status, 201, created.text);
  const spec = created.json?.spec as { username: string; groups: string[]; uid?: string };
  assert.equal(spec.username, 'system:bootstrap:abcdef');
  assert.deepEqual(spec.groups, ['system:bootstrappers', 'system:bootstrappers:managedcluster', 'system:authenticated']);
  assert.equal(spec.uid, undefined);
  assert.deepEqual(created.json?.status, {});

  // The bootstrap user cannot approve its own CSR (no RBAC on /approval).
  assert.equal((await approve(hub.clients.bootstrap, 'join-a')).status, 403);
  // Unsigned while pending.
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(((await hub.admin.request('GET', `${CSRS}/join-a`)).json?.status as { certificate?: string }).certificate, undefined);

  assert.equal((await approve(hub.admin, 'join-a')).status, 200);
  const certB64 = await waitFor(async () => ((await hub.admin.request('GET', `${CSRS}/join-a`)).json?.status as { certificate?: string }).certificate, 5000);
  const certPem = Buffer.from(certB64, 'base64').toString('utf8');
  const cert = parseCertificate(certPem);
  assert.equal(cert.commonName, cn);
  assert.deepEqual(cert.organizations, orgs);
  assert.ok(keyMatchesCertificate(certPem, key.privateKeyPem));
  const lifetime = cert.notAfter.getTime() - cert.notBefore.getTime();
  assert.ok(lifetime <= 3_600_000 + 300_000 && lifetime >= 3_600_000, `lifetime ${lifetime}`);
  const certFile = join(hub.server.dataDir, 'issued.crt');
  await writeFile(certFile, certPem);
  const out = execFileSync('openssl', ['verify', '-CAfile', join(hub.server.dataDir, 'pki', 'ca.crt'), certFile]).toString();
  assert.match(out, /: OK/);

  // The issued certificate authenticates as the agent of cluster A.
  const agent = identityClient(hub.server.url, hub.server.server.pki.caPem, { certPem, keyPem: key.privateKeyPem });
  try {
    assert.equal((await agent.request('GET', `/apis/cluster.open-cluster-management.io/v1/managedclusters/${CLUSTER_A}`)).status, 200);
    assert.equal((await agent.request('GET', '/apis/cluster.open-cluster-management.io/v1/managedclusters/cluster-b')).status, 403);
  } finally {
    agent.close();
  }

  // Approval conditions cannot be removed, and Denied cannot join Approved.
  assert.equal((await approve(hub.admin, 'join-a', 'Denied')).status, 422);
  const cur = (await hub.admin.request('GET', `${CSRS}/join-a`)).json as { status: { conditions: unknown[] } };
  cur.status.conditions = [];
  const removed = await hub.admin.request('PUT', `${CSRS}/join-a/approval`, cur);
  assert.equal(removed.status, 422);
  assert.match(removed.json?.message ?? '', /updates may not remove a condition of type "Approved"/);
});

test('a denied CSR is never signed', async () => {
  const r = await hub.clients.agentA.request('POST', CSRS, csrBody('denied-a', await hub.csrRequest('system:open-cluster-management:cluster-a:x', ['system:open-cluster-management:cluster-a'])));
  assert.equal(r.status, 201);
  assert.equal((await approve(hub.admin, 'denied-a', 'Denied')).status, 200);
  await new Promise((res) => setTimeout(res, 200));
  assert.equal(((await hub.admin.request('GET', `${CSRS}/denied-a`)).json?.status as { certificate?: string }).certificate, undefined);
});

test('approving needs `approve` on the signer, not only RBAC on /approval', async () => {
  const G = 'rbac.authorization.k8s.io';
  await hub.admin.request('POST', `/apis/${G}/v1/clusterroles`, {
    apiVersion: `${G}/v1`, kind: 'ClusterRole', metadata: { name: 'half-approver' },
    rules: [{ apiGroups: ['certificates.k8s.io'], resources: ['certificatesigningrequests', 'certificatesigningrequests/approval'], verbs: ['get', 'update'] }],
  });
  await hub.admin.request('POST', `/apis/${G}/v1/clusterrolebindings`, {
    apiVersion: `${G}/v1`, kind: 'ClusterRoleBinding', metadata: { name: 'half-approver' },
    roleRef: { apiGroup: G, kind: 'ClusterRole', name: 'half-approver' }, subjects: [{ apiGroup: G, kind: 'User', name: 'half-approver' }],
  });
  const r = await hub.clients.agentA.request('POST', CSRS, csrBody('needs-signer-perm', await hub.csrRequest('system:open-cluster-management:cluster-a:y', ['system:open-cluster-management:cluster-a'])));
  assert.equal(r.status, 201);
  const creds = await hub.server.server.pki.issueClientCertificate({ commonName: 'half-approver' });
  const half = identityClient(hub.server.url, hub.server.server.pki.caPem, creds);
  try {
    await waitFor(async () => (await half.request('GET', `${CSRS}/needs-signer-perm`)).status === 200, 5000);
    const res = await approve(half, 'needs-signer-perm');
    assert.equal(res.status, 403);
    assert.equal(res.message, `certificatesigningrequests.certificates.k8s.io "needs-signer-perm" is forbidden: user not permitted to approve requests with signerName "${SIGNER}"`);
    // Granting approve on "kubernetes.io/*" is enough.
    await hub.admin.request('POST', `/apis/${G}/v1/clusterroles`, {
      apiVersion: `${G}/v1`, kind: 'ClusterRole', metadata: { name: 'signer-approver' },
      rules: [{ apiGroups: ['certificates.k8s.io'], resources: ['signers'], resourceNames: ['kubernetes.io/*'], verbs: ['approve'] }],
    });
    await hub.admin.request('POST', `/apis/${G}/v1/clusterrolebindings`, {
      apiVersion: `${G}/v1`, kind: 'ClusterRoleBinding', metadata: { name: 'signer-approver' },
      roleRef: { apiGroup: G, kind: 'ClusterRole', name: 'signer-approver' }, subjects: [{ apiGroup: G, kind: 'User', name: 'half-approver' }],
    });
    await waitFor(async () => (await approve(half, 'needs-signer-perm')).status === 200, 5000);
  } finally {
    half.close();
  }
});

test('writing status.certificate needs `sign` on the signer', async () => {
  const G = 'rbac.authorization.k8s.io';
  await hub.admin.request('POST', `/apis/${G}/v1/clusterroles`, {
    apiVersion: `${G}/v1`, kind: 'ClusterRole', metadata: { name: 'status-writer' },
    rules: [{ apiGroups: ['certificates.k8s.io'], resources: ['certificatesigningrequests', 'certificatesigningrequests/status'], verbs: ['get', 'update'] }],
  });
  await hub.admin.request('POST', `/apis/${G}/v1/clusterrolebindings`, {
    apiVersion: `${G}/v1`, kind: 'ClusterRoleBinding', metadata: { name: 'status-writer' },
    roleRef: { apiGroup: G, kind: 'ClusterRole', name: 'status-writer' }, subjects: [{ apiGroup: G, kind: 'User', name: 'status-writer' }],
  });
  const body = csrBody('external-signer', await hub.csrRequest('system:open-cluster-management:cluster-a:w', ['system:open-cluster-management:cluster-a']));
  (body.spec as Record<string, unknown>).signerName = 'example.com/external';
  const created = await hub.clients.agentA.request('POST', CSRS, body);
  assert.equal(created.status, 201, created.text);
  const creds = await hub.server.server.pki.issueClientCertificate({ commonName: 'status-writer' });
  const writer = identityClient(hub.server.url, hub.server.server.pki.caPem, creds);
  try {
    const cur = await waitFor(async () => {
      const r = await writer.request('GET', `${CSRS}/external-signer`);
      return r.status === 200 ? (r.json as Record<string, unknown>) : undefined;
    }, 5000);
    cur.status = { certificate: b64(hub.server.server.pki.caPem) };
    const r = await writer.request('PUT', `${CSRS}/external-signer/status`, cur);
    assert.equal(r.status, 403, r.text);
    assert.equal(r.json?.message, 'certificatesigningrequests.certificates.k8s.io "external-signer" is forbidden: user not permitted to sign requests with signerName "example.com/external"');
    // Approved cannot be added through /status, even by an admin.
    cur.status = { conditions: [{ type: 'Approved', status: 'True', reason: 'x', message: 'y' }] };
    const r2 = await hub.admin.request('PUT', `${CSRS}/external-signer/status`, cur);
    assert.equal(r2.status, 422, r2.text);
    assert.match(r2.json?.message ?? '', /updates may not add a condition of type "Approved"/);
  } finally {
    writer.close();
  }
});

test('bad input gets a clean 4xx and nothing is stored or signed', async () => {
  const key = await generateKeyPair('ecdsa-p256');
  const pem = await createCsr({ commonName: 'system:open-cluster-management:cluster-a:z', organizations: ['system:open-cluster-management:cluster-a'], privateKeyPem: key.privateKeyPem });
  const der = Buffer.from(parseCsr(pem).der);
  der[40] = der[40]! ^ 0x01;
  const tampered = toPem('CERTIFICATE REQUEST', der);
  const cases: Array<{ name: string; body: Record<string, unknown>; status: number; message: RegExp }> = [
    { name: 'bad-garbage', body: csrBody('bad-garbage', b64('not a pem at all')), status: 422, message: /spec\.request: Invalid value: .*PEM block type must be CERTIFICATE REQUEST/ },
    { name: 'bad-signature', body: csrBody('bad-signature', b64(tampered)), status: 422, message: /spec\.request: Invalid value: .*signature verification failure/ },
    { name: 'bad-expiration', body: csrBody('bad-expiration', b64(pem), { expirationSeconds: 599 }), status: 422, message: /spec\.expirationSeconds: Invalid value: 599: may not specify a duration less than 600 seconds \(10 minutes\)/ },
    { name: 'bad-no-signer', body: { ...csrBody('bad-no-signer', b64(pem)), spec: { request: b64(pem), usages: USAGES } }, status: 422, message: /spec\.signerName: Required value/ },
  ];
  const masters = await createCsr({ commonName: 'evil', organizations: ['system:masters'], privateKeyPem: key.privateKeyPem });
  cases.push({ name: 'bad-masters', body: csrBody('bad-masters', b64(masters)), status: 403, message: /^certificatesigningrequests\.certificates\.k8s\.io "bad-masters" is forbidden: use of kubernetes\.io\/kube-apiserver-client signer with system:masters group is not allowed$/ });
  for (const c of cases) {
    const r = await hub.clients.bootstrap.request('POST', CSRS, c.body);
    assert.equal(r.status, c.status, `${c.name}: ${r.text}`);
    assert.match(r.json?.message ?? '', c.message, c.name);
    assert.equal((await hub.admin.request('GET', `${CSRS}/${c.name}`)).status, 404, `${c.name} stored`);
  }
  // Credentials: wrong token secret, unknown and expired tokens, a certificate from another CA → 401.
  const now = Date.now();
  const other = await createSelfSignedCa({ commonName: 'other', notBefore: new Date(now - 1000), notAfter: new Date(now + 3_600_000) });
  const forged = await issueCertificate({ ca: other, subject: { commonName: 'test-admin', organizations: ['system:masters'] }, publicKey: key.publicKeyPem, notBefore: new Date(now - 1000), notAfter: new Date(now + 3_600_000), keyUsages: ['digitalSignature'], extKeyUsages: ['clientAuth'] });
  const badIds = [
    { token: BOOTSTRAP_TOKEN.slice(0, 7) + 'ffffffffffffffff' },
    { token: 'qqqqqq.0123456789abcdef' },
    { token: 'not-a-known-token' },
    { certPem: forged, keyPem: key.privateKeyPem },
  ];
  for (const id of badIds) {
    const c = identityClient(hub.server.url, hub.server.server.pki.caPem, id);
    try {
      const r = await c.request('POST', CSRS, csrBody('bad-credential', b64(pem)));
      assert.equal(r.status, 401, r.text);
      assert.equal(r.json?.message, 'Unauthorized');
    } finally {
      c.close();
    }
  }
  assert.equal((await hub.admin.request('GET', `${CSRS}/bad-credential`)).status, 404);
});

test('no log line carries a token secret or key material', () => {
  assert.ok(hub.logLines.length > 10);
  const all = hub.logLines.join('\n');
  for (const secret of ['0123456789abcdef', 'fedcba9876543210', 'ffffffffffffffff', 'PRIVATE KEY', 'BEGIN CERTIFICATE REQUEST', 'not-a-known-token']) {
    assert.ok(!all.includes(secret), `a log line contains ${secret.slice(0, 6)}…`);
  }
});
