import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nullLogger } from '../../util/logger.js';
import { createAgentMetrics } from './agent-metrics.js';
import { createHubKubeconfigHealthChecker, parseListen, startHealthServer } from './health-server.js';

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

test('should parse listen addresses', () => {
  assert.deepEqual(parseListen(':8443'), { host: '0.0.0.0', port: 8443 });
  assert.deepEqual(parseListen('127.0.0.1:0'), { host: '127.0.0.1', port: 0 });
  assert.deepEqual(parseListen('[::1]:9'), { host: '::1', port: 9 });
  assert.throws(() => parseListen('nope'));
});
