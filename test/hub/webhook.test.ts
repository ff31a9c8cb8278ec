// The registration webhook server over real HTTPS, backed by the embedded API server for its
// SubjectAccessReviews and namespace lookups, under the identity and RBAC of deploy/hub/webhook.yaml:
// AdmissionReview requests as kube-apiserver posts them, and the answers OCM's webhook gives.

import 'reflect-metadata';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request } from 'node:https';
import { connect } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseYamlDocuments } from '../../src/util/yaml.js';
import { ocmAdmissionPlugins } from '../../src/apiserver/admission/index.js';
import { HUB_CRD_NAMES } from '../../src/api/crds.js';
import type { KubeObject } from '../../src/api/meta.js';
import { ApiStatusError } from '../../src/client/errors.js';
import { resourceTypes } from '../../src/client/resource-types.js';
import type { KubeClient } from '../../src/client/types.js';
import { startRegistrationWebhook } from '../../src/hub/webhook/registration-webhook.js';
import { startWebhookServer, type WebhookServer } from '../../src/hub/webhook/webhook-server.js';
import { WEBHOOK_PATHS } from '../../src/hub/webhook/review-handlers.js';
import { nullLogger } from '../../src/util/logger.js';
import { clientAs } from '../helpers/identities.js';
import { startOcmApiServer, type OcmApiServer } from '../helpers/ocm-api-server.js';

const GROUP = 'cluster.open-cluster-management.io';
const WEBHOOK_USER = 'system:serviceaccount:open-cluster-management-hub:registration-webhook-sa';
const BOOTSTRAP = { username: 'system:bootstrap:abcdef', groups: ['system:bootstrappers', 'system:bootstrappers:managedcluster', 'system:authenticated'] };
const ADMIN = { username: 'admin', groups: ['system:masters', 'system:authenticated'] };

let api: OcmApiServer;
let webhookClient: KubeClient;
let webhook: WebhookServer;
let caPem: string;
let dir: string;

interface Reply {
  status: number;
  body: any;
}

function post(path: string, body: unknown, opts: { method?: string; contentType?: string; raw?: string } = {}): Promise<Reply> {
  const url = new URL(path, webhook.url);
  const text = opts.raw ?? JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: opts.method ?? 'POST', ca: caPem, agent: false,
      headers: { 'content-type': opts.contentType ?? 'application/json', 'content-length': Buffer.byteLength(text) },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const t = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown;
        try {
          parsed = JSON.parse(t);
        } catch {
          parsed = t;
        }
        resolve({ status: res.statusCode ?? 0, body: parsed });
      });
    });
    req.on('error', reject);
    req.end(opts.method === 'GET' ? undefined : text);
  });
}

let uidSeq = 0;
function review(opts: { resource?: string; version?: string; operation?: string; user: typeof ADMIN; object: unknown; oldObject?: unknown }): unknown {
  const obj = opts.object as KubeObject;
  return {
    apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview',
    request: {
      uid: `uid-${++uidSeq}`,
      kind: { group: GROUP, version: opts.version ?? 'v1', kind: opts.resource === 'managedclustersetbindings' ? 'ManagedClusterSetBinding' : 'ManagedCluster' },
      resource: { group: GROUP, version: opts.version ?? 'v1', resource: opts.resource ?? 'managedclusters' },
      name: obj.metadata.name, ...(obj.metadata.namespace ? { namespace: obj.metadata.namespace } : {}),
      operation: opts.operation ?? 'CREATE', userInfo: opts.user,
      object: opts.object, oldObject: opts.oldObject ?? null, dryRun: false,
    },
  };
}

const cluster = (name: string, spec: Record<string, unknown> = {}, labels?: Record<string, string>): KubeObject =>
  ({ apiVersion: `${GROUP}/v1`, kind: 'ManagedCluster', metadata: { name, ...(labels ? { labels } : {}) }, spec });
const binding = (name: string, set: string): KubeObject =>
  ({ apiVersion: `${GROUP}/v1beta2`, kind: 'ManagedClusterSetBinding', metadata: { name, namespace: 'team1' }, spec: { clusterSet: set } });

