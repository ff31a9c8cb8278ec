// Per-instance Prometheus registry and the /healthz + /metrics listener of the hub manager.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { errorMessage } from '../util/errors.js';

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

/** Parses `host:port`; an empty host (`:8080`) means all interfaces, as in Go. */
function parseListen(listen: string): { host: string; port: number } {
  const i = listen.lastIndexOf(':');
  if (i < 0) throw new Error(`invalid listen address ${JSON.stringify(listen)}: expected HOST:PORT`);
  const host = listen.slice(0, i).replace(/^\[|\]$/g, '') || '0.0.0.0';
  const port = Number(listen.slice(i + 1));
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid listen address ${JSON.stringify(listen)}: bad port`);
  return { host, port };
}

export async function startMetricsServer(opts: { listen: string; registry: Registry; healthy: () => boolean }): Promise<{ url: string; close(): Promise<void> }> {
  const { host, port } = parseListen(opts.listen);
  const server: Server = createServer((req, res) => {
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
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const shownHost = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return {
    url: `http://${shownHost}:${addr.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections?.();
      }),
  };
}
