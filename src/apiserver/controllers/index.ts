// Starts the server's own controllers: bootstrap objects, CRD establisher, namespace controller,
// event expiry, ClusterRole aggregation, garbage collector.

import type { KubeObject } from '../../api/meta.js';
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import type { SchemaOps } from '../registry/custom-resource.js';
import type { RegistryContext } from '../registry/rest-context.js';
import type { ResourceRegistry } from '../registry/resource-registry.js';
import type { Store } from '../storage/types.js';
import { bootstrapObjects } from './bootstrap.js';
import { startClusterRoleAggregation } from './clusterrole-aggregation.js';
import { startCrdEstablisher } from './crd-establisher.js';
import { startEventTtl } from './event-ttl.js';
import { startGarbageCollector } from './garbage-collector.js';
import { startNamespaceController } from './namespace-controller.js';

export interface BuiltinControllersOptions {
  store: Store;
  registry: ResourceRegistry;
  regCtx: RegistryContext;
  log: Logger;
  clock: Clock;
  caPem?: string;
  externalUrl: string;
  bootstrapObjects?: KubeObject[];
  schemaOps?: SchemaOps;
  resyncMs: number;
  /** Events older than this are deleted (default 1 h). */
  eventTtlMs?: number;
  signal: AbortSignal;
}

export function startBuiltinControllers(o: BuiltinControllersOptions): void {
  bootstrapObjects({ registry: o.registry, regCtx: o.regCtx, objects: o.bootstrapObjects ?? [], caPem: o.caPem, externalUrl: o.externalUrl });
  startCrdEstablisher({
    store: o.store, registry: o.registry, regCtx: o.regCtx, schemaOps: o.schemaOps, clock: o.clock, log: o.log,
    retryMs: Math.min(o.resyncMs, 200), signal: o.signal,
  });
  const eventTtlMs = o.eventTtlMs ?? 3_600_000;
  startEventTtl({ store: o.store, ttlMs: eventTtlMs, intervalMs: Math.min(60_000, Math.max(10, eventTtlMs / 10)), clock: o.clock, log: o.log, signal: o.signal });
  startNamespaceController({
    store: o.store, registry: o.registry, regCtx: o.regCtx, caPem: o.caPem, clock: o.clock, log: o.log,
    retryMs: Math.min(o.resyncMs, 200), signal: o.signal,
  });
  startClusterRoleAggregation({
    store: o.store, registry: o.registry, regCtx: o.regCtx, clock: o.clock, log: o.log,
    retryMs: Math.min(o.resyncMs, 1000), signal: o.signal,
  });
  startGarbageCollector({
    store: o.store, registry: o.registry, regCtx: o.regCtx, clock: o.clock, log: o.log,
    retryMs: Math.min(o.resyncMs, 200), signal: o.signal,
  });
}
