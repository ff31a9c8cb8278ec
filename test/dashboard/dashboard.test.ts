// The dashboard over real HTTPS beside an embedded hub: nothing but the login page without
// credentials, token sign-in checked by the API server, the live fleet as server-sent events, the
// Accept action through the API server's RBAC as the signed-in user (a read-only user gets 403),
// and sign-in with the hub's client certificates (others count for nothing).
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import type { ManagedCluster } from '../../src/api/cluster.js';
import type { ClusterRole, ClusterRoleBinding } from '../../src/api/core.js';
import { loadKubeconfigFile } from '../../src/client/kubeconfig.js';
import { createKubeClient } from '../../src/client/rest-client.js';
import { resourceTypes } from '../../src/client/resource-types.js';
import type { KubeClient } from '../../src/client/types.js';
import { startEmbeddedHubDashboard, type HubDashboard } from '../../src/dashboard/hub-dashboard.js';
import type { FleetState } from '../../src/dashboard/model.js';
import { realClock } from '../../src/util/clock.js';
import { nullLogger } from '../../src/util/logger.js';
import { createSelfSignedCa, generateKeyPair, issueCertificate } from '../../src/util/x509.js';
import { startEmbeddedHubFixture, type EmbeddedHubFixture } from '../hub/embedded-hub-fixture.js';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

interface CallOptions {
  method?: string;
  cookie?: string;
  body?: string;
  contentType?: string;
  cert?: { certPem: string; keyPem: string };
  /** Stop reading once the body matches (e.g. a first SSE `state` event). */
  until?: RegExp;
}

const FIRST_STATE = /event: state\ndata: .*\n\n/;
let fx: EmbeddedHubFixture;
let dash: HubDashboard;
let admin: KubeClient;

function call(path: string, o: CallOptions = {}): Promise<Answer> {
  const url = new URL(path, dash.url);
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: o.method ?? 'GET',
      ca: dash.caPem,
      headers: {
        ...(o.cookie ? { cookie: o.cookie } : {}),
        ...(o.body !== undefined ? { 'content-type': o.contentType ?? 'application/json', 'content-length': Buffer.byteLength(o.body) } : {}),
      },
      ...(o.cert ? { cert: o.cert.certPem, key: o.cert.keyPem } : {}),
      agent: false,
    }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
        if (o.until?.test(body)) {
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
          res.destroy();
        }
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.setTimeout(20_000, () => req.destroy(new Error(`no answer from ${path}`)));
    req.end(o.body);
  });
}

function firstState(body: string): FleetState {
  const m = /event: state\ndata: (.*)\n\n/.exec(body);
  assert.ok(m, `no state event in ${body.slice(0, 200)}`);
  return JSON.parse(m[1]!) as FleetState;
}

async function signIn(token: string): Promise<string> {
  const r = await call('/login', { method: 'POST', body: new URLSearchParams({ token }).toString(), contentType: 'application/x-www-form-urlencoded' });
  assert.equal(r.status, 303, r.body);
  const setCookie = String(r.headers['set-cookie']);
  assert.match(setCookie, /HttpOnly/);
  assert.match(setCookie, /Secure/);
  return setCookie.split(';')[0]!;
}

async function tokenFor(sa: string, rules: ClusterRole['rules']): Promise<string> {
  const ns = 'default';
  await admin.resource(resourceTypes.serviceAccounts, ns).create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: sa, namespace: ns } });
  await admin.resource<ClusterRole>(resourceTypes.clusterRoles).create({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: sa }, rules });
  await admin.resource<ClusterRoleBinding>(resourceTypes.clusterRoleBindings).create({
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: sa },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: sa },
    subjects: [{ kind: 'ServiceAccount', name: sa, namespace: ns }],
  });
  const tr = await admin.request<{ status: { token: string } }>('POST', `/api/v1/namespaces/${ns}/serviceaccounts/${sa}/token`, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } });
  return tr.status.token;
}

