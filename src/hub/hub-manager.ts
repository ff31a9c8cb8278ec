// Starts the hub registration controllers on shared informers, per feature gate,
// plus /healthz and /metrics on `listen`. Everything is an API client: it works against the embedded
// server or any real kube-apiserver.

import { setMaxListeners } from 'node:events';
import { readFileSync } from 'node:fs';
import { labels as wellKnownLabels } from '../api/constants.js';
import { createController, createInformerFactory, createKubeClient } from '../client/index.js';
import { resourceTypes } from '../client/resource-types.js';
import type { Controller, KubeClient } from '../client/types.js';
import { waitForCacheSync } from '../client/wait-synced.js';
import { runWithLeaderElection } from '../client/leader-election.js';
import type { ClusterProfile } from '../api/cluster-profile.js';
import { realClock, type Clock } from '../util/clock.js';
import { errorMessage } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import type { ServingOptions } from '../util/secure-serving.js';
import { setupClusterProfileLifecycleController } from './clusterprofile/lifecycle-controller.js';
import { setupClusterProfileStatusController } from './clusterprofile/status-controller.js';
import { throttledClient } from './common/throttled-client.js';
import { createClusterRbacSignal } from './common/rbac-signal.js';
import { CSR_DRIVER, GRPC_DRIVER } from './registration-drivers.js';
import { hubIdentity, setupGrpcCsrApprovingController, setupGrpcCsrSignController } from './grpc/grpc-csr-controllers.js';
import type { GrpcHubServer } from './grpc/grpc-server.js';
import type { GrpcDriverSettings } from './grpc/grpc-settings.js';
import { hubCsrResource } from './csr/csr-api.js';
import type { HubLeaderElection } from './hub-lock.js';
import { setupAddonDiscoveryController } from './addon/discovery-controller.js';
import { setupAddonHealthCheckController } from './addon/healthcheck-controller.js';
import { setupClusterRoleController } from './clusterrole/clusterrole-controller.js';
import type { HubContext, HubInformers, NewController } from './common/context.js';
import { countingClient } from './common/counting-client.js';
import { setupCsrApprovingController } from './csr/csr-approving-controller.js';
import { setupGcController } from './gc/gc-controller.js';
import { loadAgentTemplate } from './importer/agent-manifests.js';
import { setupClusterImporter } from './importer/importer-controller.js';
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
  /** Serve /healthz and /metrics over HTTPS with this certificate; omitted → plain HTTP. */
  tls?: ServingOptions['tls'];
  /** Informer cache sync deadline on `clock` (default 10 min, as OCM's). */
  cacheSyncTimeoutMs?: number;
  /** `--kube-api-qps` / `--kube-api-burst`: a token bucket in front of every API request; omitted → none. */
  throttle?: { qps: number; burst: number };
  /** Run the controllers only while holding this Lease; omitted → run at once (a single replica). */
  leaderElection?: HubLeaderElection;
}


export interface HubManager {
  /** The controllers running now: none on a replica that is not the leader. */
  readonly controllers: readonly string[];
  readonly metrics: HubMetrics;
  /** scheme://host:port of the health/metrics listener, when started. */
  readonly metricsUrl: string | undefined;
  /** The port of the gRPC CloudEvents server (gRPC driver enabled). */
  readonly grpcPort: number | undefined;
  /** Whether this replica runs the controllers (always true without leader election). */
  isLeader(): boolean;
  /**
   * Resolves when every controller has stopped: after the signal aborts, or after leadership was
   * lost (then `lostLeadership()` is true and the process should exit, as OCM's does).
   */
  readonly done: Promise<void>;
  lostLeadership(): boolean;
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
  const limited = opts.throttle ? throttledClient(baseClient, { ...opts.throttle, clock }) : baseClient;
  const client = countingClient(limited, (verb, resource) => {
    const k = `${verb} ${resource}`;
    counts.set(k, (counts.get(k) ?? 0) + 1);
    metrics.apiRequests.inc({ verb, resource });
  });

  // One internal signal for every controller and informer (they each listen for abort).
  const internal = new AbortController();
  setMaxListeners(1000, internal.signal);
  if (opts.signal.aborted) internal.abort(opts.signal.reason);
  else opts.signal.addEventListener('abort', () => internal.abort(opts.signal.reason), { once: true });

