// The lease updater of the lease controller: while started, renew the hub Lease
// `managed-cluster-lease` in the cluster namespace at once and then every duration × (1 + 0.25 U)
// (the wait starts after each update finishes): GET, set spec.renewTime (MicroTime), UPDATE.
// Failures are logged and the round skipped; the agent never creates the lease (the hub does).

import { rfc3339Micro } from '../../api/conditions.js';
import { names } from '../../api/constants.js';
import type { Lease } from '../../api/core.js';
import type { ResourceClient } from '../../client/types.js';
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { jitteredIntervalMs } from './lease-decision.js';

export interface LeaseUpdaterOptions {
  clusterName: string;
  /** Leases of the cluster namespace on the hub. */
  leases: Pick<ResourceClient<Lease>, 'get' | 'update'>;
  clock: Clock;
  random: () => number;
  log: Logger;
}

export interface LeaseUpdater {
  /** No-op when already running. `parent` ends the loop too. */
  start(durationSeconds: number, parent: AbortSignal): void;
  stop(): void;
  running(): boolean;
  /** One renewal (exposed for tests). */
  renew(signal: AbortSignal): Promise<void>;
}

export function createLeaseUpdater(o: LeaseUpdaterOptions): LeaseUpdater {
  let current: AbortController | undefined;
  const leaseRef = `${o.clusterName}/${names.clusterLease}`;

  const renew = async (signal: AbortSignal): Promise<void> => {
    let lease: Lease;
    try {
      lease = await o.leases.get(names.clusterLease, { signal });
    } catch (err) {
      if (!signal.aborted) o.log.warn('unable to get cluster lease on hub', { lease: leaseRef, err });
      return;
    }
    lease.spec = { ...(lease.spec ?? {}), renewTime: rfc3339Micro(new Date(o.clock.now())) };
    try {
      await o.leases.update(lease, { signal });
    } catch (err) {
      if (!signal.aborted) o.log.warn('unable to update cluster lease on hub', { lease: leaseRef, err });
    }
  };

  const loop = async (durationSeconds: number, signal: AbortSignal): Promise<void> => {
    while (!signal.aborted) {
      await renew(signal);
      try {
        await o.clock.sleep(jitteredIntervalMs(durationSeconds, o.random()), signal);
      } catch {
        return; // aborted
      }
    }
  };

  return {
    start(durationSeconds, parent) {
      if (current && !current.signal.aborted) return;
      const ac = new AbortController();
      const onParentAbort = (): void => ac.abort(parent.reason);
      if (parent.aborted) return;
      parent.addEventListener('abort', onParentAbort, { once: true });
      ac.signal.addEventListener('abort', () => parent.removeEventListener('abort', onParentAbort), { once: true });
      current = ac;
      o.log.info(`Start to update lease "${names.clusterLease}" on cluster "${o.clusterName}"`, { reason: 'ManagedClusterLeaseUpdateStarted', durationSeconds });
      void loop(durationSeconds, ac.signal);
    },
    stop() {
      if (!current || current.signal.aborted) return;
      current.abort();
      current = undefined;
      o.log.info(`Stop to update lease "${names.clusterLease}" on cluster "${o.clusterName}"`, { reason: 'ManagedClusterLeaseUpdateStoped' });
    },
    running: () => current !== undefined && !current.signal.aborted,
    renew,
  };
}