before(async () => {
  api = await startOcmApiServer({ crds: HUB_CRD_NAMES, server: { admission: ocmAdmissionPlugins() } });
  // The webhook's identity gets exactly the RBAC of the deploy manifest.
  const docs = parseYamlDocuments(await readFile(new URL('../../deploy/hub/webhook.yaml', import.meta.url), 'utf8')) as KubeObject[];
  const role = docs.find((d) => d.kind === 'ClusterRole')!;
  await api.admin.resource(resourceTypes.clusterRoles).create(role);
  await api.admin.resource(resourceTypes.clusterRoleBindings).create({
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'webhook' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role.metadata.name },
    subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: WEBHOOK_USER }],
  } as KubeObject);
  webhookClient = await clientAs(api.server, WEBHOOK_USER, []);
  dir = await mkdtemp(join(tmpdir(), 'ocm-ts-webhook-'));
  webhook = await startRegistrationWebhook({
    listen: '127.0.0.1:0', tls: { minVersion: 'TLSv1.2' }, writeCaFile: join(dir, 'ca.crt'),
    client: webhookClient, defaultClusterSet: true, log: nullLogger(),
  });
  caPem = await readFile(join(dir, 'ca.crt'), 'utf8');
});

after(async () => {
  await webhook?.close();
  webhookClient?.close();
  await api?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const patchOps = (r: Reply): Array<{ op: string; path: string; value?: unknown }> =>
  JSON.parse(Buffer.from(r.body.response.patch as string, 'base64').toString('utf8'));

test('the deploy manifest registers the paths this server serves', async () => {
  const docs = parseYamlDocuments(await readFile(new URL('../../deploy/hub/webhook.yaml', import.meta.url), 'utf8')) as Array<{ kind: string; webhooks?: any[] }>;
  const hooks = docs.filter((d) => /WebhookConfiguration$/.test(d.kind)).flatMap((d) => d.webhooks);
  assert.deepEqual(hooks.map((h: any) => h.clientConfig.service.path).sort(), Object.values(WEBHOOK_PATHS).sort());
  for (const h of hooks) {
    assert.equal(h.failurePolicy, 'Fail');
    assert.equal(h.sideEffects, 'None');
    assert.deepEqual(h.admissionReviewVersions, ['v1']);
  }
});

test('create with taints: the patch sets timeAdded, the default set and the lease duration', async () => {
  const r = await post(`${WEBHOOK_PATHS.mutateManagedCluster}?timeout=10s`, review({
    user: BOOTSTRAP, object: cluster('c1', { hubAcceptsClient: false, taints: [{ key: 'gpu', value: 'x', effect: 'NoSelect', timeAdded: '2020-01-01T00:00:00Z' }] }),
  }));
  assert.equal(r.status, 200);
  assert.equal(r.body.apiVersion, 'admission.k8s.io/v1');
  assert.equal(r.body.kind, 'AdmissionReview');
  assert.equal(r.body.response.uid, `uid-${uidSeq}`);
  assert.equal(r.body.response.allowed, true);
  assert.equal(r.body.response.patchType, 'JSONPatch');
  const ops = patchOps(r);
  const time = ops.find((o) => o.path === '/spec/taints/0/timeAdded');
  assert.equal(time?.op, 'replace');
  assert.ok(Math.abs(Date.parse(time.value as string) - Date.now()) < 60_000, `timeAdded is now: ${String(time.value)}`);
  assert.deepEqual(ops.find((o) => o.path === '/metadata/labels'), { op: 'add', path: '/metadata/labels', value: { [`${GROUP}/clusterset`]: 'default' } });
  assert.deepEqual(ops.find((o) => o.path === '/spec/leaseDurationSeconds'), { op: 'add', path: '/spec/leaseDurationSeconds', value: 60 });
  assert.equal(ops.length, 3);
});

test('a bootstrap user setting hubAcceptsClient is refused 403 with OCM\'s message, the same Status the embedded server answers', async () => {
  const obj = cluster('c2', { hubAcceptsClient: true });
  const r = await post(WEBHOOK_PATHS.validateManagedCluster, review({ user: BOOTSTRAP, object: obj }));
  assert.equal(r.status, 200);
  assert.equal(r.body.response.allowed, false);
  const status = r.body.response.status;
  assert.equal(status.code, 403);
  assert.equal(status.reason, 'Forbidden');
  assert.equal(status.message, `managedclusters/accept.${GROUP} "c2" is forbidden: user "system:bootstrap:abcdef" cannot update the HubAcceptsClient field`);

  // The embedded server, asked the same by the same user, answers the same Status.
  await api.admin.resource(resourceTypes.clusterRoles).create({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'create-clusters' }, rules: [{ apiGroups: [GROUP], resources: ['managedclusters'], verbs: ['create'] }] } as KubeObject);
  await api.admin.resource(resourceTypes.clusterRoleBindings).create({
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'create-clusters' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'create-clusters' },
    subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: BOOTSTRAP.username }],
  } as KubeObject);
  const bootstrap = await clientAs(api.server, BOOTSTRAP.username, BOOTSTRAP.groups.filter((g) => g !== 'system:authenticated'));
  try {
    const err = await bootstrap.resource(resourceTypes.managedClusters).create(obj).then(() => undefined, (e: unknown) => e);
    assert.ok(err instanceof ApiStatusError);
    const { code, reason, message, details } = err.status;
    assert.deepEqual({ code, reason, message, details }, { code: status.code, reason: status.reason, message: status.message, details: status.details });
  } finally {
    bootstrap.close();
  }
});

