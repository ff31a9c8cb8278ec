// The MultipleHubs controllers against a real hub: the hub accept controller asks for a restart when
// the hub stops accepting the cluster, the hub timeout controller when the cluster lease is no longer
// renewed (on a manual clock), and bootstrap candidates are checked against a real server.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ManagedCluster } from '../../../src/api/cluster.js';
import type { Lease } from '../../../src/api/core.js';
import { rfc3339Micro } from '../../../src/api/conditions.js';
import { createInformerFactory } from '../../../src/client/informer-factory.js';
import { resourceTypes } from '../../../src/client/resource-types.js';
import { createManualClock } from '../../../src/client/manual-clock.js';
import { nullLogger } from '../../../src/util/logger.js';
import {
  checkBootstrapCandidate,
  createHubAcceptController,
  createHubTimeoutController,
  HUB_ACCEPT_CONTROLLER_NAME,
  HUB_TIMEOUT_CONTROLLER_NAME,
} from '../../../src/agent/hubs/index.js';
import { createAcceptedCluster, createClusterLease, startClusters, type Clusters } from './clusters.js';
import { captureLog } from '../../helpers/test-log.js';
import { waitFor } from '../../helpers/wait-for.js';

let env: Clusters;
before(async () => {
  env = await startClusters({ spoke: false });
});
after(async () => {
  await env?.stop();
});

test('HubAcceptController asks for a restart when hubAcceptsClient turns false', async () => {
  await createAcceptedCluster(env.hubAdmin, 'k1');
  const reasons: string[] = [];
  const logs = captureLog();
  const ac = new AbortController();
  const hubInformers = createInformerFactory(env.hubAdmin);
  const k = createHubAcceptController({ clusterName: 'k1', hubInformers, onRestart: (r) => reasons.push(r), log: logs.log });
  hubInformers.start(ac.signal);
  const running = k.run(ac.signal);
  try {
    await waitFor(() => logs.reconciles(HUB_ACCEPT_CONTROLLER_NAME) >= 1, 5000, { message: 'a run on the accepted cluster' });
    assert.equal(reasons.length, 0);
    const clusters = env.hubAdmin.resource<ManagedCluster>(resourceTypes.managedClusters);
    const mc = await clusters.get('k1');
    mc.spec = { ...mc.spec!, hubAcceptsClient: false };
    await clusters.update(mc);
    await waitFor(() => reasons.length > 0, 5000);
    assert.equal(reasons[0], 'Failed to connect to hub because of hubAcceptClient set to false, restart agent to reselect a new bootstrap kubeconfig');
  } finally {
    ac.abort();
    await running;
  }
});

test('HubTimeoutController asks for a restart once the lease is older than the timeout', async () => {
  await createAcceptedCluster(env.hubAdmin, 'l1');
  const clock = createManualClock();
  await createClusterLease(env.hubAdmin, 'l1', rfc3339Micro(new Date(clock.now())));
  const reasons: string[] = [];
  const logs = captureLog();
  const ac = new AbortController();
  const l = createHubTimeoutController({ clusterName: 'l1', hubClient: env.hubAdmin, hubConnectionTimeoutSeconds: 1, resyncMs: 300, startupGraceMs: 0, onRestart: (r) => reasons.push(r), log: logs.log, clock });
  const running = l.run(ac.signal);
  const runs = (): number => logs.reconciles(HUB_TIMEOUT_CONTROLLER_NAME);
  /** Advances to the next resync and waits until it has read the lease. */
  const resync = async (): Promise<void> => {
    const before = runs();
    clock.advance(300);
    await waitFor(() => runs() > before, 5000, { message: 'a resync' });
  };
  try {
    await waitFor(() => runs() >= 1, 5000, { message: 'the first run' });
    // renewed before each resync: no restart, although more than the 1 s timeout passes
    const leases = env.hubAdmin.resource<Lease>(resourceTypes.leases, 'l1');
    for (let i = 0; i < 4; i++) {
      const lease = await leases.get('managed-cluster-lease');
      lease.spec = { ...lease.spec, renewTime: rfc3339Micro(new Date(clock.now())) };
      await leases.update(lease);
      await resync();
    }
    assert.equal(reasons.length, 0);
    // renewals stop: 600 and 900 ms after the last one, no restart yet; 1200 ms after, a restart
    await resync();
    await resync();
    assert.equal(reasons.length, 0, 'no restart within the timeout');
    await resync();
    assert.equal(reasons[0], 'Failed to connect to hub because of lease out-of-date, restart agent to reselect a new bootstrap kubeconfig');
  } finally {
    ac.abort();
    await running;
  }
});

test('checkBootstrapCandidate: admin may bootstrap; a refused cluster is not valid', async () => {
  const signal = new AbortController().signal;
  await checkBootstrapCandidate(env.hubAdmin, 'not-yet-created', signal);
  await env.hubAdmin.resource<ManagedCluster>(resourceTypes.managedClusters).create({ apiVersion: 'cluster.open-cluster-management.io/v1', kind: 'ManagedCluster', metadata: { name: 'refused' }, spec: { hubAcceptsClient: false } });
  await assert.rejects(checkBootstrapCandidate(env.hubAdmin, 'refused', signal), { message: 'hub does not accept client' });
  await createAcceptedCluster(env.hubAdmin, 'fine');
  await checkBootstrapCandidate(env.hubAdmin, 'fine', signal);
});

test('selectBootstrapKubeconfigIndex picks the first usable candidate from real kubeconfig files', async () => {
  const { mkdtempSync, writeFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { tmpdir } = await import('node:os');
  const { selectBootstrapKubeconfigIndex } = await import('../../../src/agent/hubs/index.js');
  const dir = mkdtempSync(join(tmpdir(), 'ocm-ts-select-'));
  const unreachable = join(dir, 'unreachable.kubeconfig');
  writeFileSync(
    unreachable,
    'apiVersion: v1\nkind: Config\ncurrent-context: c\ncontexts:\n- name: c\n  context: {cluster: hub, user: u}\nclusters:\n- name: hub\n  cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}\nusers:\n- name: u\n  user: {token: x}\n',
  );
  const index = await selectBootstrapKubeconfigIndex({
    clusterName: 'select-me',
    hubKubeconfigFile: join(dir, 'missing-hub-kubeconfig'),
    candidates: [unreachable, env.hub.adminKubeconfigPath],
    log: nullLogger(),
    signal: new AbortController().signal,
  });
  assert.equal(index, 1);
  await assert.rejects(
    selectBootstrapKubeconfigIndex({ clusterName: 'select-me', hubKubeconfigFile: join(dir, 'missing'), candidates: [unreachable], log: nullLogger(), signal: new AbortController().signal }),
    { message: `no bootstrap kubeconfig in [${unreachable}] is available for managed cluster select-me` },
  );
});
