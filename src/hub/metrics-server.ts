// Per-instance Prometheus registry and the /healthz + /metrics listener of the hub manager.

import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { errorMessage } from '../util/errors.js';
import { startServing, type RunningServer, type ServingOptions } from '../util/secure-serving.js';

export interface HubMetrics {
  registry: Registry;
  reconciles: Counter<'controller' | 'result'>;
  reconcileSeconds: Histogram<'controller'>;
  apiRequests: Counter<'verb' | 'resource'>;
}

export function createHubMetrics(opts: { defaultMetrics?: boolean } = {}): HubMetrics {
  const registry = new Registry();
  if (opts.defaultMetrics) collectDefaultMetrics({ register: registry });
  return {
    registry,
    reconciles: new Counter({ name: 'ocm_hub_reconcile_total', help: 'Reconciles by controller and result', labelNames: ['controller', 'result'], registers: [registry] }),
    reconcileSeconds: new Histogram({
      name: 'ocm_hub_reconcile_duration_seconds',
      help: 'Reconcile duration by controller',
      labelNames: ['controller'],
      buckets: [0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
      registers: [registry],
    }),
    apiRequests: new Counter({ name: 'ocm_hub_api_requests_total', help: 'API requests made by the hub controllers', labelNames: ['verb', 'resource'], registers: [registry] }),
  };
}

export interface MetricsServerOptions {
  listen: string;
  registry: Registry;
  healthy: () => boolean;
  /** Serve HTTPS with this certificate and TLS settings; omitted → plain HTTP. */
  tls?: ServingOptions['tls'];
}

/** `/healthz`, `/livez`, `/readyz` (200 once the informers synced, else 503) and Prometheus `/metrics`. */
export async function startMetricsServer(opts: MetricsServerOptions): Promise<RunningServer> {
  return startServing({
    listen: opts.listen,
    ...(opts.tls ? { tls: opts.tls } : {}),
    handler: (req, res) => {
      const path = (req.url ?? '/').split('?')[0];
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405).end();
        return;
      }
      if (path === '/healthz' || path === '/livez' || path === '/readyz') {
        const ok = opts.healthy();
        res.writeHead(ok ? 200 : 503, { 'content-type': 'text/plain; charset=utf-8' }).end(ok ? 'ok' : 'informers not synced');
        return;
      }
      if (path === '/metrics') {
        opts.registry.metrics().then(
          (text) => res.writeHead(200, { 'content-type': opts.registry.contentType }).end(text),
          (err: unknown) => res.writeHead(500).end(errorMessage(err)),
        );
        return;
      }
      res.writeHead(404).end('not found');
    },
  });
}
