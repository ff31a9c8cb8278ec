// Impersonation over real HTTPS: `Impersonate-*` headers make a request run as another identity
// only when the requester holds the `impersonate` verb on each part (users, groups, service
// accounts, uids, userextras), and the access reviews answer for the impersonated identity.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { findKubectl } from '../../helpers/kubectl.js';
import { waitFor } from '../../helpers/wait-for.js';
import { CLUSTER_A, CLUSTER_B, startAuthHub, type AuthHub } from './auth-hub.js';

const run = promisify(execFile);
type Headers = Record<string, string | string[]>;
interface Reply {
  status: number;
  json: Record<string, any> | undefined;
}

/** One HTTPS request with a client certificate and arbitrary (repeatable) headers. */
function call(hub: AuthHub, cert: { certPem: string; keyPem: string }, method: string, path: string, headers: Headers = {}, body?: unknown): Promise<Reply> {
  const base = new URL(hub.server.url);
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  const agent = new Agent({ ca: hub.server.server.pki.caPem, cert: cert.certPem, key: cert.keyPem });
  return new Promise((resolve, reject) => {
    const req = request({
      host: base.hostname, port: base.port, method, path, agent,
      headers: { accept: 'application/json', ...headers, ...(payload ? { 'content-type': 'application/json', 'content-length': String(payload.length) } : {}) },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        agent.destroy();
        const text = Buffer.concat(chunks).toString('utf8');
        let json: Reply['json'];
        try {
          json = text ? (JSON.parse(text) as Reply['json']) : undefined;
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, json });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

const MC = '/apis/cluster.open-cluster-management.io/v1/managedclusters';
const SSAR = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews';
const WHOAMI = '/apis/authentication.k8s.io/v1/selfsubjectreviews';
const agentCn = (c: string): string => `system:open-cluster-management:${c}:agent-${c}`;
const agentGroups = (c: string): string[] => [`system:open-cluster-management:${c}`, 'system:open-cluster-management:managed-clusters'];

function ssar(attrs: Record<string, string>): unknown {
  return { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: attrs } };
}

function assertStatus(r: Reply, code: number, message?: string): void {
  assert.equal(r.status, code, JSON.stringify(r.json));
  assert.equal(r.json?.kind, 'Status');
  assert.equal(r.json?.apiVersion, 'v1');
  assert.equal(r.json?.status, 'Failure');
  assert.equal(r.json?.code, code);
  if (message !== undefined) assert.equal(r.json?.message, message);
}

describe('impersonation', () => {
  let hub: AuthHub;
  let admin: { certPem: string; keyPem: string };
  let alice: { certPem: string; keyPem: string };
  let helper: { certPem: string; keyPem: string };

  before(async () => {
    hub = await startAuthHub();
    const pki = hub.server.server.pki;
    admin = await pki.issueClientCertificate({ commonName: 'test-admin', organizations: ['system:masters'] });
    alice = await pki.issueClientCertificate({ commonName: 'alice', organizations: [] });
    helper = await pki.issueClientCertificate({ commonName: 'helper', organizations: [] });
    // "helper" may impersonate the user "nobody" and nothing else.
    const G = 'rbac.authorization.k8s.io';
    for (const [path, body] of [
      [`/apis/${G}/v1/clusterroles`, { apiVersion: `${G}/v1`, kind: 'ClusterRole', metadata: { name: 'impersonate-nobody' }, rules: [{ apiGroups: [''], resources: ['users'], resourceNames: ['nobody'], verbs: ['impersonate'] }] }],
      [`/apis/${G}/v1/clusterrolebindings`, {
        apiVersion: `${G}/v1`, kind: 'ClusterRoleBinding', metadata: { name: 'helper-impersonates-nobody' },
        roleRef: { apiGroup: G, kind: 'ClusterRole', name: 'impersonate-nobody' }, subjects: [{ apiGroup: G, kind: 'User', name: 'helper' }],
      }],
    ] as const) {
      const r = await call(hub, admin, 'POST', path, {}, body);
      assert.equal(r.status, 201, JSON.stringify(r.json));
    }
    await waitFor(async () => (await call(hub, helper, 'POST', SSAR, {}, ssar({ verb: 'impersonate', resource: 'users', name: 'nobody' }))).json?.status?.allowed === true, 5000, { message: 'RBAC effective' });
  });
  after(async () => {
    await hub.stop();
  });

  test('should refuse the admin impersonating nobody what nobody may not do', async () => {
    const path = '/api/v1/namespaces/kube-system/secrets';
    assert.equal((await call(hub, admin, 'GET', path)).status, 200);
    const r = await call(hub, admin, 'GET', path, { 'Impersonate-User': 'nobody' });
    assertStatus(r, 403, 'secrets is forbidden: User "nobody" cannot list resource "secrets" in API group "" in the namespace "kube-system"');
    const attrs = { verb: 'list', resource: 'secrets', namespace: 'kube-system' };
    assert.equal((await call(hub, admin, 'POST', SSAR, {}, ssar(attrs))).json?.status?.allowed, true);
    const review = await call(hub, admin, 'POST', SSAR, { 'Impersonate-User': 'nobody' }, ssar(attrs));
    assert.equal(review.status, 201);
    assert.equal(review.json?.status?.allowed, false);
  });

  test('should run as exactly the impersonated identity, and log both names', async () => {
    const r = await call(hub, admin, 'POST', WHOAMI, {
      'Impersonate-User': 'nobody', 'Impersonate-Group': ['team-a', 'team,b'], 'Impersonate-Uid': 'u-42',
      'Impersonate-Extra-Example.com%2FScopes': ['read', 'write'],
    }, { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
    assert.equal(r.status, 201, JSON.stringify(r.json));
    assert.deepEqual(r.json?.status?.userInfo, { username: 'nobody', uid: 'u-42', groups: ['team-a', 'team,b', 'system:authenticated'], extra: { 'example.com/scopes': ['read', 'write'] } });
    const sa = await call(hub, admin, 'POST', WHOAMI, { 'Impersonate-User': 'system:serviceaccount:ns1:builder' }, { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
    assert.deepEqual(sa.json?.status?.userInfo, { username: 'system:serviceaccount:ns1:builder', groups: ['system:serviceaccounts', 'system:serviceaccounts:ns1', 'system:authenticated'] });
    const line = await waitFor(() => hub.logLines.find((l) => l.includes('"impersonator":"test-admin"') && l.includes('"user":"nobody"') && l.includes('selfsubjectreviews')), 2000);
    assert.ok(line);
  });

  test('should refuse a requester without the impersonate permission with 403', async () => {
    const r = await call(hub, alice, 'GET', '/api/v1/namespaces', { 'Impersonate-User': 'nobody' });
    assertStatus(r, 403, 'users "nobody" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope');
    assert.deepEqual(r.json?.details, { name: 'nobody', kind: 'users' });
    const asAdmin = await call(hub, alice, 'GET', '/api/v1/namespaces/kube-system/secrets', { 'Impersonate-User': 'test-admin', 'Impersonate-Group': 'system:masters' });
    assertStatus(asAdmin, 403, 'users "test-admin" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope');
  });

  test('should check each part: a user allowed, a group or another user not', async () => {
    const who = await call(hub, helper, 'POST', WHOAMI, { 'Impersonate-User': 'nobody' }, { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
    assert.equal(who.status, 201, JSON.stringify(who.json));
    assert.equal(who.json?.status?.userInfo?.username, 'nobody');
    assertStatus(await call(hub, helper, 'GET', '/api/v1/namespaces', { 'Impersonate-User': 'nobody', 'Impersonate-Group': 'system:masters' }), 403,
      'groups "system:masters" is forbidden: User "helper" cannot impersonate resource "groups" in API group "" at the cluster scope');
    assertStatus(await call(hub, helper, 'GET', '/api/v1/namespaces', { 'Impersonate-User': 'somebody' }), 403);
    assertStatus(await call(hub, helper, 'GET', '/api/v1/namespaces', { 'Impersonate-User': 'nobody', 'Impersonate-Extra-Scopes': 'x' }), 403,
      'userextras.authentication.k8s.io "x" is forbidden: User "helper" cannot impersonate resource "userextras/scopes" in API group "authentication.k8s.io" at the cluster scope');
    assertStatus(await call(hub, helper, 'GET', '/api/v1/namespaces', { 'Impersonate-User': 'nobody', 'Impersonate-Uid': '1' }), 403);
  });

  test('should refuse groups, extras or a uid without a user with 400', async () => {
    assertStatus(await call(hub, admin, 'GET', '/api/v1/namespaces', { 'Impersonate-Group': 'system:masters' }), 400, 'requested [{Group  system:masters    }] without impersonating a user');
    assertStatus(await call(hub, admin, 'GET', '/api/v1/namespaces', { 'Impersonate-Uid': '1' }), 400);
    assertStatus(await call(hub, alice, 'GET', '/api/v1/namespaces', { 'Impersonate-Extra-A': 'b' }), 400);
  });

  test('should let the admin do as a cluster agent exactly what the agent may, and no more', async () => {
    const agentCert = await hub.server.server.pki.issueClientCertificate({ commonName: agentCn(CLUSTER_A), organizations: agentGroups(CLUSTER_A) });
    const as: Headers = { 'Impersonate-User': agentCn(CLUSTER_A), 'Impersonate-Group': agentGroups(CLUSTER_A) };
    const probes: Array<[string, string]> = [
      ['GET', `${MC}/${CLUSTER_A}`],
      ['GET', `${MC}/${CLUSTER_B}`],
      ['GET', MC],
      ['GET', `/apis/coordination.k8s.io/v1/namespaces/${CLUSTER_A}/leases/managed-cluster-lease`],
      ['GET', `/apis/coordination.k8s.io/v1/namespaces/${CLUSTER_B}/leases/managed-cluster-lease`],
      ['GET', `/apis/addon.open-cluster-management.io/v1alpha1/namespaces/${CLUSTER_A}/managedclusteraddons`],
      ['GET', `/api/v1/namespaces/${CLUSTER_A}/secrets/hub-secret`],
      ['GET', '/api/v1/namespaces/kube-system/secrets'],
      ['GET', '/apis/certificates.k8s.io/v1/certificatesigningrequests'],
      ['DELETE', `${MC}/${CLUSTER_A}`],
    ];
    const codes: Record<string, [number, number]> = {};
    for (const [method, path] of probes) {
      const real = await call(hub, agentCert, method, path);
      const impersonated = await call(hub, admin, method, path, as);
      codes[`${method} ${path}`] = [real.status, impersonated.status];
    }
    for (const [probe, [real, impersonated]] of Object.entries(codes)) assert.equal(impersonated, real, probe);
    assert.deepEqual(codes[`GET ${MC}/${CLUSTER_A}`], [200, 200]);
    assert.deepEqual(codes[`GET ${MC}/${CLUSTER_B}`], [403, 403]);
    assert.deepEqual(codes['GET /api/v1/namespaces/kube-system/secrets'], [403, 403]);
    const can = async (attrs: Record<string, string>): Promise<boolean> => (await call(hub, admin, 'POST', SSAR, as, ssar(attrs))).json?.status?.allowed === true;
    assert.equal(await can({ verb: 'update', group: 'coordination.k8s.io', resource: 'leases', namespace: CLUSTER_A, name: 'managed-cluster-lease' }), true);
    assert.equal(await can({ verb: 'update', group: 'coordination.k8s.io', resource: 'leases', namespace: CLUSTER_B, name: 'managed-cluster-lease' }), false);
    assert.equal(await can({ verb: 'create', group: 'rbac.authorization.k8s.io', resource: 'clusterrolebindings' }), false);
  });
});

const kubectlPath = await findKubectl();

describe('kubectl --as', { skip: kubectlPath ? false : 'kubectl not found on PATH; skipping the kubectl --as test' }, () => {
  let hub: AuthHub;
  let work: string;
  let kubeconfig: string;
  /** stdout of a kubectl run; `auth can-i` exits 1 when the answer is no. */
  const kubectl = async (...args: string[]): Promise<string> => {
    try {
      const { stdout } = await run(kubectlPath as string, ['--kubeconfig', kubeconfig, '--cache-dir', join(work, 'cache'), ...args], { timeout: 60_000 });
      return stdout;
    } catch (err) {
      const e = err as { stdout?: string; code?: number };
      if (e.code === 1 && typeof e.stdout === 'string') return e.stdout;
      throw err;
    }
  };
  before(async () => {
    hub = await startAuthHub();
    work = await mkdtemp(join(tmpdir(), 'ocm-ts-impersonation-'));
    const pki = hub.server.server.pki;
    const cert = await pki.issueClientCertificate({ commonName: 'test-admin', organizations: ['system:masters'] });
    const b64 = (s: string): string => Buffer.from(s).toString('base64');
    kubeconfig = join(work, 'admin.kubeconfig');
    await writeFile(kubeconfig, JSON.stringify({
      apiVersion: 'v1', kind: 'Config', 'current-context': 'admin',
      clusters: [{ name: 'hub', cluster: { server: hub.server.url, 'certificate-authority-data': b64(pki.caPem) } }],
      users: [{ name: 'admin', user: { 'client-certificate-data': b64(cert.certPem), 'client-key-data': b64(cert.keyPem) } }],
      contexts: [{ name: 'admin', context: { cluster: 'hub', user: 'admin' } }],
    }), { mode: 0o600 });
  });
  after(async () => {
    await hub.stop();
    await rm(work, { recursive: true, force: true });
  });

  test('should answer auth can-i for the impersonated user', async () => {
    assert.equal((await kubectl('auth', 'can-i', 'list', 'secrets', '-n', 'kube-system')).trim(), 'yes');
    assert.equal((await kubectl('--as=nobody', 'auth', 'can-i', 'list', 'secrets', '-n', 'kube-system')).trim(), 'no');
    const agent = ['--as', agentCn(CLUSTER_A), ...agentGroups(CLUSTER_A).flatMap((g) => ['--as-group', g])];
    assert.equal((await kubectl(...agent, 'auth', 'can-i', 'update', 'leases.coordination.k8s.io/managed-cluster-lease', '-n', CLUSTER_A)).trim(), 'yes');
    assert.equal((await kubectl(...agent, 'auth', 'can-i', 'update', 'leases.coordination.k8s.io/managed-cluster-lease', '-n', CLUSTER_B)).trim(), 'no');
    const who = JSON.parse(await kubectl('--as=nobody', 'auth', 'whoami', '-o', 'json')) as { status: { userInfo: unknown } };
    assert.deepEqual(who.status.userInfo, { username: 'nobody', groups: ['system:authenticated'] });
  });
});
