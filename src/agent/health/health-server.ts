// Health checker (`hub-kube-config`) and metrics: an HTTPS server on `--listen` (OCM: 0.0.0.0:8443)
// answering `/healthz`, `/livez`, `/readyz` (check: `hub-kube-config`), open to anyone as kubelet
// probes need, and `/metrics` (Prometheus text from a registry owned by this agent instance, never
// prom-client's global one; see ./agent-metrics.ts), for callers the authorizer lets through.
// Until the main phase has started the `hub-kube-config` check passes, so a long bootstrap never
// fails liveness.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AgentMetrics } from './agent-metrics.js';
import type { DeferredAgentMetrics } from './deferred-metrics.js';
import type { Logger } from '../../util/logger.js';
import { errorMessage } from '../../util/errors.js';
import type { DelegatedAuthorizer } from '../../client/delegated-auth.js';
import { startServing, type ServingTls } from '../../util/secure-serving.js';


const HUB_KUBECONFIG_CHECK = 'hub-kube-config';

/** `() => valid`; throws when the kubeconfig is broken. */
type HubKubeconfigCheck = () => boolean;

/** The hub-kube-config health check, switched on once the agent is bootstrapped. */
export interface HubKubeconfigHealthChecker {
  /** Current check (replaced on every in-process restart); undefined = not bootstrapped. */
  setCheck(check: HubKubeconfigCheck | undefined): void;
  /** undefined = healthy, else the failure message. */
  evaluate(): string | undefined;
}

export function createHubKubeconfigHealthChecker(): HubKubeconfigHealthChecker {
  let check: HubKubeconfigCheck | undefined;
  return {
    setCheck(c) {
      check = c;
    },
    evaluate() {
      if (check === undefined) return undefined;
      try {
        return check() ? undefined : 'the client certificate expires and rebootstrap is required.';
      } catch (err) {
        return errorMessage(err);
      }
    },
  };
}

/** What the agent records (served by prom-client, see ./agent-metrics.ts and ./deferred-metrics.ts). */
export interface AgentMetricsSink {
  readonly restarts: { inc(): void };
  readonly phase: { set(labels: { phase: string }, value: number): void };
  readonly csrCreated: { inc(): void };
  readonly hubKubeconfigValid: { set(value: number): void };
}

/**
 * Metrics kept in plain fields, for an agent that serves no /metrics: prom-client (about 12 MiB
 * of heap and code) is then never loaded.
 */
export function createPlainAgentMetrics(): AgentMetricsSink & { values(): Record<string, number> } {
  const v: Record<string, number> = {};
  const add = (k: string, n: number): void => {
    v[k] = (v[k] ?? 0) + n;
  };
  return {
    restarts: { inc: () => add('ocm_agent_restarts_total', 1) },
    phase: { set: (l, n) => void (v[`ocm_agent_phase{phase="${l.phase}"}`] = n) },
    csrCreated: { inc: () => add('ocm_agent_csr_created_total', 1) },
    hubKubeconfigValid: { set: (n) => void (v['ocm_agent_hub_kubeconfig_valid'] = n) },
    values: () => ({ ...v }),
  };
}

export interface HealthServerOptions {
  /** `host:port`, `:port` or `port`. */
  listen: string;
  /** HTTPS settings; omitted = plain HTTP (tests only). */
  tls?: ServingTls;
  checker: HubKubeconfigHealthChecker;
  /** The metrics served, or metrics whose registry is made at the first /metrics request. */
  metrics: AgentMetrics | DeferredAgentMetrics;
  /** Who may read /metrics; omitted = anyone. */
  metricsAuthorizer?: DelegatedAuthorizer;
  log: Logger;
}

export interface HealthServer {
  readonly port: number;
  readonly url: string;
  /** PEM that verifies the serving certificate ('' over plain HTTP). */
  readonly caPem: string;
  close(): Promise<void>;
}

const text = (res: ServerResponse, code: number, body: string): void => {
  res.writeHead(code, { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' }).end(body);
};

function serveHealth(o: HealthServerOptions, res: ServerResponse): void {
  const failure = o.checker.evaluate();
  o.metrics.hubKubeconfigValid.set(failure === undefined ? 1 : 0);
  if (failure === undefined) {
    text(res, 200, 'ok');
    return;
  }
  o.log.info('healthz check failed', { check: HUB_KUBECONFIG_CHECK, reason: failure });
  text(res, 500, `[-]${HUB_KUBECONFIG_CHECK} failed: ${failure}\nhealthz check failed\n`);
}

function serveMetrics(o: HealthServerOptions, res: ServerResponse): void {
  const m = o.metrics;
  ('load' in m ? m.load() : Promise.resolve(m))
    .then(async ({ registry }) => {
      const body = await registry.metrics();
      res.writeHead(200, { 'content-type': registry.contentType }).end(body);
    })
    .catch((err: unknown) => text(res, 500, `${errorMessage(err)}\n`));
}

function handle(o: HealthServerOptions, req: IncomingMessage, res: ServerResponse): void {
  const path = (req.url ?? '/').split('?')[0]!;
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    text(res, 405, 'method not allowed\n');
    return;
  }
  if (path === '/healthz' || path === '/livez' || path === '/readyz' || path === `/healthz/${HUB_KUBECONFIG_CHECK}`) {
    serveHealth(o, res);
    return;
  }
  if (path !== '/metrics') {
    text(res, 404, '404 page not found\n');
    return;
  }
  if (o.metricsAuthorizer === undefined) {
    serveMetrics(o, res);
    return;
  }
  o.metricsAuthorizer.check(req.headers.authorization, path, 'get').then(
    (d) => {
      if (d.code === 200) serveMetrics(o, res);
      else text(res, d.code, `${d.message}\n`);
    },
    (err: unknown) => text(res, 500, `${errorMessage(err)}\n`),
  );
}

export async function startHealthServer(o: HealthServerOptions): Promise<HealthServer> {
  const server = await startServing({
    listen: o.listen,
    ...(o.tls ? { tls: o.tls } : {}),
    componentName: 'registration-agent',
    handler: (req, res) => handle(o, req, res),
    log: o.log,
  });
  o.log.info('health and metrics server listening', { url: server.url, metricsAuth: o.metricsAuthorizer ? 'delegated' : 'none' });
  return server;
}
