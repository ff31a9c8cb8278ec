// The cluster status updater of the main-phase register secret controller (RegisterController):
// upsert the ClusterCertificateRotated condition on the hub ManagedCluster read from the cache and
// send a status merge patch only when something changed. NotFound in the cache → nothing.

import { setCondition } from '../../api/conditions.js';
import type { ManagedCluster } from '../../api/cluster.js';
import type { Lister, ResourceClient } from '../../client/types.js';
import type { Clock } from '../../util/clock.js';
import { patchStatus } from '../../client/patch-writer.js';
import type { StatusUpdater } from './driver.js';
import { errorMessage } from '../../util/errors.js';

export interface ClusterStatusUpdaterOptions {
  clusterName: string;
  clusters: ResourceClient<ManagedCluster>;
  lister: Lister<ManagedCluster>;
  clock: Clock;
}

export function clusterStatusUpdater(o: ClusterStatusUpdaterOptions): StatusUpdater {
  return async (condition, signal) => {
    const cached = o.lister.get(o.clusterName);
    if (cached === undefined) return;
    const next = structuredClone(cached);
    next.status = { ...(next.status ?? {}), conditions: setCondition(next.status?.conditions, condition, new Date(o.clock.now())) };
    try {
      await patchStatus(o.clusters, cached, next.status, signal);
    } catch (err) {
      throw new Error(`unable to update status of managed cluster ${JSON.stringify(o.clusterName)}: ${errorMessage(err)}`, { cause: err });
    }
  };
}