const READ_FLEET: ClusterRole['rules'] = [
  { apiGroups: ['cluster.open-cluster-management.io'], resources: ['managedclusters', 'managedclustersets'], verbs: ['get', 'list', 'watch'] },
  { apiGroups: ['certificates.k8s.io'], resources: ['certificatesigningrequests'], verbs: ['get', 'list', 'watch'] },
  { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'list', 'watch'] },
];

describe('dashboard over HTTPS', () => {
  before(async () => {
    fx = await startEmbeddedHubFixture('ocm-ts-dashboard-');
    dash = await startEmbeddedHubDashboard({ hub: fx.hub, listen: { host: '127.0.0.1', port: 0 }, clock: realClock, log: nullLogger() });
    admin = createKubeClient({ kubeconfigPath: fx.hub.adminKubeconfigPath });
    await admin.resource<ManagedCluster>(resourceTypes.managedClusters).create({
      apiVersion: 'cluster.open-cluster-management.io/v1', kind: 'ManagedCluster', metadata: { name: 'waiting' }, spec: { hubAcceptsClient: false },
    });
  });
  after(async () => {
    admin?.close();
    await dash?.close();
    await fx?.stop();
  });

  test('should serve only the login page without credentials', async () => {
    assert.match(dash.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    const page = await call('/');
    assert.equal(page.status, 303);
    assert.equal(page.headers.location, '/login');
    const login = await call('/login');
    assert.equal(login.status, 200);
    assert.match(login.body, /<form method="post" action="\/login">/);
    for (const path of ['/api/events', '/app.js', '/app.css', '/api/whoami', '/nothing']) {
      const r = await call(path);
      assert.equal(r.status, 401, path);
      const s = JSON.parse(r.body) as { kind: string; status: string; code: number; reason: string };
      assert.deepEqual([s.kind, s.status, s.code, s.reason], ['Status', 'Failure', 401, 'Unauthorized']);
    }
    const accept = await call('/api/clusters/waiting/accept', { method: 'POST', body: '{}' });
    assert.equal(accept.status, 401);
  });

  test('should refuse a token the API server does not accept', async () => {
    const r = await call('/login', { method: 'POST', body: 'token=abcdef.0123456789abcdef', contentType: 'application/x-www-form-urlencoded' });
    assert.equal(r.status, 401);
    assert.match(r.body, /did not accept this token/);
    assert.equal(r.headers['set-cookie'], undefined);
  });

  test('should stream the fleet to a signed-in user and accept a cluster as that user', async () => {
    const token = (await readFile(dash.tokenPath!, 'utf8')).trim();
    const cookie = await signIn(token);
    const who = JSON.parse((await call('/api/whoami', { cookie })).body) as { user: string };
    assert.equal(who.user, 'system:serviceaccount:open-cluster-management-hub:ocm-dashboard-admin');
    const page = await call('/', { cookie });
    assert.equal(page.status, 200);
    const js = await call('/app.js', { cookie });
    assert.equal(js.status, 200);
    assert.ok(js.body.length > 1000);
    const events = await call('/api/events', { cookie, until: FIRST_STATE });
    assert.equal(events.headers['content-type'], 'text/event-stream');
    const state = firstState(events.body);
    assert.deepEqual(state.unaccepted, ['waiting']);
    assert.equal(state.rows[0]?.name, 'waiting');
    assert.equal(state.rows[0]?.timeline[0]?.id, 'created');
    assert.ok(state.rows[0]?.timeline[0]?.at);
    // A form post from another site cannot act: JSON only.
    const forged = await call('/api/clusters/waiting/accept', { method: 'POST', cookie, body: 'x=1', contentType: 'application/x-www-form-urlencoded' });
    assert.equal(forged.status, 403);
    const bad = await call('/api/clusters/Not_A_Name/accept', { method: 'POST', cookie, body: '{}' });
    assert.equal(bad.status, 400);
    const missing = await call('/api/clusters/nowhere/accept', { method: 'POST', cookie, body: '{}' });
    assert.equal(missing.status, 404);
    assert.equal((JSON.parse(missing.body) as { kind: string }).kind, 'Status');
    const ok = await call('/api/clusters/waiting/accept', { method: 'POST', cookie, body: '{}' });
    assert.equal(ok.status, 200, ok.body);
    assert.equal((JSON.parse(ok.body) as { accepted: string }).accepted, 'newly');
    const mc = await admin.resource<ManagedCluster>(resourceTypes.managedClusters).get('waiting');
    assert.equal(mc.spec?.hubAcceptsClient, true);
    const out = await call('/logout', { method: 'POST', cookie, body: '{}' });
    assert.equal(out.status, 200);
    assert.equal((await call('/api/whoami', { cookie })).status, 401);
  });

  test('should answer 403 to a user whose RBAC does not allow accepting', async () => {
    await admin.resource<ManagedCluster>(resourceTypes.managedClusters).create({
      apiVersion: 'cluster.open-cluster-management.io/v1', kind: 'ManagedCluster', metadata: { name: 'guarded' }, spec: { hubAcceptsClient: false },
    });
    const cookie = await signIn(await tokenFor('fleet-viewer', READ_FLEET));
    const state = firstState((await call('/api/events', { cookie, until: FIRST_STATE })).body);
    assert.ok(state.unaccepted.includes('guarded'));
    assert.deepEqual(state.errors, []);
    const r = await call('/api/clusters/guarded/accept', { method: 'POST', cookie, body: '{}' });
    assert.equal(r.status, 403, r.body);
    const s = JSON.parse(r.body) as { kind: string; reason: string; message: string };
    assert.equal(s.kind, 'Status');
    assert.equal(s.reason, 'Forbidden');
    assert.match(s.message, /fleet-viewer/);
    const mc = await admin.resource<ManagedCluster>(resourceTypes.managedClusters).get('guarded');
    assert.notEqual(mc.spec?.hubAcceptsClient, true);
  });

  test('should show what a user may not read as an error line, not fail the stream', async () => {
    const cookie = await signIn(await tokenFor('clusters-only', [READ_FLEET[0]!]));
    const body = (await call('/api/events', { cookie, until: /event: state\ndata: .*cannot read certificatesigningrequests.*\n\n/ })).body;
    const states = [...body.matchAll(/event: state\ndata: (.*)\n\n/g)].map((m) => JSON.parse(m[1]!) as FleetState);
    const last = states[states.length - 1]!;
    assert.ok(last.rows.length >= 1);
    assert.ok(last.errors.some((e) => /forbidden/i.test(e)), last.errors.join('; '));
  });

  test('should sign in the hub admin by client certificate and nobody by a foreign one', async () => {
    const cfg = loadKubeconfigFile(fx.hub.adminKubeconfigPath).config;
    const mine = await call('/api/whoami', { cert: { certPem: cfg.certPem!, keyPem: cfg.keyPem! } });
    assert.equal(mine.status, 200, mine.body);
    assert.equal((JSON.parse(mine.body) as { kind: string }).kind, 'certificate');
    const ok = await call('/api/clusters/guarded/accept', { method: 'POST', body: '{}', cert: { certPem: cfg.certPem!, keyPem: cfg.keyPem! } });
    assert.equal(ok.status, 200, ok.body);
    const now = Date.now();
    const ca = await createSelfSignedCa({ commonName: 'elsewhere', notBefore: new Date(now - 60_000), notAfter: new Date(now + 3600_000) });
    const key = await generateKeyPair('ecdsa-p256');
    const certPem = await issueCertificate({
      ca, subject: { commonName: 'kubernetes-admin', organizations: ['system:masters'] }, publicKey: key.publicKeyPem,
      notBefore: new Date(now - 60_000), notAfter: new Date(now + 3600_000), keyUsages: ['digitalSignature'], extKeyUsages: ['clientAuth'],
    });
    const foreign = await call('/api/whoami', { cert: { certPem, keyPem: key.privateKeyPem } });
    assert.equal(foreign.status, 401);
  });
});
