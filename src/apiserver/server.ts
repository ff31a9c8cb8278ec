// The HTTPS server: TLS with optional client certificates, HTTP/2 or HTTP/1.1 as the client's TLS
// ALPN chooses (HTTP/2 first, as kube-apiserver), the request pipeline, built-in controllers,
// graceful close that ends watches.

import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createSecureServer, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';
import type { AddressInfo } from 'node:net';
import type { KubeObject } from '../api/meta.js';
import { realClock, type Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { startBuiltinControllers } from './controllers/index.js';
import { VERSION_INFO } from './discovery/discovery.js';
import { handleRequest } from './http/handler.js';
import type { HealthCheck } from './http/health.js';
import { MAX_BODY_BYTES } from './http/body.js';
import { createEncodeCache } from './http/output.js';
import { guardConnections } from './http/connection-guard.js';
import { trackHttp2Sessions } from './http/http2-sessions.js';
import { resolveConnectionLimits, type ConnectionLimits } from './http/connection-limits.js';
import type { ServerContext, ServerTimings } from './http/server-context.js';
import { OpenApiService } from './openapi/openapi-service.js';
import type { AdmissionPlugin, Authenticator, Authorizer, BuiltinController } from './pipeline.js';
import { builtinResources, type BuiltinStrategyOverrides } from './registry/builtin-resources.js';
import { crdResource } from './registry/crd-resource.js';
import type { SchemaOps } from './registry/custom-resource.js';
import { ResourceRegistry } from './registry/resource-registry.js';
import type { SubresourceDef, VirtualResource } from './registry/types.js';
import type { Store } from './storage/types.js';
import { createInflightLimiter, DEFAULT_INFLIGHT_LIMITS, type InflightLimits } from './http/inflight-limit.js';

export interface ApiServerOptions {
  store: Store;
  tls: { key: string; cert: string; clientCa: string };
  host: string;
  /** 0 = a free port. */
  port: number;
  log: Logger;
  authenticator: Authenticator;
  authorizer: Authorizer;
  admission?: AdmissionPlugin[];
  /** Extra in-process controllers (CSR signer, ...), started after the built-in ones. */
  controllers?: BuiltinController[];
  /** Extra rules per built-in resource, keyed `<group>/<resource>` (CSR: `certificates.k8s.io/certificatesigningrequests`). */
  strategies?: BuiltinStrategyOverrides;
  /** Extra subresources of built-ins keyed `<group>/<resource>` (serviceaccounts/token). */
  subresources?: Record<string, SubresourceDef[]>;
  /** Serve CertificateSigningRequests as certificates.k8s.io/v1beta1 instead of v1. */
  csrVersion?: 'v1' | 'v1beta1';
  /** Create-only resources (SubjectAccessReview, ...). */
  virtualResources?: VirtualResource[];
  /** CA bundle published as `kube-root-ca.crt` and in `kube-public/cluster-info`. */
  caPem?: string;
  /** External URL for cluster-info (defaults to the listening URL). */
  externalUrl?: string;
  clock?: Clock;
  random?: () => number;
  timings?: Partial<ServerTimings>;
  /** Objects created at first start when missing (bootstrap RBAC policy). */
  bootstrapObjects?: KubeObject[];
  /** Structural-schema operations for custom resources (validation, defaulting, pruning). */
  schemaOps?: SchemaOps;
  /** Events older than this are deleted (default 1 h). */
  eventTtlMs?: number;
  /** Namespace deletion controller resync interval. */
  controllerResyncMs?: number;
  maxWatchBufferBytes?: number;
  /**
   * Connection caps and transport timeouts. Defaults: a global cap below the process's
   * file-descriptor limit, 10 s TLS handshake, 32 s to send request headers.
   */
  connectionLimits?: Partial<ConnectionLimits>;
  /**
   * Largest list response, in stored bytes (default 256 MiB): a list without `limit` above it is
   * refused with 413 asking the client to paginate; a page is cut short at it (with `continue`).
   */
  maxListBytes?: number;
  /** kube-apiserver's --max-requests-inflight and --max-mutating-requests-inflight (default 400 and 200; 0 = no limit). */
  inflightLimits?: Partial<InflightLimits>;
}

export interface RunningApiServer {
  url: string;
  port: number;
  registry: ResourceRegistry;
  close(): Promise<void>;
}

const DEFAULT_MAX_LIST_BYTES = 256 * 1024 * 1024;
/** How long close() lets requests in flight finish before it closes their connections. */
const CLOSE_GRACE_MS = 2000;

/** node:http's server settings, which node:http2's server applies to its HTTP/1.1 connections. */
interface Http1ServerSettings {
  headersTimeout: number;
  connectionsCheckingInterval: number;
  keepAliveTimeout: number;
  maxHeaderSize: number;
  requestTimeout: number;
  requireHostHeader: boolean;
}
const DEFAULT_TIMINGS: ServerTimings = { minRequestTimeoutMs: 1800_000, bookmarkIntervalMs: 60_000, futureWaitMs: 3000 };

export async function startApiServer(opts: ApiServerOptions): Promise<RunningApiServer> {
  const clock = opts.clock ?? realClock;
  const random = opts.random ?? Math.random;
  const log = opts.log.child({ component: 'apiserver' });
  const limits = resolveConnectionLimits(opts.connectionLimits);
  const registry = new ResourceRegistry(
    [...builtinResources(opts.strategies ?? {}, opts.subresources ?? {}, opts.csrVersion ? { csrVersion: opts.csrVersion } : {}), crdResource()],
    opts.virtualResources ?? [],
  );
  let ready = false;
  let closing = false;
  let port = opts.port;
  const health: Record<string, HealthCheck[]> = {};
  const ping: HealthCheck = { name: 'ping', check: () => undefined };
  const storage: HealthCheck = {
    name: 'storage',
    check: () => {
      try {
        opts.store.currentRevision();
        return undefined;
      } catch (err) {
        return err instanceof Error ? err.message : 'storage unavailable';
      }
    },
  };
  const readiness: HealthCheck = { name: 'bootstrap', check: () => (ready && !closing ? undefined : 'not ready') };
  health.healthz = [ping, storage];
  health.livez = [ping, storage];
  health.readyz = [ping, storage, readiness];
  const ctx: ServerContext = {
    store: opts.store,
    registry,
    regCtx: {
      store: opts.store,
      now: () => clock.now(),
      random,
      uuid: () => randomUUID(),
      admission: opts.admission ?? [],
      admissionContext: { store: opts.store, authorizer: opts.authorizer, log },
    },
    log,
    authenticator: opts.authenticator,
    authorizer: opts.authorizer,
    timings: { ...DEFAULT_TIMINGS, ...opts.timings },
    health,
    watches: new Set(),
    encodeCache: createEncodeCache(),
    openapi: new OpenApiService(registry, { title: 'Kubernetes', version: VERSION_INFO.gitVersion }),
    serverAddress: () => `${opts.host.includes(':') ? `[${opts.host}]` : opts.host}:${port}`,
    random,
    sleep: (ms) => clock.sleep(ms),
    maxBodyBytes: MAX_BODY_BYTES,
    maxWatchBufferBytes: opts.maxWatchBufferBytes ?? 16 * 1024 * 1024,
    maxListBytes: opts.maxListBytes ?? DEFAULT_MAX_LIST_BYTES,
    inflight: createInflightLimiter({ ...DEFAULT_INFLIGHT_LIMITS, ...opts.inflightLimits }),
  };
  const server = createSecureServer({
    allowHTTP1: true,
    key: opts.tls.key,
    cert: opts.tls.cert,
    ca: opts.tls.clientCa,
    requestCert: true,
    rejectUnauthorized: false,
    handshakeTimeout: limits.handshakeTimeoutMs,
    // As node:https sets by default (node:http2 does not): a watch event or a response goes out at
    // once instead of waiting behind Nagle's algorithm for the previous segment's ACK.
    noDelay: true,
    settings: { maxConcurrentStreams: limits.maxStreamsPerConnection, maxHeaderListSize: limits.maxHeaderBytes },
  });
  // The HTTP/1.1 side reads its settings from the server object; set before listen(), which
  // starts the clock of headersTimeout.
  const http1: Http1ServerSettings = {
    // Also closes a connection that sends no request at all, as Go's ReadHeaderTimeout does;
    // idle keep-alive connections are governed by keepAliveTimeout alone.
    headersTimeout: limits.headersTimeoutMs,
    connectionsCheckingInterval: Math.min(5000, Math.max(10, Math.floor(limits.headersTimeoutMs / 4))),
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    maxHeaderSize: limits.maxHeaderBytes,
    // Watches stay open for as long as they last.
    requestTimeout: 0,
    // node:https's default: an HTTP/1.1 request without Host is a 400.
    requireHostHeader: true,
  };
  Object.assign(server, http1);
  // Both protocols reach the handlers, which use the members node:http's objects share with the
  // HTTP/2 compatibility ones (./http/http-version.ts answers for the rest).
  server.on('request', (req: IncomingMessage | Http2ServerRequest, res: ServerResponse | Http2ServerResponse) => {
    void handleRequest(ctx, req as IncomingMessage, res as ServerResponse);
  });
  const connections = guardConnections(server, { limits, log });
  const sessions = trackHttp2Sessions(server, { firstStreamMs: limits.headersTimeoutMs, idleMs: limits.keepAliveTimeoutMs }, log);
  server.on('tlsClientError', (err) => log.debug('tls handshake failed', { err }));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;
  const hostForUrl = opts.host.includes(':') ? `[${opts.host}]` : opts.host === '0.0.0.0' ? '127.0.0.1' : opts.host;
  const url = `https://${hostForUrl}:${port}`;
  const controllersAbort = new AbortController();
  startBuiltinControllers({
    store: opts.store, registry, regCtx: ctx.regCtx, log, clock,
    caPem: opts.caPem, externalUrl: opts.externalUrl ?? url,
    resyncMs: opts.controllerResyncMs ?? 5000,
    ...(opts.eventTtlMs !== undefined ? { eventTtlMs: opts.eventTtlMs } : {}),
    ...(opts.bootstrapObjects ? { bootstrapObjects: opts.bootstrapObjects } : {}),
    ...(opts.schemaOps ? { schemaOps: opts.schemaOps } : {}),
    signal: controllersAbort.signal,
  });
  for (const c of opts.controllers ?? []) {
    log.debug('starting controller', { controller: c.name });
    c.start(controllersAbort.signal);
  }
  ready = true;
  log.info('apiserver serving', { url });
  let closed: Promise<void> | undefined;
  return {
    url,
    port,
    registry,
    close(): Promise<void> {
      closed ??= (async () => {
        closing = true;
        controllersAbort.abort(new Error('server closing'));
        for (const w of [...ctx.watches]) w.close();
        await new Promise<void>((resolve) => {
          // Idle HTTP/1.1 connections close at once, HTTP/2 ones get GOAWAY; what still runs after
          // the grace period is cut.
          server.close(() => resolve());
          sessions.closeAll();
          const t = setTimeout(() => connections.destroyAll(), CLOSE_GRACE_MS);
          t.unref();
        });
      })();
      return closed;
    },
  };
}
