// End to end, as a new user would run it (child processes of `node dist/cli/main.js`):
// `ocm-ts hub` + `ocm-ts apiserver` (the spoke) + `ocm-ts agent` + `ocm-ts accept --wait` → the
// ManagedCluster is Joined and Available; `ocm-ts get clusters` shows it; the bootstrap token and the
// agent's hub credentials get exact 403s outside their RBAC; restarting the hub on the same data dir
// keeps the cluster Available without a new CSR.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ApiException, CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import {
  cleanupAll,
  conditionStatus,
  kubeRequest,
  loadKubeConfig,
  prepareSpoke,
  runCli,
  runCliToEnd,
  startApiserver,
  startHub,
  tempDir,
  type ApiserverProcess,
  type CliProcess,
  type HubProcess,
} from './cli-helpers.js';
import { waitFor } from '../helpers/wait-for.js';

const MC_PATH = '/apis/cluster.open-cluster-management.io/v1/managedclusters';
const JOINED = 'ManagedClusterJoined';
const AVAILABLE = 'ManagedClusterConditionAvailable';

let dir = '';
let hub: HubProcess;
let spoke: ApiserverProcess;
let agent: CliProcess;
let hubKubeconfigDir = '';

after(cleanupAll);

async function getCluster(adminKubeconfig: string, name: string): Promise<any> {
  const api = loadKubeConfig(adminKubeconfig).makeApiClient(CustomObjectsApi);
  return api.getClusterCustomObject({ group: 'cluster.open-cluster-management.io', version: 'v1', plural: 'managedclusters', name });
}

async function csrCount(adminKubeconfig: string): Promise<number> {
  const r = await kubeRequest(loadKubeConfig(adminKubeconfig), 'GET', '/apis/certificates.k8s.io/v1/certificatesigningrequests');
  assert.equal(r.status, 200, r.text);
  return (r.json.items as unknown[]).length;
}

before(async () => {
  dir = await tempDir('join');
  [hub, spoke] = await Promise.all([startHub(join(dir, 'hub')), startApiserver(join(dir, 'spoke'))]);
  // What the klusterlet operator does before starting the agent: namespace and spoke CRDs.
  await prepareSpoke(spoke.adminKubeconfig);
  hubKubeconfigDir = join(dir, 'hub-kubeconfig');
});

