// Per-server state the HTTP handlers share (no module-level state: one of these per server).

import type { Logger } from '../../util/logger.js';
import type { OpenApiService } from '../openapi/openapi-service.js';
import type { Authenticator, Authorizer } from '../pipeline.js';
import type { RegistryContext } from '../registry/rest-context.js';
import type { ResourceRegistry } from '../registry/resource-registry.js';
import type { Store } from '../storage/types.js';
import type { HealthCheck } from './health.js';
import type { InflightLimiter } from './inflight-limit.js';
import type { EncodeCache } from './output.js';
import type { ActiveWatch } from './watch.js';

export interface ServerTimings {
  /** Watches without timeoutSeconds end after a random time in [min, 2×min). */
  minRequestTimeoutMs: number;
  bookmarkIntervalMs: number;
  /** How long a read/watch at a future resourceVersion waits before 504. */
  futureWaitMs: number;
}

export interface ServerContext {
  store: Store;
  registry: ResourceRegistry;
  regCtx: RegistryContext;
  log: Logger;
  authenticator: Authenticator;
  authorizer: Authorizer;
  timings: ServerTimings;
  health: Record<string, HealthCheck[]>;
  watches: Set<ActiveWatch>;
  encodeCache: EncodeCache;
  /** The OpenAPI documents, rebuilt lazily after the registry changes. */
  openapi: OpenApiService;
  /** host:port clients use (for /api serverAddressByClientCIDRs). */
  serverAddress(): string;
  random(): number;
  sleep(ms: number): Promise<void>;
  /** Largest accepted body. */
  maxBodyBytes: number;
  /** Bytes buffered per watch before it is dropped as slow. */
  maxWatchBufferBytes: number;
  /** Largest list response (stored bytes): an unpaged list above it gets 413, a page is cut at it. */
  maxListBytes: number;
  /** Requests served at once (kube-apiserver's max-in-flight limits). */
  inflight: InflightLimiter;
}
