// The agent's metrics before anyone reads them: prom-client (several MiB once loaded, and a timer of
// its event-loop-lag histogram) is loaded at the first /metrics request, not at start. Until then
// the values are kept in plain fields; loading replays them, so the first scrape reads the same
// values it would have read had prom-client been there from the start.

import type { AgentMetrics } from './agent-metrics.js';
import type { AgentMetricsSink } from './health-server.js';

export interface DeferredAgentMetrics extends AgentMetricsSink {
  /** The prom-client metrics, made (once) at the first call. */
  load(): Promise<AgentMetrics>;
}

export function deferAgentMetrics(create: () => Promise<AgentMetrics>): DeferredAgentMetrics {
  let restarts = 0;
  let csrCreated = 0;
  const phases = new Map<string, number>();
  let hubKubeconfigValid: number | undefined;
  let loaded: AgentMetrics | undefined;
  let loading: Promise<AgentMetrics> | undefined;
  return {
    restarts: { inc: () => (loaded ? loaded.restarts.inc() : void restarts++) },
    phase: { set: (l, v) => (loaded ? loaded.phase.set(l, v) : void phases.set(l.phase, v)) },
    csrCreated: { inc: () => (loaded ? loaded.csrCreated.inc() : void csrCreated++) },
    hubKubeconfigValid: { set: (v) => (loaded ? loaded.hubKubeconfigValid.set(v) : void (hubKubeconfigValid = v)) },
    load() {
      loading ??= create().then((m) => {
        if (restarts > 0) m.restarts.inc(restarts);
        if (csrCreated > 0) m.csrCreated.inc(csrCreated);
        for (const [phase, v] of phases) m.phase.set({ phase }, v);
        if (hubKubeconfigValid !== undefined) m.hubKubeconfigValid.set(hubKubeconfigValid);
        loaded = m;
        return m;
      });
      return loading;
    },
  };
}
