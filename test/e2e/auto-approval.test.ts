// End to end with auto-approval (hub-controller.md §5.1 C, §7.3): `ocm-ts hub --feature-gates
// ManagedClusterAutoApproval=true --auto-approved-csr-users system:bootstrap:<token id>` + a spoke + an
// agent, and no `ocm-ts accept`: the hub approves the bootstrap CSR and accepts the cluster itself.

import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseYaml } from '../../src/util/yaml.js';
import { cleanupAll, conditionStatus, kubeRequest, loadKubeConfig, prepareSpoke, runCli, startApiserver, startHub, tempDir } from './cli-helpers.js';
import { waitFor } from '../helpers/wait-for.js';

after(cleanupAll);

test('auto-approval: the agent joins and becomes Available without ocm-ts accept', async (t) => {
  const dir = await tempDir('auto');
  const hubDir = join(dir, 'hub');
  // First start: learn the bootstrap token id (reused on restart while valid).
  const [first, spoke] = await Promise.all([startHub(hubDir), startApiserver(join(dir, 'spoke'))]);
  const token = (parseYaml(await readFile(first.bootstrapKubeconfig, 'utf8')) as { users: { user: { token: string } }[] }).users[0]!.user.token;
  const tokenId = token.split('.')[0]!;
  assert.match(tokenId, /^[a-z0-9]{6}$/);
  assert.equal(await first.proc.stop('SIGINT'), 0, first.proc.describe());
  const hub = await startHub(hubDir, { extraArgs: ['--feature-gates', 'ManagedClusterAutoApproval=true', '--auto-approved-csr-users', `system:bootstrap:${tokenId}`] });
  await prepareSpoke(spoke.adminKubeconfig);

  const t0 = Date.now();
  const agent = runCli([
    'agent',
    '--kubeconfig', spoke.adminKubeconfig,
    '--cluster-name', 'auto1',
    '--bootstrap-kubeconfig', hub.bootstrapKubeconfig,
    '--hub-kubeconfig-dir', join(dir, 'hub-kubeconfig'),
    '--cluster-healthcheck-period', '1s',
    '--bootstrap-poll-period', '100ms',
    '--log-level', 'warn',
  ]);
  const admin = loadKubeConfig(hub.adminKubeconfig);
  const mc = await waitFor(async () => {
    const r = await kubeRequest(admin, 'GET', '/apis/cluster.open-cluster-management.io/v1/managedclusters/auto1');
    return r.status === 200 && conditionStatus(r.json, 'ManagedClusterJoined') === 'True' && conditionStatus(r.json, 'ManagedClusterConditionAvailable') === 'True' ? r.json : undefined;
  }, 45_000, { message: 'auto1 Joined and Available with auto-approval', intervalMs: 100 }).catch(async (err: Error) => {
    const r = await kubeRequest(admin, 'GET', '/apis/cluster.open-cluster-management.io/v1/managedclusters/auto1');
    throw new Error(`${err.message}\nManagedCluster: ${r.text}\n--- hub ---\n${hub.proc.describe()}\n--- agent ---\n${agent.describe()}`);
  });
  t.diagnostic(`Joined and Available ${Date.now() - t0} ms after the agent process started`);
  assert.equal(mc.spec.hubAcceptsClient, true);
  assert.ok(mc.metadata.annotations?.['open-cluster-management.io/automatically-accepted-on'], 'auto-accept annotation');
  const csrs = await kubeRequest(admin, 'GET', '/apis/certificates.k8s.io/v1/certificatesigningrequests?labelSelector=open-cluster-management.io%2Fcluster-name%3Dauto1');
  assert.equal(csrs.json.items.length, 1);
  assert.equal(csrs.json.items[0].spec.username, `system:bootstrap:${tokenId}`);
  assert.equal(conditionStatus(csrs.json.items[0], 'Approved'), 'True');

  assert.equal(await agent.stop('SIGINT'), 0, agent.describe());
  assert.equal(await spoke.proc.stop('SIGINT'), 0, spoke.proc.describe());
  assert.equal(await hub.proc.stop('SIGINT'), 0, hub.proc.describe());
});
