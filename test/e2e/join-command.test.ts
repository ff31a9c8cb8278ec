// The README's "joining a cluster by hand", as a user runs it: `ocm-ts hub` → `ocm-ts hub token` →
// `ocm-ts join` (spoke prepared, agent in the foreground) → `ocm-ts accept --wait` → Joined and
// Available; `ocm-ts doctor` then finds every link holding. `join --print-manifests` emits the
// objects for a real cluster; `hub token` without a valid token asks for --create.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseYamlDocuments } from '../../src/util/yaml.js';
import { cleanupAll, conditionStatus, kubeRequest, loadKubeConfig, runCli, runCliToEnd, startApiserver, startHub, tempDir, type ApiserverProcess, type HubProcess } from './cli-helpers.js';
import { waitFor } from '../helpers/wait-for.js';

let dir = '';
let hub: HubProcess;
let spoke: ApiserverProcess;

after(cleanupAll);

before(async () => {
  dir = await tempDir('join-cmd');
  [hub, spoke] = await Promise.all([startHub(join(dir, 'hub')), startApiserver(join(dir, 'spoke'))]);
});

test('hub token → join → accept: Joined and Available; doctor is happy; Ctrl-C stops the agent (exit 0)', async () => {
  const fromDir = await runCliToEnd(['hub', 'token', '--data-dir', join(dir, 'hub')]);
  assert.equal(fromDir.code, 0, fromDir.describe);
  const token = await runCliToEnd(['hub', 'token', '--kubeconfig', hub.adminKubeconfig]);
  assert.equal(token.code, 0, token.describe);
  assert.match(token.stderr, /^using bootstrap token [a-z0-9]{6}, expires at /m);
  assert.match(token.stderr, /ocm-ts join --hub-kubeconfig/);
  // The hub's own bootstrap token is the one handed out, with the hub's URL.
  const bootstrap = loadKubeConfig(hub.bootstrapKubeconfig);
  const printed = join(dir, 'bootstrap.kubeconfig');
  await writeFile(printed, token.stdout, { mode: 0o600 });
  const kc = loadKubeConfig(printed);
  assert.equal(kc.getCurrentCluster()?.server, hub.url);
  assert.equal(kc.getCurrentUser()?.token, bootstrap.getCurrentUser()?.token);
  assert.equal(kc.getCurrentCluster()?.caData, loadKubeConfig(join(dir, 'hub', 'bootstrap.kubeconfig')).getCurrentCluster()?.caData);

  const agent = runCli(['join', '--hub-kubeconfig', printed, '--cluster-name', 'c1', '--kubeconfig', spoke.adminKubeconfig, '--log-level', 'warn', '--', '--cluster-healthcheck-period', '1s', '--bootstrap-poll-period', '100ms']);
  const started = await agent.waitForLine(/^registration agent of cluster c1 started: hub (\S+), hub credentials in (\S+), health (https:\/\/\S+)\/healthz/, 30_000);
  assert.equal(started[1], hub.url);
  assert.match(agent.stdout(), /^created namespace open-cluster-management-agent$/m);
  assert.match(agent.stdout(), /^created secret open-cluster-management-agent\/bootstrap-hub-kubeconfig$/m);
  const secret = await kubeRequest(loadKubeConfig(spoke.adminKubeconfig), 'GET', '/api/v1/namespaces/open-cluster-management-agent/secrets/bootstrap-hub-kubeconfig');
  assert.equal(secret.status, 200, secret.text);
  assert.equal(Buffer.from(secret.json.data.kubeconfig, 'base64').toString(), token.stdout);

  const accept = await runCliToEnd(['accept', 'c1', '--kubeconfig', hub.adminKubeconfig, '--wait', '--timeout', '60s'], 90_000);
  assert.equal(accept.code, 0, `${accept.describe}\n--- join ---\n${agent.describe()}`);
  await waitFor(async () => {
    const r = await kubeRequest(loadKubeConfig(hub.adminKubeconfig), 'GET', '/apis/cluster.open-cluster-management.io/v1/managedclusters/c1');
    return conditionStatus(r.json, 'ManagedClusterJoined') === 'True' && conditionStatus(r.json, 'ManagedClusterConditionAvailable') === 'True';
  }, 30_000, { message: 'c1 Joined and Available', intervalMs: 100 });

  const doctor = await runCliToEnd(['doctor', 'c1', '--kubeconfig', hub.adminKubeconfig, '--spoke-kubeconfig', spoke.adminKubeconfig, '--agent-url', started[3]!]);
  assert.equal(doctor.code, 0, doctor.describe);
  assert.doesNotMatch(doctor.stdout, /^[✗-] /m, doctor.stdout);

  // A second join on the same spoke keeps what is there.
  assert.equal(await agent.stop('SIGINT'), 0, agent.describe());
  const again = runCli(['join', '--hub-kubeconfig', printed, '--cluster-name', 'c1', '--kubeconfig', spoke.adminKubeconfig, '--log-level', 'warn']);
  await again.waitForLine(/^registration agent of cluster c1 started/, 30_000);
  assert.match(again.stdout(), /^secret open-cluster-management-agent\/bootstrap-hub-kubeconfig is up to date$/m);
  assert.equal(await again.stop('SIGINT'), 0, again.describe());
});

