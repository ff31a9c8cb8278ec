// Availability debouncing end to end (spoke-agent.md §14.3, §14.8): Available=True at once;
// when the spoke API server stops answering, False only after the (shortened) failure threshold,
// with exactly one hub event per change.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { setMaxListeners } from 'node:events';
import type { ManagedCluster } from '../../../src/api/cluster.js';
import type { EventV1 } from '../../../src/api/core.js';
import { findCondition } from '../../../src/api/conditions.js';
import { createInformerFactory } from '../../../src/client/informer-factory.js';
import { createKubeClient } from '../../../src/client/rest-client.js';
import { resourceTypes } from '../../../src/client/resource-types.js';
import { nullLogger } from '../../../src/util/logger.js';
import { createStatusController } from '../../../src/agent/managedcluster/index.js';
import { createAcceptedCluster, ensureNamespace, startClusters, type Clusters } from './clusters.js';
import { waitFor } from '../../helpers/wait-for.js';

let env: Clusters;
before(async () => {
  env = await startClusters();
});
after(async () => {
  await env?.stop();
});

test('Available becomes False only after the failure threshold; one event per change', async () => {
  const name = 'avail';
  const thresholdMs = 1500;
  await ensureNamespace(env.hubAdmin, name);
  await createAcceptedCluster(env.hubAdmin, name);
  const spokeClient = createKubeClient({ kubeconfigPath: env.spoke.adminKubeconfigPath }, { timeoutMs: 1000 });
  const ac = new AbortController();
  setMaxListeners(50, ac.signal);
  const hubInformers = createInformerFactory(env.hubAdmin);
  const spokeInformers = createInformerFactory(spokeClient);
  const c = createStatusController({
    clusterName: name,
    hubClient: env.hubAdmin,
    hubInformers,
    spokeClient,
    spokeInformers,
    bootstrapServerUrl: 'https://hub',
    features: {},
    resyncMs: 5000,
    availabilityFailureThresholdMs: thresholdMs,
    availabilityRetryIntervalMs: 100,
    probeTimeoutMs: 500,
    hostname: 'h',
    log: nullLogger(),
  });
  hubInformers.start(ac.signal);
  spokeInformers.start(ac.signal);
  const running = c.run(ac.signal);
  const clusters = env.hubAdmin.resource<ManagedCluster>(resourceTypes.managedClusters);
  const availability = async (): Promise<string | undefined> => findCondition((await clusters.get(name)).status?.conditions, 'ManagedClusterConditionAvailable')?.status;
  const events = async (): Promise<EventV1[]> => (await env.hubAdmin.resource<EventV1>(resourceTypes.eventsV1, name).list()).items;
  try {
    await waitFor(async () => (await availability()) === 'True', 10_000);
    await waitFor(async () => (await events()).length === 1);

    const stoppedAt = Date.now();
    await env.spoke.stop();
    // still True well inside the threshold
    await new Promise((r) => setTimeout(r, thresholdMs / 2));
    assert.equal(await availability(), 'True');
    await waitFor(async () => (await availability()) === 'False', 10_000);
    assert.ok(Date.now() - stoppedAt >= thresholdMs, 'False not before the threshold');
    const cond = findCondition((await clusters.get(name)).status?.conditions, 'ManagedClusterConditionAvailable');
    assert.equal(cond?.reason, 'ManagedClusterKubeAPIServerUnavailable');
    assert.match(cond?.message ?? '', /^The kube-apiserver is not ok, status code: 0, /);

    await waitFor(async () => (await events()).length === 2);
    await new Promise((r) => setTimeout(r, 400)); // more failing re-checks: no further events
    const evs = (await events()).sort((a, b) => (a.eventTime ?? '').localeCompare(b.eventTime ?? ''));
    assert.deepEqual(evs.map((e) => [e.type, e.reason]), [['Normal', 'Available'], ['Warning', 'Unavailable']]);
    assert.equal(evs[1]!.note, `The ${name} is successfully imported. However, its Kube API server is unavailable`);
  } finally {
    ac.abort();
    await running;
    spokeClient.close();
  }
});

test('a spoke without the ClusterClaim CRD still reports Joined and Available', async () => {
  const name = 'no-claim-crd';
  await createAcceptedCluster(env.hubAdmin, name);
  const ac = new AbortController();
  setMaxListeners(50, ac.signal);
  const hubInformers = createInformerFactory(env.hubAdmin);
  // the hub server has no clusterclaims/clusterproperties CRDs: use it as the spoke
  const spokeInformers = createInformerFactory(env.hubAdmin);
  const c = createStatusController({
    clusterName: name,
    hubClient: env.hubAdmin,
    hubInformers,
    spokeClient: env.hubAdmin,
    spokeInformers,
    bootstrapServerUrl: 'https://hub',
    features: { ClusterClaim: true, ClusterProperty: true },
    resyncMs: 200,
    log: nullLogger(),
  });
  hubInformers.start(ac.signal);
  spokeInformers.start(ac.signal);
  const running = c.run(ac.signal);
  try {
    const clusters = env.hubAdmin.resource<ManagedCluster>(resourceTypes.managedClusters);
    await waitFor(async () => {
      const conds = (await clusters.get(name)).status?.conditions;
      return findCondition(conds, 'ManagedClusterJoined')?.status === 'True' && findCondition(conds, 'ManagedClusterConditionAvailable')?.status === 'True';
    }, 10_000);
  } finally {
    ac.abort();
    await running;
  }
});
