// Starts the hub registration controllers on shared informers, per feature gate,
// plus /healthz and /metrics on `listen`. Everything is an API client: it works against the embedded
// server or any real kube-apiserver.

import { setMaxListeners } from 'node:events';
import { labels as wellKnownLabels } from '../api/constants.js';
import { createController, createInformerFactory, createKubeClient } from '../client/index.js';
import { resourceTypes } from '../client/resource-types.js';
import type { Controller, KubeClient } from '../client/types.js';
import { waitForCacheSync } from '../client/wait-synced.js';
import { realClock, type Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { setupAddonDiscoveryController } from './addon/discovery-controller.js';
import { setupAddonHealthCheckController } from './addon/healthcheck-controller.js';
import { setupClusterRoleController } from './clusterrole/clusterrole-controller.js';
import type { HubContext, HubInformers, NewController } from './common/context.js';
import { countingClient } from './common/counting-client.js';
import { setupCsrApprovingController } from './csr/csr-approving-controller.js';
import { setupGcController } from './gc/gc-controller.js';
import { setupTaintController } from './taint/taint-controller.js';
import { setupClockSyncController } from './lease/clock-sync-controller.js';
import { setupLeaseController } from './lease/lease-controller.js';
import { setupManagedClusterController } from './managedcluster/managedcluster-controller.js';
import { setupBuiltinClusterSetController } from './managedclusterset/builtin-clusterset-controller.js';
import { setupManagedClusterSetController } from './managedclusterset/managedclusterset-controller.js';
import { setupClusterSetBindingController } from './managedclustersetbinding/binding-controller.js';
import { setupManagedNamespaceController } from './managednamespace/managednamespace-controller.js';
import { createHubMetrics, startMetricsServer, type HubMetrics } from './metrics-server.js';
import { resolveHubOptions, type HubOptions, type HubOptionsInput } from './options.js';

/**
 * Core kinds are seen only with the cluster-name label and without the addon-name label, as OCM's hub
 * informers: other objects (addon CSRs, unrelated RBAC) never reach the controllers.
 */
const HUB_KUBE_LABEL_SELECTOR = `${wellKnownLabels.clusterName},!${wellKnownLabels.addonName}`;

const DEFAULT_CACHE_SYNC_TIMEOUT_MS = 10 * 60 * 1000;

export interface StartHubManagerOptions {
  kubeconfigPath?: string;
  client?: KubeClient;
  /** Raw inputs (validated here) or already-resolved options. */
  options?: HubOptionsInput | Readonly<HubOptions>;
  log: Logger;
  clock?: Clock;
  signal: AbortSignal;
  /** HOST:PORT for /healthz and /metrics; omitted → no listener. */
  listen?: string;
  /** Informer cache sync deadline on `clock` (default 10 min, as OCM's). */
  cacheSyncTimeoutMs?: number;
}

export interface HubManager {
  readonly controllers: readonly string[];
  readonly metrics: HubMetrics;
  /** http://host:port of the health/metrics listener, when started. */
  readonly metricsUrl: string | undefined;
  /** Resolves when every controller has stopped (after the signal aborts). */
  readonly done: Promise<void>;
  /** API requests made so far, by `verb resource`. */
  requestCounts(): ReadonlyMap<string, number>;
}

function isResolved(o: HubOptionsInput | Readonly<HubOptions> | undefined): o is Readonly<HubOptions> {
  return o !== undefined && 'gcResources' in o && 'timings' in o && typeof (o as HubOptions).timings === 'object' && Array.isArray((o as HubOptions).gcResources);
}

export async function startHubManager(opts: StartHubManagerOptions): Promise<HubManager> {
  const clock = opts.clock ?? realClock;
  const log = opts.log.child({ component: 'hub' });
  let options: Readonly<HubOptions>;
  if (isResolved(opts.options)) options = opts.options;
  else {
    const r = resolveHubOptions(opts.options ?? {});
    for (const w of r.warnings) log.error(w);
    options = r.options;
  }
  const baseClient = opts.client ?? (opts.kubeconfigPath ? createKubeClient({ kubeconfigPath: opts.kubeconfigPath }, { log }) : undefined);
  if (!baseClient) throw new Error('startHubManager: kubeconfigPath or client is required');
  const metrics = createHubMetrics();
  const counts = new Map<string, number>();
  const client = countingClient(baseClient, (verb, resource) => {
    const k = `${verb} ${resource}`;
    counts.set(k, (counts.get(k) ?? 0) + 1);
    metrics.apiRequests.inc({ verb, resource });
  });

  const factory = createInformerFactory(client, { log: log.child({ component: 'informer' }), clock, resyncMs: options.timings.resyncMs });
  const filtered = { labelSelector: HUB_KUBE_LABEL_SELECTOR };
  const informers: HubInformers = {
    clusters: factory.informerFor(resourceTypes.managedClusters),
    clusterSets: factory.informerFor(resourceTypes.managedClusterSets),
    clusterSetBindings: factory.informerFor(resourceTypes.managedClusterSetBindings),
    addons: factory.informerFor(resourceTypes.managedClusterAddOns),
    leases: factory.informerFor(resourceTypes.leases, filtered),
    csrs: factory.informerFor(resourceTypes.certificateSigningRequests, filtered),
    clusterRoles: factory.informerFor(resourceTypes.clusterRoles, filtered),
    clusterRoleBindings: factory.informerFor(resourceTypes.clusterRoleBindings, filtered),
    roleBindings: factory.informerFor(resourceTypes.roleBindings, filtered),
    namespaces: factory.informerFor(resourceTypes.namespaces, filtered),
  };

  const newController: NewController = (c) => {
    const name = c.name;
    const timer = metrics.reconcileSeconds.labels({ controller: name });
    return createController({
      ...c,
      log: c.log ?? log,
      clock,
      reconcile: async (key, signal) => {
        const end = timer.startTimer();
        try {
          const r = await c.reconcile(key, signal);
          metrics.reconciles.inc({ controller: name, result: r && r.requeueAfterMs ? 'requeue' : 'success' });
          return r;
        } catch (err) {
          metrics.reconciles.inc({ controller: name, result: 'error' });
          throw err;
        } finally {
          end();
        }
      },
    });
  };
  const ctx: HubContext = { client, informers, options, clock, log, newController };
  const gates = options.featureGates;

  const controllers: Controller[] = [
    setupManagedClusterController(ctx),
    setupTaintController(ctx),
    setupCsrApprovingController(ctx),
  ];
  const lease = setupLeaseController(ctx);
  controllers.push(
    lease,
    setupClockSyncController(ctx),
    setupManagedClusterSetController(ctx),
    setupManagedNamespaceController(ctx),
    setupClusterSetBindingController(ctx),
    setupClusterRoleController(ctx),
    setupAddonHealthCheckController(ctx),
    setupAddonDiscoveryController(ctx),
  );
  if (gates['DefaultClusterSet']) controllers.push(setupBuiltinClusterSetController(ctx, 'default'), setupBuiltinClusterSetController(ctx, 'global'));
  if (gates['ResourceCleanup']) controllers.push(setupGcController(ctx));

  // One internal signal for every controller and informer (they each listen for abort).
  const internal = new AbortController();
  setMaxListeners(1000, internal.signal);
  if (opts.signal.aborted) internal.abort(opts.signal.reason);
  else opts.signal.addEventListener('abort', () => internal.abort(opts.signal.reason), { once: true });
  const runSignal = internal.signal;
  factory.start(runSignal);
  const synced = await waitForCacheSync([factory], { signal: runSignal, clock, timeoutMs: opts.cacheSyncTimeoutMs ?? DEFAULT_CACHE_SYNC_TIMEOUT_MS, what: 'hub informer' });
  if (!synced) throw new Error('hub manager stopped before its informer caches synced', { cause: runSignal.reason });
  const syncedAll = (): boolean => Object.values(informers).every((i: { hasSynced(): boolean }) => i.hasSynced());

  let metricsServer: { url: string; close(): Promise<void> } | undefined;
  if (opts.listen !== undefined) metricsServer = await startMetricsServer({ listen: opts.listen, registry: metrics.registry, healthy: syncedAll });

  const done = Promise.all(controllers.map((c) => c.run(runSignal))).then(async () => {
    lease.stopTimers();
    await metricsServer?.close();
    if (!opts.client) baseClient.close();
  });
  log.info('hub controllers started', { controllers: controllers.map((c) => c.name), ...(metricsServer ? { metrics: metricsServer.url } : {}) });
  return {
    controllers: controllers.map((c) => c.name),
    metrics,
    metricsUrl: metricsServer?.url,
    done,
    requestCounts: () => counts,
  };
}
