// Availability debouncing end to end, on a manual clock: Available=True at once; when the spoke API
// server stops answering, False only once failures have lasted the failure threshold (OCM's 20 s,
// re-checked every 5 s), with exactly one hub event per change.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ManagedCluster } from '../../../src/api/cluster.js';
import type { EventV1 } from '../../../src/api/core.js';
import { findCondition } from '../../../src/api/conditions.js';
import { createManualClock } from '../../../src/client/manual-clock.js';
import { createKubeClient } from '../../../src/client/rest-client.js';
import { resourceTypes } from '../../../src/client/resource-types.js';
import { createAcceptedCluster, ensureNamespace, startClusters, type Clusters } from './clusters.js';
import { startStatusController } from './status-fixture.js';
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
  const thresholdMs = 20_000;
  const retryMs = 5000;
  const resyncMs = 60_000;
  await ensureNamespace(env.hubAdmin, name);
  await createAcceptedCluster(env.hubAdmin, name);
  const spokeClient = createKubeClient({ kubeconfigPath: env.spoke.adminKubeconfigPath }, { timeoutMs: 1000 });
  const clock = createManualClock();
  const r = startStatusController(env, name, {
    spokeClient,
    features: {},
    resyncMs,
    availabilityFailureThresholdMs: thresholdMs,
    availabilityRetryIntervalMs: retryMs,
    probeTimeoutMs: 500,
    clock,
  });
  const clusters = env.hubAdmin.resource<ManagedCluster>(resourceTypes.managedClusters);
  const availability = async (): Promise<string | undefined> => findCondition((await clusters.get(name)).status?.conditions, 'ManagedClusterConditionAvailable')?.status;
  const events = async (): Promise<EventV1[]> => (await env.hubAdmin.resource<EventV1>(resourceTypes.eventsV1, name).list()).items;
  /** Runs `trigger` and waits for the controller run it causes to finish. */
  const runAfter = async (trigger: () => void): Promise<void> => {
    const runs = r.runs(1);
    trigger();
    await runs;
  };
  /**
   * A status patch that lost a race to a hub controller (409) is retried after a few milliseconds,
   * a timer that comes before the re-check: let those retries run first.
   */
  const settle = async (): Promise<void> => {
    for (let due = clock.nextDue(); due !== undefined && due < clock.now() + retryMs; due = clock.nextDue()) {
      const at = due;
      await runAfter(() => clock.advance(at - clock.now()));
    }
  };
  try {
    await waitFor(async () => (await availability()) === 'True', 10_000);
    await waitFor(async () => (await events()).length === 1);

    await env.spoke.stop();
    // The first failing probe starts the failure window; re-checks follow every retry interval.
    await runAfter(() => r.controller.enqueue());
    for (let elapsed = retryMs; elapsed < thresholdMs; elapsed += retryMs) {
      await settle();
      assert.equal(clock.nextDue(), clock.now() + retryMs, 'a re-check is scheduled');
      await runAfter(() => clock.advance(retryMs));
      assert.equal(await availability(), 'True', `still True ${elapsed} ms into the failures`);
    }
    await runAfter(() => clock.advance(retryMs));
    assert.equal(await availability(), 'False', 'False once failures lasted the threshold');
    const cond = findCondition((await clusters.get(name)).status?.conditions, 'ManagedClusterConditionAvailable');
    assert.equal(cond?.reason, 'ManagedClusterKubeAPIServerUnavailable');
    assert.match(cond?.message ?? '', /^The kube-apiserver is not ok, status code: 0, /);

    await waitFor(async () => (await events()).length === 2);
    // two more failing resyncs: no further events
    await runAfter(() => clock.advance(resyncMs));
    await runAfter(() => clock.advance(resyncMs));
    const evs = (await events()).sort((a, b) => (a.eventTime ?? '').localeCompare(b.eventTime ?? ''));
    assert.deepEqual(evs.map((e) => [e.type, e.reason]), [['Normal', 'Available'], ['Warning', 'Unavailable']]);
    assert.equal(evs[1]!.note, `The ${name} is successfully imported. However, its Kube API server is unavailable`);
  } finally {
    await r.stop();
    spokeClient.close();
  }
});

test('a spoke without the ClusterClaim CRD still reports Joined and Available', async () => {
  const name = 'no-claim-crd';
  await createAcceptedCluster(env.hubAdmin, name);
  // the hub server has no clusterclaims/clusterproperties CRDs: use it as the spoke
  const r = startStatusController(env, name, { spokeClient: env.hubAdmin });
  try {
    const clusters = env.hubAdmin.resource<ManagedCluster>(resourceTypes.managedClusters);
    await waitFor(async () => {
      const conds = (await clusters.get(name)).status?.conditions;
      return findCondition(conds, 'ManagedClusterJoined')?.status === 'True' && findCondition(conds, 'ManagedClusterConditionAvailable')?.status === 'True';
    }, 10_000);
  } finally {
    await r.stop();
  }
});
