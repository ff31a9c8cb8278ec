// The hub manager starts every controller per gates and serves /healthz and /metrics.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHubFixture, type HubFixture } from './hub-fixture.js';

let fx: HubFixture;
before(async () => {
  fx = await startHubFixture({ hub: false });
});
after(async () => fx?.stop());

test('start hub manager: controllers per gates, /healthz ok, Prometheus /metrics', async () => {
  const hub = await fx.startHub({}, '127.0.0.1:0');
  assert.deepEqual([...hub.controllers].sort(), [
    'AddOnFeatureDiscoveryController',
    'CSRApprovingController',
    'ClockSyncController',
    'DefaultManagedClusterSetController',
    'GCController',
    'GlobalManagedClusterSetController',
    'ManagedClusterAddonHealthCheckController',
    'ManagedClusterClusterRoleController',
    'ManagedClusterController',
    'ManagedClusterLeaseController',
    'ManagedClusterSetController',
    'ManagedClusterSetController',
    'ManagedNamespaceController',
    'taintController',
  ].sort());
  assert.ok(hub.metricsUrl);
  const health = await fetch(`${hub.metricsUrl}/healthz`);
  assert.equal(health.status, 200);
  assert.equal(await health.text(), 'ok');
  const metrics = await (await fetch(`${hub.metricsUrl}/metrics`)).text();
  assert.match(metrics, /ocm_hub_api_requests_total\{verb="list",resource="managedclusters"\} \d+/);
  assert.match(metrics, /# TYPE ocm_hub_reconcile_total counter/);
  await fx.stopHub();
});

test('gates: DefaultClusterSet and ResourceCleanup off remove their controllers', async () => {
  const hub = await fx.startHub({ featureGates: ['DefaultClusterSet=false,ResourceCleanup=false'] });
  for (const n of ['DefaultManagedClusterSetController', 'GlobalManagedClusterSetController', 'GCController']) assert.ok(!hub.controllers.includes(n), n);
  await fx.stopHub();
});