test('join --print-manifests: namespace, bootstrap secret, RBAC and the Deployment, without touching a cluster', async () => {
  const r = await runCliToEnd(['join', '--hub-kubeconfig', hub.bootstrapKubeconfig, '--cluster-name', 'edge-7', '--print-manifests', '--image', 'registry.local/ocm-ts:1']);
  assert.equal(r.code, 0, r.describe);
  const docs = parseYamlDocuments(r.stdout) as { kind: string; metadata: { name: string }; data?: Record<string, string>; spec?: any }[];
  assert.deepEqual(docs.map((d) => d.kind), ['Namespace', 'Secret', 'ServiceAccount', 'Role', 'RoleBinding', 'ClusterRole', 'ClusterRoleBinding', 'Deployment']);
  const deployment = docs.at(-1)!;
  assert.equal(deployment.spec.template.spec.containers[0].image, 'registry.local/ocm-ts:1');
  assert.ok(deployment.spec.template.spec.containers[0].args.includes('--spoke-cluster-name=edge-7'));
  const secret = docs[1]!;
  assert.equal(secret.metadata.name, 'bootstrap-hub-kubeconfig');
  assert.match(Buffer.from(secret.data!['kubeconfig']!, 'base64').toString(), new RegExp(hub.url.replace(/[.]/g, '\\.')));
});

test('hub token: no valid token without --create is an error; --create makes one; bad input exits 2', async () => {
  const fresh = await tempDir('join-cmd-token');
  const other = await startApiserver(join(fresh, 'api'));
  const none = await runCliToEnd(['hub', 'token', '--kubeconfig', other.adminKubeconfig]);
  assert.equal(none.code, 1, none.describe);
  assert.match(none.stderr, /no bootstrap token .* pass --create/);
  const created = await runCliToEnd(['hub', 'token', '--kubeconfig', other.adminKubeconfig, '--create', '--ttl', '2h']);
  assert.equal(created.code, 0, created.describe);
  assert.match(created.stderr, /^created bootstrap token [a-z0-9]{6}, expires at /m);
  // Handed out again while a tenth of the TTL asked for is left (2h: 12 minutes; 24h would need 2.4h).
  const reused = await runCliToEnd(['hub', 'token', '--kubeconfig', other.adminKubeconfig, '--ttl', '2h']);
  assert.equal(reused.code, 0, reused.describe);
  assert.equal(reused.stdout, created.stdout, 'the created token is handed out again');
  assert.equal((await runCliToEnd(['hub', 'token', '--kubeconfig', other.adminKubeconfig])).code, 1, 'not with less than a tenth of 24h left');
  for (const args of [['hub', 'token', '--kubeconfig', other.adminKubeconfig, '--ttl', 'soon'], ['hub', 'token', '--data-dir', join(fresh, 'nothing')], ['join', '--hub-kubeconfig', join(fresh, 'missing'), '--cluster-name', 'x']]) {
    const bad = await runCliToEnd(args);
    assert.equal(bad.code, 2, bad.describe);
    assert.match(bad.stderr, /^error: /, bad.describe);
  }
  assert.equal(await other.proc.stop('SIGINT'), 0);
});
