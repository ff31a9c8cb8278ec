import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { findCondition } from '../../api/conditions.js';
import type { Clock } from '../../util/clock.js';
import type { KubeClient } from '../../client/types.js';
import { createAvailableReconciler, decideAvailability, probeSpokeHealth, type ProbeOutcome } from './available-reconciler.js';
import { availableCondition, newCluster, newJoinedCluster, recordingContext } from './test-fixtures.js';

const down: ProbeOutcome = { healthy: false, statusCode: 500, detail: 'boom' };

test('decideAvailability table', () => {
  const base = { failureThresholdMs: 20_000, retryIntervalMs: 5_000 };
  const cases: {
    name: string;
    probe: ProbeOutcome;
    firstFailureAt?: number;
    nowMs: number;
    expected: { status?: string; reason?: string; next: string; firstFailureAt?: number; recheck?: number };
  }[] = [
    { name: 'healthy', probe: { healthy: true }, nowMs: 1000, expected: { status: 'True', reason: 'ManagedClusterAvailable', next: 'continue' } },
    { name: 'healthy clears failure', probe: { healthy: true }, firstFailureAt: 1, nowMs: 1000, expected: { status: 'True', reason: 'ManagedClusterAvailable', next: 'continue' } },
    { name: 'first failure: keep, recheck', probe: down, nowMs: 1000, expected: { next: 'stop', firstFailureAt: 1000, recheck: 5000 } },
    { name: 'within threshold', probe: down, firstFailureAt: 1000, nowMs: 20_999, expected: { next: 'stop', firstFailureAt: 1000, recheck: 5000 } },
    {
      name: 'threshold reached: False',
      probe: down,
      firstFailureAt: 1000,
      nowMs: 21_000,
      expected: { status: 'False', reason: 'ManagedClusterKubeAPIServerUnavailable', next: 'stop', firstFailureAt: 1000 },
    },
  ];
  for (const c of cases) {
    const d = decideAvailability({ ...base, probe: c.probe, firstFailureAt: c.firstFailureAt, nowMs: c.nowMs });
    assert.equal(d.condition?.status, c.expected.status, c.name);
    assert.equal(d.condition?.reason, c.expected.reason, c.name);
    assert.equal(d.next, c.expected.next, c.name);
    assert.equal(d.firstFailureAt, c.expected.firstFailureAt, c.name);
    assert.equal(d.recheckAfterMs, c.expected.recheck, c.name);
  }
  const f = decideAvailability({ ...base, probe: down, firstFailureAt: 0, nowMs: 30_000 });
  assert.equal(f.condition?.message, 'The kube-apiserver is not ok, status code: 500, boom');
});

function fakeClock(start = 1_000_000): Clock & { advance(ms: number): void } {
  let now = start;
  return {
    now: () => now,
    advance: (ms) => {
      now += ms;
    },
    sleep: async () => {},
    setTimeout: () => ({ cancel() {} }),
  };
}

test('failure threshold: first failure keeps True and stops; after the threshold → False', async () => {
  const clock = fakeClock();
  const r = createAvailableReconciler({ probe: async () => down, clock, failureThresholdMs: 20_000, retryIntervalMs: 5_000 });
  const ctx = recordingContext();
  let res = await r.reconcile(newCluster([availableCondition]), ctx);
  assert.equal(res.next, 'stop');
  assert.equal(findCondition(res.obj.status?.conditions, 'ManagedClusterConditionAvailable')?.status, 'True');
  assert.deepEqual(ctx.requeues, [5000]);
  clock.advance(20_000);
  res = await r.reconcile(newCluster([availableCondition]), ctx);
  const c = findCondition(res.obj.status?.conditions, 'ManagedClusterConditionAvailable');
  assert.equal(c?.status, 'False');
  assert.equal(c?.reason, 'ManagedClusterKubeAPIServerUnavailable');
});

