// HubAcceptController: MultipleHubs only. When the hub sets
// spec.hubAcceptsClient to false, ask the agent to restart (so that it reselects a bootstrap
// kubeconfig). Triggered by hub ManagedCluster informer events only.

import type { ManagedCluster } from '../../api/cluster.js';
import { createController } from '../../client/controller.js';
import type { InformerFactory } from '../../client/informer-factory.js';
import { resourceTypes } from '../../client/resource-types.js';
import { realClock, type Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { onEveryChange } from '../../client/event-handlers.js';

export const HUB_ACCEPT_CONTROLLER_NAME = 'HubAcceptController';
const HUB_REJECTED_MESSAGE = 'Failed to connect to hub because of hubAcceptClient set to false, restart agent to reselect a new bootstrap kubeconfig';

export interface HubAcceptControllerOptions {
  clusterName: string;
  /** Shared hub informers; uses managedclusters with `metadata.name=<cluster>`. */
  hubInformers: InformerFactory;
  /** Cancels the agent (process restart); called with the log message. */
  onRestart(reason: string): void;
  log: Logger;
  clock?: Clock;
}

export interface HubAcceptController {
  readonly name: string;
  /** One sync (exposed for tests); throws when the cluster is not in the cache. */
  sync(): void;
  run(signal: AbortSignal): Promise<void>;
}

/** Pure: restart when the hub no longer accepts the client. */
function hubRejectsClient(cluster: ManagedCluster): boolean {
  return !cluster.spec?.hubAcceptsClient;
}

export function createHubAcceptController(o: HubAcceptControllerOptions): HubAcceptController {
  const log = o.log.child({ controller: HUB_ACCEPT_CONTROLLER_NAME });
  const informer = o.hubInformers.informerFor<ManagedCluster>(resourceTypes.managedClusters, { fieldSelector: `metadata.name=${o.clusterName}` });
  const sync = (): void => {
    const cluster = informer.lister.get(o.clusterName);
    if (!cluster) {
      throw new Error(`unable to get managed cluster "${o.clusterName}" from hub: managedcluster.cluster.open-cluster-management.io "${o.clusterName}" not found`);
    }
    if (hubRejectsClient(cluster)) {
      log.info(HUB_REJECTED_MESSAGE);
      o.onRestart(HUB_REJECTED_MESSAGE);
    }
  };
  const controller = createController({ name: HUB_ACCEPT_CONTROLLER_NAME, log: o.log, clock: o.clock ?? realClock, waitForSync: [informer], reconcile: async () => sync() });
  const enqueue = (): void => controller.enqueue('key');
  onEveryChange(informer, enqueue);
  return {
    name: HUB_ACCEPT_CONTROLLER_NAME,
    sync,
    async run(signal) {
      await controller.run(signal);
    },
  };
}
