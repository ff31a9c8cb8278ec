import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ManagedCluster } from '../../api/cluster.js';
import type { Lease } from '../../api/core.js';
import type { KubeObject } from '../../api/meta.js';
import { rfc3339Micro } from '../../api/conditions.js';
import type { InformerFactory } from '../../client/informer-factory.js';
import type { Informer, KubeClient, ResourceClient } from '../../client/types.js';
import type { Clock } from '../../util/clock.js';
import { nullLogger } from '../../util/logger.js';
import { createHubAcceptController } from './hub-accept-controller.js';
import { createHubTimeoutController, isLeaseTimedOut } from './hub-timeout-controller.js';

function fakeFactory(objects: KubeObject[]): InformerFactory {
  const informer: Informer<KubeObject> = {
    lister: { get: (name) => objects.find((o) => o.metadata.name === name), list: () => objects, size: () => objects.length, count: () => objects.length },
    addHandlers: () => {},
    start: () => {},
    hasSynced: () => true,
    waitForSync: async () => {},
    state: () => 'watching',
  };
  return {
    informerFor: <T extends KubeObject>() => informer as unknown as Informer<T>,
    start: () => {},
    waitForSync: async () => {},
  };
}

function fakeClock(start: number): Clock & { advance(ms: number): void } {
  let now = start;
  return { now: () => now, advance: (ms) => void (now += ms), sleep: async () => {}, setTimeout: () => ({ cancel() {} }) };
}

test('hub accept controller: accepted → no restart; hubAcceptsClient false → restart', () => {
  const cases: { name: string; accepts: boolean; restarts: number }[] = [
    { name: 'accepted', accepts: true, restarts: 0 },
    { name: 'not accepted', accepts: false, restarts: 1 },
  ];
  for (const c of cases) {
    const reasons: string[] = [];
    const cluster: ManagedCluster = { metadata: { name: 'c1' }, spec: { hubAcceptsClient: c.accepts } };
    const k = createHubAcceptController({ clusterName: 'c1', hubInformers: fakeFactory([cluster]), onRestart: (r) => reasons.push(r), log: nullLogger() });
    k.sync();
    assert.equal(reasons.length, c.restarts, c.name);
  }
  const k = createHubAcceptController({ clusterName: 'missing', hubInformers: fakeFactory([]), onRestart: () => assert.fail('no restart'), log: nullLogger() });
  assert.throws(() => k.sync(), /not found/);
});

function leaseClient(get: () => Promise<Lease>): KubeClient {
  const leases = { get } as unknown as ResourceClient;
  return { resource: () => leases } as unknown as KubeClient;
}

test('hub timeout controller sync', async () => {
  const t0 = Date.parse('2026-06-01T00:00:00Z');
  const cases: { name: string; leaseAgeMs: number; upMs: number; restarts: number }[] = [
    { name: 'not timeout', leaseAgeMs: 2000, upMs: 11_000, restarts: 0 },
    { name: 'timeout', leaseAgeMs: 6000, upMs: 11_000, restarts: 1 },
    { name: 'timeout but within the startup grace', leaseAgeMs: 6000, upMs: 5_000, restarts: 0 },
  ];
  for (const c of cases) {
    const clock = fakeClock(t0);
    const reasons: string[] = [];
    const l = createHubTimeoutController({
      clusterName: 'c1',
      hubClient: leaseClient(async () => ({ metadata: { name: 'managed-cluster-lease' }, spec: { renewTime: rfc3339Micro(new Date(clock.now() - c.leaseAgeMs)) } })),
      hubConnectionTimeoutSeconds: 5,
      onRestart: (r) => reasons.push(r),
      log: nullLogger(),
      clock,
    });
    clock.advance(c.upMs);
    await l.sync(new AbortController().signal);
    assert.equal(reasons.length, c.restarts, c.name);
    if (c.restarts) assert.equal(reasons[0], 'Failed to connect to hub because of lease out-of-date, restart agent to reselect a new bootstrap kubeconfig');
  }
});

test('hub timeout controller: an unreachable hub counts from the first failed read', async () => {
  const clock = fakeClock(0);
  const reasons: string[] = [];
  const l = createHubTimeoutController({
    clusterName: 'c1',
    hubClient: leaseClient(async () => Promise.reject(new Error('connection refused'))),
    hubConnectionTimeoutSeconds: 5,
    onRestart: (r) => reasons.push(r),
    log: nullLogger(),
    clock,
  });
  await l.sync(new AbortController().signal); // first failure at t=0
  clock.advance(11_000);
  await l.sync(new AbortController().signal);
  assert.equal(reasons.length, 1);
});

test('isLeaseTimedOut is a strict comparison', () => {
  assert.equal(isLeaseTimedOut(0, 5000, 5), false, 'not timeout yet');
  assert.equal(isLeaseTimedOut(0, 5001, 5), true, 'timeout');
});
