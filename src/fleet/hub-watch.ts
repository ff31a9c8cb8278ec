// Keeps a ClusterBoard fed from a list and watch of ManagedClusters on the hub, relisting after any
// break (a hub restart, a 410): the one stream the simulator itself holds open to the hub.

import type { ManagedCluster } from '../api/cluster.js';
import { resourceTypes } from '../client/resource-types.js';
import type { KubeClient } from '../client/types.js';
import type { Clock } from '../util/clock.js';
import type { ClusterBoard } from './cluster-board.js';

export interface HubWatchOptions {
  client: KubeClient;
  board: ClusterBoard;
  clock: Clock;
  /** Called for each cluster event after the board was updated. */
  onCluster?: (mc: ManagedCluster) => void;
  /** Pause between attempts while the hub cannot be reached. */
  retryMs?: number;
}

export function watchHubClusters(o: HubWatchOptions, signal: AbortSignal): Promise<void> {
  const mcs = o.client.resource<ManagedCluster>(resourceTypes.managedClusters);
  return (async () => {
    while (!signal.aborted) {
      try {
        const list = await mcs.list({ signal });
        o.board.replace(list.items, o.clock.now());
        for (const mc of list.items) o.onCluster?.(mc);
        for await (const ev of mcs.watch({ resourceVersion: list.metadata?.resourceVersion ?? '', allowWatchBookmarks: true, signal })) {
          if (ev.type === 'ADDED' || ev.type === 'MODIFIED') {
            o.board.update(ev.object, o.clock.now());
            o.onCluster?.(ev.object);
          } else if (ev.type === 'DELETED') {
            o.board.remove(ev.object.metadata.name ?? '');
          }
        }
      } catch {
        // The hub is down or the watch expired: list again.
      }
      try {
        await o.clock.sleep(o.retryMs ?? 250, signal);
      } catch {
        return;
      }
    }
  })();
}
