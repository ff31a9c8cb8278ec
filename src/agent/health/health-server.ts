// Health checker (`hub-kube-config`) and metrics: an HTTP server on `--listen` answering
// `/healthz` (checks: `hub-kube-config`) and `/metrics` (Prometheus text from a registry owned by
// this agent instance, never prom-client's global one; see ./agent-metrics.ts). Until the main phase has started the
// `hub-kube-config` check passes, so a long bootstrap never fails liveness.
//
// Difference from OCM: plain HTTP (OCM serves HTTPS with a self-signed certificate on 8443).

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AgentMetrics } from './agent-metrics.js';
import type { Logger } from '../../util/logger.js';
import { errorMessage } from '../../util/errors.js';


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

/** What the agent records; `registry` is there when the metrics are served (see ./agent-metrics.ts). */
export interface AgentMetricsSink {
  readonly registry?: AgentMetrics['registry'];
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
  checker: HubKubeconfigHealthChecker;
  metrics: AgentMetrics;
  log: Logger;
}

export interface HealthServer {
  readonly port: number;
  readonly url: string;
  close(): Promise<void>;
}

export function parseListen(listen: string): { host: string; port: number } {
  const m = /^(?:(.*):)?(\d+)$/.exec(listen.trim());
  if (!m) throw new Error(`invalid --listen address ${JSON.stringify(listen)}`);
  let host = m[1] ?? '';
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  return { host: host === '' ? '0.0.0.0' : host, port: Number(m[2]) };
}

export async function startHealthServer(o: HealthServerOptions): Promise<HealthServer> {
  const { host, port } = parseListen(o.listen);
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { 'content-type': 'text/plain' }).end('method not allowed\n');
      return;
    }
    if (path === '/healthz' || path === '/livez' || path === '/readyz' || path === `/healthz/${HUB_KUBECONFIG_CHECK}`) {
      const failure = o.checker.evaluate();
      o.metrics.hubKubeconfigValid.set(failure === undefined ? 1 : 0);
      if (failure === undefined) {
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('ok');
      } else {
        o.log.info('healthz check failed', { check: HUB_KUBECONFIG_CHECK, reason: failure });
        res
          .writeHead(500, { 'content-type': 'text/plain; charset=utf-8' })
          .end(`[-]${HUB_KUBECONFIG_CHECK} failed: ${failure}\nhealthz check failed\n`);
      }
      return;
    }
    if (path === '/metrics') {
      o.metrics.registry.metrics().then(
        (text) => res.writeHead(200, { 'content-type': o.metrics.registry.contentType }).end(text),
        (err: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`${errorMessage(err)}\n`),
      );
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('404 page not found\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const addr = server.address() as AddressInfo;
  const urlHost = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  o.log.info('health and metrics server listening', { address: `${urlHost}:${addr.port}` });
  return {
    port: addr.port,
    url: `http://${urlHost}:${addr.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