test('an admin setting hubAcceptsClient is allowed', async () => {
  const r = await post(WEBHOOK_PATHS.validateManagedCluster, review({ user: ADMIN, object: cluster('c3', { hubAcceptsClient: true }, { [`${GROUP}/clusterset`]: 'default' }) }));
  assert.equal(r.status, 200);
  assert.equal(r.body.response.allowed, true);
});

test('accepting a cluster whose namespace is terminating is refused', async () => {
  const namespaces = api.admin.resource(resourceTypes.namespaces);
  await namespaces.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'c4', finalizers: ['test.ocm-ts.io/hold'] } });
  await namespaces.delete('c4');
  const r = await post(WEBHOOK_PATHS.validateManagedCluster, review({
    user: ADMIN, operation: 'UPDATE', object: cluster('c4', { hubAcceptsClient: true }), oldObject: cluster('c4', { hubAcceptsClient: false }),
  }));
  assert.equal(r.body.response.allowed, false);
  assert.equal(r.body.response.status.code, 403);
  assert.equal(r.body.response.status.message, `managedclusters/accept.${GROUP} "c4" is forbidden: cluster namespace "c4" is terminating`);
  const ns = await namespaces.get('c4');
  await namespaces.update({ ...ns, metadata: { ...ns.metadata, finalizers: [] } });
});

test('ManagedClusterSetBinding: a name that differs from its set is refused 400; bind needs permission', async () => {
  const resource = 'managedclustersetbindings';
  const mismatch = await post(WEBHOOK_PATHS.validateClusterSetBinding, review({ resource, version: 'v1beta2', user: ADMIN, object: binding('s1', 's2') }));
  assert.equal(mismatch.body.response.allowed, false);
  assert.deepEqual(
    { code: mismatch.body.response.status.code, reason: mismatch.body.response.status.reason, message: mismatch.body.response.status.message },
    { code: 400, reason: 'BadRequest', message: 'The ManagedClusterSetBinding must have the same name as the target ManagedClusterSet' },
  );
  const noBind = await post(WEBHOOK_PATHS.validateClusterSetBinding, review({ resource, version: 'v1beta2', user: BOOTSTRAP, object: binding('s1', 's1') }));
  assert.equal(noBind.body.response.status.code, 403);
  assert.equal(noBind.body.response.status.message, 'managedclustersets/bind.apps "s1" is forbidden: user "system:bootstrap:abcdef" is not allowed to bind cluster set "s1"');
  const admin = await post(WEBHOOK_PATHS.validateClusterSetBinding, review({ resource, version: 'v1beta2', user: ADMIN, object: binding('s1', 's1') }));
  assert.equal(admin.body.response.allowed, true);
});