test('hub + spoke + agent + accept: Joined and Available, shown by get clusters', async (t) => {
  const t0 = Date.now();
  agent = runCli([
    'agent',
    '--kubeconfig', spoke.adminKubeconfig,
    '--cluster-name', 'c1',
    '--bootstrap-kubeconfig', hub.bootstrapKubeconfig,
    '--hub-kubeconfig-dir', hubKubeconfigDir,
    '--spoke-external-server-urls', spoke.url,
    '--cluster-healthcheck-period', '1s',
    '--bootstrap-poll-period', '100ms',
    '--log-level', 'info',
  ]);
  const accept = await runCliToEnd(['accept', 'c1', '--kubeconfig', hub.adminKubeconfig, '--wait', '--timeout', '60s'], 90_000);
  assert.equal(accept.code, 0, `${accept.describe}\n--- agent ---\n${agent.describe()}`);
  t.diagnostic(`accept --wait returned after ${Date.now() - t0} ms`);
  assert.match(accept.stdout, /approved CSR c1-\S+ of cluster c1/);
  assert.match(accept.stdout, /set hubAcceptsClient to true for cluster c1/);
  assert.match(accept.stdout, /cluster c1 joined/);

  // A short lease makes the availability check after the hub restart meaningful and quick.
  const patched = await kubeRequest(loadKubeConfig(hub.adminKubeconfig), 'PATCH', `${MC_PATH}/c1`, { spec: { leaseDurationSeconds: 1 } }, 'application/merge-patch+json');
  assert.equal(patched.status, 200, patched.text);

  const mc = await waitFor(async () => {
    const c = await getCluster(hub.adminKubeconfig, 'c1');
    return conditionStatus(c, JOINED) === 'True' && conditionStatus(c, AVAILABLE) === 'True' ? c : undefined;
  }, 30_000, { message: 'c1 Joined and Available (client-node)', intervalMs: 100 });
  t.diagnostic(`Joined and Available after ${Date.now() - t0} ms`);
  assert.equal(mc.spec.hubAcceptsClient, true);
  assert.equal(mc.spec.managedClusterClientConfigs?.[0]?.url, spoke.url);

  // The three output formats, run side by side (each is a process start).
  const [json, table, wide] = await Promise.all([
    runCliToEnd(['get', 'clusters', '--kubeconfig', hub.adminKubeconfig, '-o', 'json']),
    runCliToEnd(['get', 'clusters', '--kubeconfig', hub.adminKubeconfig]),
    runCliToEnd(['get', 'clusters', '--kubeconfig', hub.adminKubeconfig, '-o', 'wide']),
  ]);
  assert.equal(json.code, 0, json.describe);
  const list = JSON.parse(json.stdout);
  assert.equal(list.kind, 'List');
  const c1 = list.items.find((i: any) => i.metadata.name === 'c1');
  assert.ok(c1, json.stdout);
  assert.equal(c1.kind, 'ManagedCluster');
  assert.equal(conditionStatus(c1, JOINED), 'True');
  assert.equal(conditionStatus(c1, AVAILABLE), 'True');

  assert.equal(table.code, 0, table.describe);
  const [header, ...rows] = table.stdout.trimEnd().split('\n');
  assert.match(header!, /^NAME\s+HUB ACCEPTED\s+MANAGED CLUSTER URLS\s+JOINED\s+AVAILABLE\s+AGE$/);
  const row = rows.find((r) => r.startsWith('c1 '));
  assert.ok(row, table.stdout);
  assert.match(row, new RegExp(`^c1\\s+true\\s+${spoke.url.replace(/[.]/g, '\\.')}\\s+True\\s+True\\s+\\d+s$`));

  t.diagnostic(`get clusters checked after ${Date.now() - t0} ms`);
  assert.equal(wide.code, 0, wide.describe);
  assert.match(wide.stdout.split('\n')[0]!, /^NAME\s+HUB ACCEPTED\s+MANAGED CLUSTER URLS\s+JOINED\s+AVAILABLE\s+AGE\s+CLUSTERSET\s+KUBERNETES VERSION\s+CPU\s+MEMORY\s+CLOCK SYNCED$/);
});

test('the bootstrap token gets 403 outside the bootstrap ClusterRole', async () => {
  const admin = loadKubeConfig(hub.adminKubeconfig);
  // Another cluster, registered by someone else.
  const other = await kubeRequest(admin, 'POST', MC_PATH, { apiVersion: 'cluster.open-cluster-management.io/v1', kind: 'ManagedCluster', metadata: { name: 'other' }, spec: { hubAcceptsClient: false } });
  assert.equal(other.status, 201, other.text);

  const boot = loadKubeConfig(hub.bootstrapKubeconfig);
  assert.ok(boot.getCurrentUser()?.token, 'bootstrap kubeconfig carries a token');
  const expect403 = async (method: string, path: string, body?: unknown, ct?: string): Promise<void> => {
    const r = await kubeRequest(boot, method, path, body, ct);
    assert.equal(r.status, 403, `${method} ${path}: ${r.text}`);
    assert.equal(r.json?.reason, 'Forbidden', r.text);
    assert.match(r.json?.message ?? '', /^.*"system:bootstrap:[a-z0-9]{6}" cannot /, r.text);
  };
  await expect403('GET', '/api/v1/namespaces/kube-system/secrets');
  await expect403('GET', '/api/v1/secrets');
  await expect403('GET', '/api/v1/namespaces');
  await expect403('GET', '/api/v1/namespaces/c1');
  await expect403('PATCH', `${MC_PATH}/other`, { spec: { hubAcceptsClient: true } }, 'application/merge-patch+json');
  await expect403('DELETE', `${MC_PATH}/other`);
  await expect403('PATCH', `${MC_PATH}/c1/status`, { status: { conditions: [] } }, 'application/merge-patch+json');
  await expect403('GET', '/apis/coordination.k8s.io/v1/namespaces/c1/leases');
  // What the role does grant (OCM's bootstrap role: managedclusters get/list/watch/create).
  assert.equal((await kubeRequest(boot, 'GET', `${MC_PATH}/other`)).status, 200);
  // The same through client-node, as any Kubernetes client sees it.
  await assert.rejects(
    boot.makeApiClient(CoreV1Api).listNamespacedSecret({ namespace: 'kube-system' }),
    (e: unknown) => e instanceof ApiException && e.code === 403,
  );
});

