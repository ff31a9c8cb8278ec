// The agent's Prometheus metrics (served on `--listen` /metrics by ./health-server.ts), in a registry
// owned by this agent instance, never prom-client's global one. Loaded only when metrics are served.

import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';

export interface AgentMetrics {
  readonly registry: Registry;
  readonly restarts: Counter;
  readonly phase: Gauge<'phase'>;
  readonly csrCreated: Counter;
  readonly hubKubeconfigValid: Gauge;
}

export function createAgentMetrics(opts: { defaultMetrics?: boolean } = {}): AgentMetrics {
  const registry = new Registry();
  // The event-loop-lag histogram samples on a libuv timer at this resolution: prom-client's 10 ms
  // default wakes an idle agent 100 times a second, so sample once a second instead.
  if (opts.defaultMetrics ?? true) collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 1000 });
  return {
    registry,
    restarts: new Counter({ name: 'ocm_agent_restarts_total', help: 'In-process restarts of the registration agent start sequence', registers: [registry] }),
    phase: new Gauge({ name: 'ocm_agent_phase', help: 'Current phase of the registration agent (1 = active)', labelNames: ['phase'], registers: [registry] }),
    csrCreated: new Counter({ name: 'ocm_agent_csr_created_total', help: 'CertificateSigningRequests created on the hub', registers: [registry] }),
    hubKubeconfigValid: new Gauge({ name: 'ocm_agent_hub_kubeconfig_valid', help: 'Whether the hub kubeconfig was valid at the last health check (1/0)', registers: [registry] }),
  };
}
