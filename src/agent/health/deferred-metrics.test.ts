import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nullLogger } from '../../util/logger.js';
import { createAgentMetrics } from './agent-metrics.js';
import { deferAgentMetrics } from './deferred-metrics.js';
import { createHubKubeconfigHealthChecker, startHealthServer } from './health-server.js';

test('deferred metrics make the registry at the first scrape, with the values recorded before it', async (t) => {
  let made = 0;
  const metrics = deferAgentMetrics(() => {
    made++;
    return Promise.resolve(createAgentMetrics({ defaultMetrics: false }));
  });
  metrics.restarts.inc();
  metrics.restarts.inc();
  metrics.csrCreated.inc();
  metrics.phase.set({ phase: 'bootstrap' }, 0);
  metrics.phase.set({ phase: 'main' }, 1);
  const server = await startHealthServer({ listen: '127.0.0.1:0', checker: createHubKubeconfigHealthChecker(), metrics, log: nullLogger() });
  t.after(() => server.close());
  assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
  assert.equal(made, 0, 'nothing loaded before /metrics is read');
  const [first, second] = await Promise.all([fetch(`${server.url}/metrics`), fetch(`${server.url}/metrics`)]);
  assert.equal(first.status, 200);
  assert.match(first.headers.get('content-type') ?? '', /^text\/plain/);
  assert.equal(second.status, 200);
  const m = await first.text();
  assert.match(m, /^ocm_agent_restarts_total 2$/m);
  assert.match(m, /^ocm_agent_csr_created_total 1$/m);
  assert.match(m, /^ocm_agent_phase\{phase="main"\} 1$/m);
  assert.match(m, /^ocm_agent_phase\{phase="bootstrap"\} 0$/m);
  assert.match(m, /^ocm_agent_hub_kubeconfig_valid 1$/m, 'the health check recorded before the scrape');
  metrics.restarts.inc();
  assert.match(await (await fetch(`${server.url}/metrics`)).text(), /^ocm_agent_restarts_total 3$/m, 'later values go straight to the registry');
  assert.equal(made, 1);
});

test('a registry that cannot be made answers 500 and leaves the server running', async (t) => {
  const metrics = deferAgentMetrics(() => Promise.reject(new Error('no prom-client')));
  const server = await startHealthServer({ listen: '127.0.0.1:0', checker: createHubKubeconfigHealthChecker(), metrics, log: nullLogger() });
  t.after(() => server.close());
  const res = await fetch(`${server.url}/metrics`);
  assert.equal(res.status, 500);
  assert.match(await res.text(), /no prom-client/);
  assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
});