  let running: RunningControllers | undefined;
  let leader = opts.leaderElection === undefined;
  let lost = false;
  // A replica waiting for the lease is alive and well: only the leader's caches decide health.
  const healthy = (): boolean => (running ? running.synced() : !leader);
  let metricsServer: { url: string; close(): Promise<void> } | undefined;
  const startServing = async (): Promise<void> => {
    if (opts.listen !== undefined) metricsServer = await startMetricsServer({ listen: opts.listen, registry: metrics.registry, healthy, ...(opts.tls ? { tls: opts.tls } : {}) });
  };
  let grpcServer: GrpcHubServer | undefined;
  const finish = async (): Promise<void> => {
    await grpcServer?.close();
    await metricsServer?.close();
    if (!opts.client) baseClient.close();
  };
  const deps: ControllerDeps = { client, options, clock, log, metrics, cacheSyncTimeoutMs: opts.cacheSyncTimeoutMs ?? DEFAULT_CACHE_SYNC_TIMEOUT_MS };
  if (options.grpc && options.registrationDrivers.includes(GRPC_DRIVER)) {
    // Every replica serves gRPC, as OCM's separate gRPC server does; only the leader runs the CSR controllers.
    try {
      const { startGrpcHubServer } = await import('./grpc/grpc-server.js');
      grpcServer = await startGrpcHubServer({
        client,
        csrResource: await hubCsrResource(client, options.featureGates['V1beta1CSRAPICompatibility'] === true, internal.signal),
        settings: options.grpc.server,
        ca: readGrpcCa(options.grpc),
        tls: { minVersion: opts.tls?.minVersion ?? 'TLSv1.2', ...(opts.tls?.ciphers ? { ciphers: opts.tls.ciphers } : {}) },
        log,
        clock,
        signal: internal.signal,
      });
    } catch (err) {
      internal.abort(err);
      await finish();
      throw err;
    }
  }

  let done: Promise<void>;
  if (opts.leaderElection === undefined) {
    try {
      running = await runControllers(deps, internal.signal);
    } catch (err) {
      await finish();
      throw err;
    }
    await startServing();
    done = running.done.finally(finish);
    log.info('hub controllers started', { controllers: running.names, ...(metricsServer ? { metrics: metricsServer.url } : {}) });
  } else {
    const le = opts.leaderElection;
    await startServing();
    log.info('hub waiting for leadership', { lease: `${le.namespace}/${le.name}`, identity: le.identity, ...(metricsServer ? { metrics: metricsServer.url } : {}) });
    done = runWithLeaderElection({
      ...le,
      client,
      log,
      clock,
      signal: internal.signal,
      onStartedLeading: async (leading) => {
        leader = true;
        try {
          running = await runControllers(deps, leading);
          log.info('hub controllers started', { controllers: running.names });
          await running.done;
        } catch (err) {
          if (!leading.aborted) log.error('hub controllers failed', { err: errorMessage(err) });
        } finally {
          running = undefined;
        }
      },
      onStoppedLeading: () => {
        leader = false;
      },
    }).then(
      async (outcome) => {
        lost = outcome === 'lost';
        if (lost) log.error('leader election lost');
        await finish();
      },
      async (err: unknown) => {
        await finish();
        throw err;
      },
    );
  }
  return {
    get controllers() {
      return running?.names ?? [];
    },
    metrics,
    metricsUrl: metricsServer?.url,
    grpcPort: grpcServer?.port,
    isLeader: () => leader,
    done,
    lostLeadership: () => lost,
    requestCounts: () => counts,
  };
}

/** The gRPC CA from its files, read at start as OCM's hub does (a missing file stops the hub). */
function readGrpcCa(g: Readonly<GrpcDriverSettings>): { certPem: string; keyPem: string } {
  return { certPem: readFileSync(g.caFile, 'utf8'), keyPem: readFileSync(g.keyFile, 'utf8') };
}

interface ControllerDeps {
  client: KubeClient;
  options: Readonly<HubOptions>;
  clock: Clock;
  log: Logger;
  metrics: HubMetrics;
  cacheSyncTimeoutMs: number;
}

interface RunningControllers {
  names: readonly string[];
  synced(): boolean;
  /** Resolves when every controller has stopped. */
  done: Promise<void>;
}