test("the agent's hub kubeconfig reaches its own cluster only", async () => {
  const hubCreds = loadKubeConfig(join(hubKubeconfigDir, 'kubeconfig'));
  assert.equal(hubCreds.getCurrentCluster()?.server, hub.url);
  const own = await kubeRequest(hubCreds, 'GET', `${MC_PATH}/c1`);
  assert.equal(own.status, 200, own.text);
  for (const path of [`${MC_PATH}/other`, '/api/v1/namespaces/kube-system/secrets', '/api/v1/namespaces/c1/secrets', '/api/v1/namespaces']) {
    const r = await kubeRequest(hubCreds, 'GET', path);
    assert.equal(r.status, 403, `GET ${path}: ${r.text}`);
    assert.match(r.json?.message ?? '', /"system:open-cluster-management:c1:[a-z0-9]+" cannot /, r.text);
  }
  const patch = await kubeRequest(hubCreds, 'PATCH', `${MC_PATH}/other/status`, { status: {} }, 'application/merge-patch+json');
  assert.equal(patch.status, 403, patch.text);
  await assert.rejects(
    hubCreds.makeApiClient(CustomObjectsApi).getClusterCustomObject({ group: 'cluster.open-cluster-management.io', version: 'v1', plural: 'managedclusters', name: 'other' }),
    (e: unknown) => e instanceof ApiException && e.code === 403,
  );
});

test('restarting the hub on the same data dir keeps the cluster, Available, with no new CSR', async () => {
  const csrsBefore = await csrCount(hub.adminKubeconfig);
  assert.equal(csrsBefore, 1, 'one CSR for c1');
  const certBefore = await readFile(join(hubKubeconfigDir, 'tls.crt'), 'utf8');
  const port = hub.port;
  assert.equal(await hub.proc.stop('SIGINT'), 0, hub.proc.describe());
  const restartedAt = Date.now();
  hub = await startHub(join(dir, 'hub'), { port });
  assert.equal(hub.url, `https://127.0.0.1:${port}`);

  // The agent keeps renewing its lease (1 s) against the restarted hub, and the cluster stays or becomes Available again.
  await waitFor(async () => {
    const lease = await kubeRequest(loadKubeConfig(hub.adminKubeconfig), 'GET', '/apis/coordination.k8s.io/v1/namespaces/c1/leases/managed-cluster-lease');
    if (lease.status !== 200) return false;
    return Date.parse(lease.json.spec.renewTime) > restartedAt + 1000;
  }, 30_000, { message: 'lease renewed after the restart', intervalMs: 100 });
  await waitFor(async () => conditionStatus(await getCluster(hub.adminKubeconfig, 'c1'), AVAILABLE) === 'True', 30_000, { message: 'c1 Available after the restart', intervalMs: 100 });
  const c1 = await getCluster(hub.adminKubeconfig, 'c1');
  assert.equal(conditionStatus(c1, JOINED), 'True');
  assert.equal(await csrCount(hub.adminKubeconfig), csrsBefore, 'no new CSR after the hub restart');
  assert.equal(await readFile(join(hubKubeconfigDir, 'tls.crt'), 'utf8'), certBefore, 'the agent kept its certificate');
  assert.equal(agent.stderr().match(/A csr \\?"[^"\\]+\\?" is created/g)?.length ?? 0, 1, 'the agent created exactly one CSR');
});

test('agent, spoke and hub stop cleanly on SIGINT (exit 0)', async () => {
  assert.equal(await agent.stop('SIGINT'), 0, agent.describe());
  assert.equal(await spoke.proc.stop('SIGINT'), 0, spoke.proc.describe());
  assert.equal(await hub.proc.stop('SIGINT'), 0, hub.proc.describe());
});
