// A join storm's race, reproduced with one agent: the hub signs the bootstrap CSR while every
// ManagedCluster create still fails (a starved hub answering 500). The hub kubeconfig becomes valid
// and the bootstrap phase ends; the ManagedCluster must still be created once the hub answers again,
// since nothing but the bootstrap identity's creating controller ever creates it.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ManagedCluster } from '../../../src/api/cluster.js';
import { startSpokeAgent } from '../../../src/agent/spoke-agent.js';
import { ApiError } from '../../../src/apiserver/http/errors.js';
import type { AdmissionPlugin } from '../../../src/apiserver/pipeline.js';
import { resourceTypes } from '../../../src/client/resource-types.js';
import { getIfExists } from '../../helpers/objects.js';
import { testLogger } from '../../helpers/test-log.js';
import { waitFor } from '../../helpers/wait-for.js';
import { ensureNamespace, startClusters } from '../controllers/clusters.js';
import { AGENT_NS, autoDecideCsrs, grantAgentsClusterAdmin, testAgentOptions, writeBootstrapKubeconfig } from './fixture.js';

test('should create the ManagedCluster after the bootstrap phase when every create failed until the certificate was signed', async () => {
  let failCreates = true;
  let refused = 0;
  const starved: AdmissionPlugin = {
    name: 'test-starved-hub',
    handles: (group, resource) => group === 'cluster.open-cluster-management.io' && resource === 'managedclusters',
    validate(req) {
      if (!failCreates || req.operation !== 'CREATE') return;
      refused++;
      throw new ApiError(500, 'InternalError', 'the hub is too busy to admit this ManagedCluster (injected by the test)');
    },
  };
  const clusters = await startClusters({ hubServer: { admission: [starved] } });
  const dir = await mkdtemp(join(tmpdir(), 'ocm-ts-create-after-join-'));
  const decide = new AbortController();
  const agents: Array<{ stop(): Promise<unknown> }> = [];
  try {
    const { hub, spoke, hubAdmin, spokeAdmin } = clusters;
    await ensureNamespace(spokeAdmin, AGENT_NS);
    await grantAgentsClusterAdmin(hubAdmin);
    const bootstrapKubeconfig = join(dir, 'bootstrap.kubeconfig');
    await writeBootstrapKubeconfig(hub.adminKubeconfigPath, spokeAdmin, bootstrapKubeconfig);
    // The hub signs CSRs without waiting for the ManagedCluster, as auto-approval does.
    const deciding = autoDecideCsrs(hubAdmin, 'cluster1', decide.signal);
    const agent = await startSpokeAgent({
      options: testAgentOptions({ kubeconfig: spoke.adminKubeconfigPath, bootstrapKubeconfig, hubKubeconfigDir: join(dir, 'hub-kubeconfig') }),
      log: testLogger(),
      defaultMetrics: false,
    });
    agents.push(agent);
    await waitFor(() => agent.status().phase === 'main', 20_000, { message: 'main phase' });
    const clustersOnHub = hubAdmin.resource<ManagedCluster>(resourceTypes.managedClusters);
    assert.ok(refused > 0, 'the agent tried to create its ManagedCluster during bootstrap');
    assert.equal(await getIfExists(clustersOnHub, 'cluster1'), undefined, 'no ManagedCluster yet: every create was refused');

    failCreates = false;
    const mc = await waitFor(() => getIfExists(clustersOnHub, 'cluster1'), 40_000, { message: 'ManagedCluster created after the bootstrap phase', intervalMs: 100 });
    assert.equal(mc.metadata.name, 'cluster1');
    assert.equal(agent.status().bootstraps, 1, 'created without a second bootstrap');
    decide.abort();
    await deciding;
  } finally {
    decide.abort();
    for (const a of agents) await a.stop();
    await clusters.stop();
    await rm(dir, { recursive: true, force: true });
  }
});