test('a malformed review is answered with a 400 Status, never a crash', async () => {
  const cases: Array<{ raw?: string; body?: unknown; message: RegExp }> = [
    { raw: '{"apiVersion":', message: /the body is not JSON/ },
    { body: [1, 2], message: /must be a JSON object/ },
    { body: { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' }, message: /request is missing/ },
    { body: { apiVersion: 'v1', kind: 'ConfigMap', request: {} }, message: /expected apiVersion admission\.k8s\.io\/v1/ },
    { body: { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { operation: 'CREATE' } }, message: /request\.uid is required/ },
  ];
  for (const c of cases) {
    for (const path of Object.values(WEBHOOK_PATHS)) {
      const r = await post(path, c.body, c.raw !== undefined ? { raw: c.raw } : {});
      assert.equal(r.status, 400, `${path} ${c.raw ?? JSON.stringify(c.body)}`);
      assert.equal(r.body.kind, 'Status');
      assert.equal(r.body.apiVersion, 'v1');
      assert.equal(r.body.status, 'Failure');
      assert.equal(r.body.reason, 'BadRequest');
      assert.equal(r.body.code, 400);
      assert.match(r.body.message, c.message);
    }
  }
  // A well-formed envelope around a bad object is refused inside the review, as controller-runtime does.
  const bad = review({ user: ADMIN, object: cluster('c5') }) as { request: { object: unknown } };
  bad.request.object = 'not an object';
  const r = await post(WEBHOOK_PATHS.validateManagedCluster, bad);
  assert.equal(r.status, 200);
  assert.equal(r.body.response.allowed, false);
  assert.equal(r.body.response.status.code, 400);
});

test('other methods, media types and paths get their 4xx Status', async () => {
  const get = await post(WEBHOOK_PATHS.validateManagedCluster, undefined, { method: 'GET', raw: '' });
  assert.equal(get.status, 405);
  assert.equal(get.body.reason, 'MethodNotAllowed');
  const yaml = await post(WEBHOOK_PATHS.validateManagedCluster, {}, { contentType: 'application/yaml' });
  assert.equal(yaml.status, 415);
  const unknown = await post('/validate-something-else', {});
  assert.equal(unknown.status, 404);
  assert.equal(unknown.body.kind, 'Status');
  const health = await post('/healthz', undefined, { method: 'GET', raw: '' });
  assert.equal(health.status, 200);
});

test('the server speaks TLS 1.2 and 1.3, and nothing older', async () => {
  const port = Number(new URL(webhook.url).port);
  const handshake = (minVersion: 'TLSv1' | 'TLSv1.2' | 'TLSv1.3', maxVersion: 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3'): Promise<string> => new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, ca: caPem, minVersion, maxVersion }, () => {
      const v = socket.getProtocol() ?? '';
      socket.end();
      resolve(v);
    });
    socket.on('error', () => resolve('refused'));
  });
  assert.equal(await handshake('TLSv1.2', 'TLSv1.2'), 'TLSv1.2');
  assert.equal(await handshake('TLSv1.3', 'TLSv1.3'), 'TLSv1.3');
  assert.equal(await handshake('TLSv1', 'TLSv1.1'), 'refused');
});

test('a webhook that may not create SubjectAccessReviews refuses with the hub\'s message instead of allowing', async () => {
  const powerless = await clientAs(api.server, 'nobody', []);
  const weak = await startRegistrationWebhook({ listen: '127.0.0.1:0', tls: { minVersion: 'TLSv1.2' }, client: powerless, defaultClusterSet: true, log: nullLogger() });
  const saved = { webhook, caPem };
  try {
    webhook = weak;
    caPem = weak.caPem;
    const r = await post(WEBHOOK_PATHS.validateManagedCluster, review({ user: ADMIN, object: cluster('c6', {}, { [`${GROUP}/clusterset`]: 'default' }) }));
    assert.equal(r.body.response.allowed, false);
    assert.equal(r.body.response.status.code, 403);
    assert.match(r.body.response.status.message, /^managedclustersets\/join\.cluster\.open-cluster-management\.io "default" is forbidden: subjectaccessreviews\.authorization\.k8s\.io is forbidden: User "nobody" cannot create/);
  } finally {
    ({ webhook, caPem } = saved);
    await weak.close();
    powerless.close();
  }
});

test('a review larger than the body limit gets 413, and the server keeps serving', async () => {
  const small = await startWebhookServer({
    listen: '127.0.0.1:0', tls: { minVersion: 'TLSv1.2' }, client: webhookClient, defaultClusterSet: true, log: nullLogger(), maxBodyBytes: 2048,
  });
  const saved = { webhook, caPem };
  try {
    webhook = small;
    caPem = small.caPem;
    const big = review({ user: ADMIN, object: cluster('c7', {}, { big: 'x'.repeat(4096) }) });
    const r = await post(WEBHOOK_PATHS.mutateManagedCluster, big);
    assert.equal(r.status, 413);
    assert.equal(r.body.reason, 'RequestEntityTooLarge');
    const ok = await post(WEBHOOK_PATHS.mutateManagedCluster, review({ user: ADMIN, object: cluster('c7') }));
    assert.equal(ok.body.response.allowed, true);
  } finally {
    ({ webhook, caPem } = saved);
    await small.close();
  }
});