test('failure reset: a recovery clears the failure clock', async () => {
  const clock = fakeClock();
  let healthy = false;
  const r = createAvailableReconciler({ probe: async () => (healthy ? { healthy: true } : down), clock });
  const ctx = recordingContext();
  await r.reconcile(newCluster([availableCondition]), ctx);
  clock.advance(15_000);
  healthy = true;
  await r.reconcile(newCluster([availableCondition]), ctx);
  healthy = false;
  clock.advance(10_000); // 25 s after the first failure, 10 s after recovery
  const res = await r.reconcile(newCluster([availableCondition]), ctx);
  assert.equal(findCondition(res.obj.status?.conditions, 'ManagedClusterConditionAvailable')?.status, 'True');
});

test('burst: 20 rapid failing reconciles within the threshold keep True', async () => {
  const clock = fakeClock();
  const r = createAvailableReconciler({ probe: async () => down, clock });
  for (let i = 0; i < 20; i++) {
    const res = await r.reconcile(newCluster([availableCondition]), recordingContext());
    assert.equal(findCondition(res.obj.status?.conditions, 'ManagedClusterConditionAvailable')?.status, 'True');
    clock.advance(100);
  }
});

test('healthy sets True and continues', async () => {
  const r = createAvailableReconciler({ probe: async () => ({ healthy: true }), clock: fakeClock() });
  const res = await r.reconcile(newJoinedCluster(), recordingContext());
  assert.equal(res.next, 'continue');
  const c = findCondition(res.obj.status?.conditions, 'ManagedClusterConditionAvailable');
  assert.equal(c?.status, 'True');
  assert.equal(c?.reason, 'ManagedClusterAvailable');
  assert.equal(c?.message, 'Managed cluster is available');
});

async function withServer(routes: Record<string, [number, string]>, fn: (client: Pick<KubeClient, 'probe'>) => Promise<void>): Promise<void> {
  const seen: string[] = [];
  const server: Server = createServer((req, res) => {
    seen.push(req.url ?? '');
    const [code, body] = routes[req.url ?? ''] ?? [404, 'not found'];
    res.writeHead(code, { 'content-type': 'text/plain' });
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const client: Pick<KubeClient, 'probe'> = {
    probe: async (path, opts) => {
      const res = await fetch(`http://127.0.0.1:${port}${path}`, opts?.signal ? { signal: opts.signal } : {});
      return { statusCode: res.status, body: await res.text() };
    },
  };
  try {
    await fn(client);
  } finally {
    server.close();
  }
}

test('probeSpokeHealth against a real HTTP server', async (t) => {
  const signal = new AbortController().signal;
  const cases: { name: string; routes: Record<string, [number, string]>; expected: ProbeOutcome }[] = [
    { name: 'kube-apiserver is healthy via livez', routes: { '/livez': [200, 'ok'] }, expected: { healthy: true } },
    { name: 'livez not found, fallback to healthz which is ok', routes: { '/healthz': [200, 'ok'] }, expected: { healthy: true } },
    { name: 'livez forbidden, fallback to healthz which is ok', routes: { '/livez': [403, 'no'], '/healthz': [200, 'ok'] }, expected: { healthy: true } },
    {
      name: 'livez fails with 500',
      routes: { '/livez': [500, 'etcd failed'], '/healthz': [200, 'ok'] },
      expected: { healthy: false, statusCode: 500, detail: 'an error on the server ("etcd failed") has prevented the request from succeeding' },
    },
    { name: 'healthz also missing', routes: {}, expected: { healthy: false, statusCode: 404, detail: 'an error on the server ("not found") has prevented the request from succeeding' } },
    { name: '2xx but not 200 keeps the body', routes: { '/livez': [202, 'accepted'] }, expected: { healthy: false, statusCode: 202, detail: 'accepted' } },
  ];
  for (const c of cases) {
    await t.test(c.name, async () => {
      await withServer(c.routes, async (client) => {
        assert.deepEqual(await probeSpokeHealth(client, signal), c.expected);
      });
    });
  }
  await t.test('transport failure has status code 0', async () => {
    const res = await probeSpokeHealth({ probe: async () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:1')) }, signal);
    assert.deepEqual(res, { healthy: false, statusCode: 0, detail: 'connect ECONNREFUSED 127.0.0.1:1' });
  });
});
