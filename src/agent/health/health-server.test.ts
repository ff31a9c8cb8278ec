import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nullLogger } from '../../util/logger.js';
import { createAgentMetrics } from './agent-metrics.js';
import { createHubKubeconfigHealthChecker, startHealthServer } from './health-server.js';

test('should pass until bootstrapped, then follow the hub kubeconfig check (TestHealthChecker)', async (t) => {
  const checker = createHubKubeconfigHealthChecker();
  const metrics = createAgentMetrics({ defaultMetrics: false });
  const server = await startHealthServer({ listen: '127.0.0.1:0', checker, metrics, log: nullLogger() });
  t.after(() => server.close());
  assert.equal((await fetch(`${server.url}/healthz`)).status, 200, 'not bootstrapped yet');
  checker.setCheck(() => true);
  assert.equal((await fetch(`${server.url}/healthz`)).status, 200, 'valid client cert');
  checker.setCheck(() => false);
  const res = await fetch(`${server.url}/healthz`);
  assert.equal(res.status, 500, 'expired client cert');
  assert.match(await res.text(), /\[-\]hub-kube-config failed: the client certificate expires and rebootstrap is required\./);
  checker.setCheck(() => {
    throw new Error('kubeconfig does not contains context: x');
  });
  assert.match(await (await fetch(`${server.url}/healthz`)).text(), /kubeconfig does not contains context: x/);
  const m = await (await fetch(`${server.url}/metrics`)).text();
  assert.match(m, /ocm_agent_hub_kubeconfig_valid 0/);
  assert.equal((await fetch(`${server.url}/nope`)).status, 404);
});

test('should keep metrics per agent instance', () => {
  const a = createAgentMetrics({ defaultMetrics: false });
  const b = createAgentMetrics({ defaultMetrics: false });
  a.restarts.inc();
  assert.notEqual(a.registry, b.registry);
});

test('should serve HTTPS with /healthz open to all and /metrics only for authorised callers', async (t) => {
  const { request } = await import('node:https');
  const checker = createHubKubeconfigHealthChecker();
  const metrics = createAgentMetrics({ defaultMetrics: false });
  const server = await startHealthServer({
    listen: '127.0.0.1:0',
    tls: { minVersion: 'TLSv1.2' },
    checker,
    metrics,
    metricsAuthorizer: {
      check: (authorization) =>
        Promise.resolve(
          authorization === 'Bearer good' ? { code: 200, message: 'ok' } : authorization === 'Bearer other' ? { code: 403, message: 'Forbidden: user "alice" cannot get path "/metrics"' } : { code: 401, message: 'Unauthorized' },
        ),
    },
    log: nullLogger(),
  });
  t.after(() => server.close());
  assert.match(server.url, /^https:/);
  const get = (path: string, token?: string): Promise<{ status: number; body: string }> =>
    new Promise((resolve, reject) => {
      const req = request(`${server.url}${path}`, { ca: server.caPem, agent: false, headers: token ? { authorization: `Bearer ${token}` } : {} }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end();
    });
  for (const p of ['/healthz', '/livez', '/readyz']) assert.equal((await get(p)).status, 200, p);
  assert.equal((await get('/metrics')).status, 401);
  const forbidden = await get('/metrics', 'other');
  assert.equal(forbidden.status, 403);
  assert.match(forbidden.body, /alice/);
  const ok = await get('/metrics', 'good');
  assert.equal(ok.status, 200);
  assert.match(ok.body, /ocm_agent_hub_kubeconfig_valid/);
});
