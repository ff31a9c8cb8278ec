// ManagedClusterLeaseController: triggered by the hub ManagedCluster
// informer only; keeps the lease updater running while the cluster is accepted, with the cluster's
// lease duration (restarting it when the duration changes) and stops it otherwise.

import type { ManagedCluster } from '../../api/cluster.js';
import type { Lease } from '../../api/core.js';
import { createController } from '../../client/controller.js';
import type { InformerFactory } from '../../client/informer-factory.js';
import { resourceTypes } from '../../client/resource-types.js';
import type { KubeClient } from '../../client/types.js';
import { realClock, type Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { decideLease } from './lease-decision.js';
import { createLeaseUpdater, type LeaseUpdater } from './lease-updater.js';
import { onEveryChange } from '../../client/event-handlers.js';

export const LEASE_CONTROLLER_NAME = 'ManagedClusterLeaseController';
const KEY = 'key';

export interface LeaseControllerOptions {
  clusterName: string;
  /** Hub client with the agent's hub credentials (lease get/update). */
  hubClient: KubeClient;
  /** Shared hub informers; uses managedclusters with `metadata.name=<cluster>`. */
  hubInformers: InformerFactory;
  log: Logger;
  clock?: Clock;
  /** Jitter source (default Math.random). */
  random?: () => number;
  /** The first renewal waits for this (bounded): see LeaseUpdaterOptions. */
  firstRenewalAfter?: Promise<void>;
}

export interface LeaseController {
  readonly name: string;
  /** Exposed for tests. */
  readonly updater: LeaseUpdater;
  /** Waits for the ManagedCluster cache (the caller starts the factory), then runs until the signal aborts; stops the updater on exit. */
  run(signal: AbortSignal): Promise<void>;
}

export function createLeaseController(o: LeaseControllerOptions): LeaseController {
  if (!o.clusterName) throw new Error('createLeaseController: clusterName is required');
  const clock = o.clock ?? realClock;
  const log = o.log.child({ controller: LEASE_CONTROLLER_NAME });
  const informer = o.hubInformers.informerFor<ManagedCluster>(resourceTypes.managedClusters, { fieldSelector: `metadata.name=${o.clusterName}` });
  const updater = createLeaseUpdater({
    clusterName: o.clusterName,
    leases: o.hubClient.resource<Lease>(resourceTypes.leases, o.clusterName),
    clock,
    random: o.random ?? Math.random,
    log,
    ...(o.firstRenewalAfter ? { firstRenewalAfter: o.firstRenewalAfter } : {}),
  });
  let lastDurationSeconds: number | undefined;
  let runSignal: AbortSignal | undefined;

  const controller = createController({
    waitForSync: [informer],
    name: LEASE_CONTROLLER_NAME,
    log: o.log,
    clock,
    reconcile: async () => {
      const d = decideLease({ clusterName: o.clusterName, cluster: informer.lister.get(o.clusterName), lastDurationSeconds });
      lastDurationSeconds = d.lastDurationSeconds;
      if (d.stop) updater.stop();
      if (d.error) throw new Error(d.error);
      if (d.runWithSeconds !== undefined && runSignal) updater.start(d.runWithSeconds, runSignal);
    },
  });
  const enqueue = (): void => controller.enqueue(KEY);
  onEveryChange(informer, enqueue);

  return {
    name: LEASE_CONTROLLER_NAME,
    updater,
    async run(signal) {
      runSignal = signal;
      enqueue();
      try {
        await controller.run(signal);
      } finally {
        updater.stop();
      }
    },
  };
}
