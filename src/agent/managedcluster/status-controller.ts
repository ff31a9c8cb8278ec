// ManagedClusterStatusController: keeps the hub ManagedCluster's status in
// step with the spoke. Triggers: the hub ManagedCluster informer, spoke Node and labelled Namespace
// informers, ClusterClaim / ClusterProperty informers (behind their gates), plus a resync every
// `--cluster-healthcheck-period` and an initial run.

import { hostname } from 'node:os';
import type { ClusterClaim, ClusterProperty, ManagedCluster } from '../../api/cluster.js';
import type { Namespace, Node } from '../../api/core.js';
import type { FeatureGates } from '../../api/feature-gates.js';
import type { KubeObject } from '../../api/meta.js';
import { createController } from '../../client/controller.js';
import { createEventRecorder } from '../../client/event-recorder.js';
import type { InformerFactory } from '../../client/informer-factory.js';
import { resourceTypes } from '../../client/resource-types.js';
import type { EventRecorder, Informer, KubeClient } from '../../client/types.js';
import { realClock, type Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { createAvailableReconciler, probeSpokeHealth } from './available-reconciler.js';
import { createClaimReconciler } from './claim-reconciler.js';
import { HUB_EVENT_REPORTER } from './hub-events.js';
import { createJoiningReconciler } from './joining-reconciler.js';
import { createManagedNamespaceReconciler, hubClusterSetLabel, hubHash } from './managed-namespace-reconciler.js';
import type { StatusReconciler } from './reconciler.js';
import { createResourceReconciler, spokeVersion } from './resource-reconciler.js';
import { syncClusterStatus } from './status-sync.js';
import { onEveryChange } from '../../client/event-handlers.js';

export const STATUS_CONTROLLER_NAME = 'ManagedClusterStatusController';
const DEFAULT_KEY = 'key';
const DEFAULT_HEALTHCHECK_PERIOD_MS = 60_000;

export interface StatusControllerOptions {
  clusterName: string;
  /** Hub client with the agent's hub credentials: status patches and events. */
  hubClient: KubeClient;
  /** Shared hub informers; the controller uses managedclusters with `metadata.name=<cluster>`. */
  hubInformers: InformerFactory;
  /** Spoke client: /livez, /healthz, /version and namespaces. */
  spokeClient: KubeClient;
  /** Shared spoke informers: nodes, namespaces (hub label), clusterclaims, clusterproperties. */
  spokeInformers: InformerFactory;
  /** Server URL of the current bootstrap kubeconfig (source of the managed-namespace hub hash). */
  bootstrapServerUrl: string;
  /** Gates ClusterClaim and ClusterProperty (missing = off). */
  features: FeatureGates;
  /** `--max-custom-cluster-claims` (default 20). */
  maxCustomClusterClaims?: number;
  /** `--reserved-cluster-claim-suffixes`. */
  reservedClusterClaimSuffixes?: readonly string[];
  /** `--cluster-healthcheck-period` in ms (default 60 000). */
  resyncMs?: number;
  /** Available=False only after failures lasted this long (default 20 000). */
  availabilityFailureThresholdMs?: number;
  /** Re-check interval while failing (default 5 000). */
  availabilityRetryIntervalMs?: number;
  /** Timeout of one health probe request (default: the client's). */
  probeTimeoutMs?: number;
  /** Host part of the hub events' reportingInstance (default os.hostname()). */
  hostname?: string;
  /** Hub event recorder (default: events.k8s.io/v1 recorder on hubClient, reporter `klusterlet-agent`). */
  hubEventRecorder?: EventRecorder;
  /** Called after each sync attempt, successful or not. */
  onSynced?: () => void;
  log: Logger;
  clock?: Clock;
}

export interface StatusController {
  readonly name: string;
  /** Triggers a sync. */
  enqueue(): void;
  /** Waits for the cluster/node/namespace caches (the caller starts the factories), then runs until the signal aborts. */
  run(signal: AbortSignal): Promise<void>;
}

export function createStatusController(o: StatusControllerOptions): StatusController {
  if (!o.clusterName) throw new Error('createStatusController: clusterName is required');
  const clock = o.clock ?? realClock;
  const log = o.log.child({ controller: STATUS_CONTROLLER_NAME });
  const resyncMs = o.resyncMs ?? DEFAULT_HEALTHCHECK_PERIOD_MS;
  if (!(resyncMs > 0)) throw new Error('cluster healthcheck period must greater than zero');
  const hubLabel = hubClusterSetLabel(hubHash(o.bootstrapServerUrl));

  const clusterInformer = o.hubInformers.informerFor<ManagedCluster>(resourceTypes.managedClusters, { fieldSelector: `metadata.name=${o.clusterName}` });
  const nodeInformer = o.spokeInformers.informerFor<Node>(resourceTypes.nodes);
  const namespaceInformer = o.spokeInformers.informerFor<Namespace>(resourceTypes.namespaces, { labelSelector: `${hubLabel}=true` });
  const claimInformer = o.features['ClusterClaim'] ? o.spokeInformers.informerFor<ClusterClaim>(resourceTypes.clusterClaims) : undefined;
  const propertyInformer = o.features['ClusterProperty'] ? o.spokeInformers.informerFor<ClusterProperty>(resourceTypes.clusterProperties) : undefined;
  const informers: Informer<KubeObject>[] = [clusterInformer, nodeInformer, namespaceInformer, ...(claimInformer ? [claimInformer] : []), ...(propertyInformer ? [propertyInformer] : [])] as unknown as Informer<KubeObject>[];
  // The sync waits for the cluster, node and namespace caches only: a spoke without the
  // ClusterClaim/ClusterProperty CRD must not block Joined/Available (upstream would wait forever);
  // until their caches sync, the claim reconciler reports an error and leaves the claims as they are.
  const required: Informer<KubeObject>[] = [clusterInformer, nodeInformer, namespaceInformer] as unknown as Informer<KubeObject>[];
  const listSynced = <T extends KubeObject>(inf: Informer<T>, what: string): T[] => {
    if (!inf.hasSynced()) throw new Error(`the ${what} cache has not synced yet`);
    return inf.lister.list();
  };

  const recorder =
    o.hubEventRecorder ?? createEventRecorder(o.hubClient, { component: HUB_EVENT_REPORTER, host: o.hostname ?? hostname(), log, clock });

  // Order matters: joining first (nothing is reported before the hub accepts the cluster);
  // available next, so that an unreachable spoke API server stops the chain before resource,
  // claim and namespace gathering, which all need the spoke; claims after resources and joining
  // (claims are only written once Joined is True); managed namespaces last (spoke writes).
  const reconcilers: StatusReconciler[] = [
    createJoiningReconciler(),
    createAvailableReconciler({
      probe: (signal) => probeSpokeHealth(o.spokeClient, signal, o.probeTimeoutMs),
      clock,
      ...(o.availabilityFailureThresholdMs !== undefined ? { failureThresholdMs: o.availabilityFailureThresholdMs } : {}),
      ...(o.availabilityRetryIntervalMs !== undefined ? { retryIntervalMs: o.availabilityRetryIntervalMs } : {}),
    }),
    createResourceReconciler({ version: (signal) => spokeVersion(o.spokeClient, signal), listNodes: () => nodeInformer.lister.list(), log }),
    createClaimReconciler({
      ...(claimInformer ? { listClaims: () => listSynced(claimInformer, 'ClusterClaim') } : {}),
      ...(propertyInformer ? { listProperties: () => listSynced(propertyInformer, 'ClusterProperty') } : {}),
      ...(o.maxCustomClusterClaims !== undefined ? { maxCustomClaims: o.maxCustomClusterClaims } : {}),
      ...(o.reservedClusterClaimSuffixes ? { reservedSuffixes: o.reservedClusterClaimSuffixes } : {}),
    }),
    createManagedNamespaceReconciler({
      namespaces: o.spokeClient.resource<Namespace>(resourceTypes.namespaces),
      listLabelledNamespaces: () => namespaceInformer.lister.list(),
      hubLabel,
    }),
  ];

  const hubClusters = o.hubClient.resource<ManagedCluster>(resourceTypes.managedClusters);
  const controller = createController({
    waitForSync: required,
    name: STATUS_CONTROLLER_NAME,
    log: o.log,
    clock,
    resyncMs,
    resyncKeys: () => [DEFAULT_KEY],
    reconcile: async (_key, signal) => {
      try {
        await syncClusterStatus(
          {
            clusterName: o.clusterName,
            getCached: () => clusterInformer.lister.get(o.clusterName),
            reconcilers,
            patchStatus: async (patch, s) => {
              await hubClusters.patch(o.clusterName, 'merge', patch, { subresource: 'status', signal: s });
            },
            onAvailabilityChange: (ev, cluster) => {
              const ref: KubeObject = {
                apiVersion: 'cluster.open-cluster-management.io/v1',
                kind: 'ManagedCluster',
                metadata: { name: o.clusterName, namespace: o.clusterName, ...(cluster.metadata.uid ? { uid: cluster.metadata.uid } : {}) },
              };
              recorder.event(ref, ev.type, ev.reason, ev.note, o.clusterName);
            },
            event: (reason, message) => log.info(message, { reason }),
            requeueAfter: (ms) => controller.enqueueAfter(DEFAULT_KEY, ms),
            now: () => new Date(clock.now()),
          },
          signal,
        );
      } finally {
        o.onSynced?.();
      }
    },
  });

  const enqueue = (): void => controller.enqueue(DEFAULT_KEY);
  for (const inf of informers) onEveryChange(inf, enqueue);

  return {
    name: STATUS_CONTROLLER_NAME,
    enqueue,
    async run(signal) {
      enqueue();
      await controller.run(signal);
    },
  };
}