/** Starts the informers and, once their caches synced, every controller the gates enable; they stop with `signal`. */
async function runControllers(deps: ControllerDeps, signal: AbortSignal): Promise<RunningControllers> {
  const { client, options, clock, log, metrics } = deps;
  // The leadership signal, like the internal one: every informer and controller listens for its abort.
  setMaxListeners(1000, signal);
  const csrResource = await hubCsrResource(client, options.featureGates['V1beta1CSRAPICompatibility'] === true, signal);
  // No hub controller reads managedFields; at 1,000 clusters they were ~10 MiB of the informers' heap.
  const factory = createInformerFactory(client, { log: log.child({ component: 'informer' }), clock, resyncMs: options.timings.resyncMs, dropManagedFields: true });
  const filtered = { labelSelector: HUB_KUBE_LABEL_SELECTOR };
  const informers: HubInformers = {
    clusters: factory.informerFor(resourceTypes.managedClusters),
    clusterSets: factory.informerFor(resourceTypes.managedClusterSets),
    clusterSetBindings: factory.informerFor(resourceTypes.managedClusterSetBindings),
    addons: factory.informerFor(resourceTypes.managedClusterAddOns),
    leases: factory.informerFor(resourceTypes.leases, filtered),
    csrs: factory.informerFor(csrResource, filtered),
    clusterRoles: factory.informerFor(resourceTypes.clusterRoles, filtered),
    clusterRoleBindings: factory.informerFor(resourceTypes.clusterRoleBindings, filtered),
    roleBindings: factory.informerFor(resourceTypes.roleBindings, filtered),
    namespaces: factory.informerFor(resourceTypes.namespaces, filtered),
  };

  const newController: NewController = (c) => {
    const name = c.name;
    const timer = metrics.reconcileSeconds.labels({ controller: name });
    // Series bound once: a labelled inc() hashes its label object at every reconcile, thousands a
    // second on a large hub.
    const success = metrics.reconciles.labels({ controller: name, result: 'success' });
    const requeue = metrics.reconciles.labels({ controller: name, result: 'requeue' });
    const failed = metrics.reconciles.labels({ controller: name, result: 'error' });
    return createController({
      ...c,
      log: c.log ?? log,
      clock,
      reconcile: async (key, sig) => {
        const end = timer.startTimer();
        try {
          const r = await c.reconcile(key, sig);
          (r && r.requeueAfterMs ? requeue : success).inc();
          return r;
        } catch (err) {
          failed.inc();
          throw err;
        } finally {
          end();
        }
      },
    });
  };
  const ctx: HubContext = { client, informers, options, clock, log, newController, csrResource, rbacWritten: createClusterRbacSignal() };
  const gates = options.featureGates;

  const controllers: Controller[] = [setupManagedClusterController(ctx), setupTaintController(ctx)];
  if (options.registrationDrivers.includes(CSR_DRIVER)) controllers.push(setupCsrApprovingController(ctx));
  if (options.grpc && options.registrationDrivers.includes(GRPC_DRIVER)) {
    controllers.push(
      setupGrpcCsrApprovingController(ctx, options.grpc, hubIdentity(client)),
      setupGrpcCsrSignController(ctx, options.grpc, readGrpcCa(options.grpc)),
    );
  }
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
  if (gates['ClusterProfile']) {
    // Only with the gate: without it the ClusterProfile CRD need not be installed.
    const profiles = factory.informerFor<ClusterProfile>(resourceTypes.clusterProfiles);
    controllers.push(setupClusterProfileLifecycleController(ctx, profiles), setupClusterProfileStatusController(ctx, profiles));
  }
  if (gates['ResourceCleanup']) controllers.push(setupGcController(ctx));
  if (gates['ClusterImporter']) controllers.push(setupClusterImporter(ctx, { options: options.importer, template: loadAgentTemplate() }));

  factory.start(signal);
  const synced = await waitForCacheSync([factory], { signal, clock, timeoutMs: deps.cacheSyncTimeoutMs, what: 'hub informer' });
  if (!synced) throw new Error('hub manager stopped before its informer caches synced', { cause: signal.reason });
  const done = Promise.all(controllers.map((c) => c.run(signal))).then(() => lease.stopTimers());
  return {
    names: controllers.map((c) => c.name),
    synced: () => Object.values(informers).every((i: { hasSynced(): boolean }) => i.hasSynced()),
    done,
  };
}
