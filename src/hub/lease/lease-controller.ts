// ManagedClusterLeaseController: creates `managed-cluster-lease` and marks
// Available Unknown once renewTime + 5 × leaseDurationSeconds has passed. Each cluster is looked at again
// at its own expiry time (one timer per cluster); healthy clusters cost no API request.

import type { ManagedCluster } from '../../api/cluster.js';
import { findCondition, rfc3339Micro, setCondition } from '../../api/conditions.js';
import { conditionTypes, labels as wellKnownLabels, names } from '../../api/constants.js';
import type { EventV1, Lease } from '../../api/core.js';
import type { KubeObject } from '../../api/meta.js';
import { resourceTypes } from '../../client/resource-types.js';
import type { Controller, ReconcileResult } from '../../client/types.js';
import { type HubContext, CLUSTER_WORKERS } from '../common/context.js';
import { patchStatus } from '../../client/patch-writer.js';
import { createKeyTimers } from './key-timers.js';
import { availableUnknownNote, checkLease, LEASE_STOPPED_CONDITION } from './lease-decision.js';
import { enqueueByName, onEveryChange } from '../../client/event-handlers.js';

const CONTROLLER_NAME = 'ManagedClusterLeaseController';
const REPORTING_CONTROLLER = 'registration-controller';

/** Cluster name of a cluster lease event (name `managed-cluster-lease`, non-empty cluster-name label). */
export function clusterOfLease(obj: KubeObject): string | undefined {
  if (obj.metadata.name !== names.clusterLease) return undefined;
  const c = obj.metadata.labels?.[wellKnownLabels.clusterName];
  return c ? c : undefined;
}

export function setupLeaseController(ctx: HubContext, opts: { instance?: string } = {}): Controller & { stopTimers(): void } {
  const { client, informers, clock } = ctx;
  const log = ctx.log.child({ controller: CONTROLLER_NAME });
  const clusters = client.resource<ManagedCluster>(resourceTypes.managedClusters);
  const instance = `${REPORTING_CONTROLLER}-${opts.instance ?? 'ocm-ts'}`;

  async function markUnknown(cluster: ManagedCluster, signal: AbortSignal): Promise<void> {
    const name = cluster.metadata.name ?? '';
    if (findCondition(cluster.status?.conditions, conditionTypes.available)?.status === 'Unknown') return;
    const status = { ...(cluster.status ?? {}), conditions: setCondition(cluster.status?.conditions, { ...LEASE_STOPPED_CONDITION }, new Date(clock.now())) };
    if (!(await patchStatus(clusters, cluster, status, signal))) return;
    log.info('managed cluster lease expired; Available set to Unknown', { key: name });
    const now = clock.now();
    const event: EventV1 = {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: `${name}.${(BigInt(now) * 1_000_000n).toString(16)}`, namespace: name },
      eventTime: rfc3339Micro(new Date(now)),
      reportingController: REPORTING_CONTROLLER,
      reportingInstance: instance,
      action: 'AvailableUnknown',
      reason: 'AvailableUnknown',
      note: availableUnknownNote(name),
      type: 'Warning',
      regarding: { apiVersion: 'cluster.open-cluster-management.io/v1', kind: 'ManagedCluster', name, namespace: name, ...(cluster.metadata.uid ? { uid: cluster.metadata.uid } : {}) },
    };
    // Recorded in the background, like an event broadcaster: the worker moves on to the next cluster.
    client
      .resource<EventV1>(resourceTypes.eventsV1, name)
      .create(event, { signal })
      .catch((err: unknown) => log.warn('cannot record event AvailableUnknown', { key: name, err }));
  }

  async function reconcile(name: string, signal: AbortSignal): Promise<ReconcileResult> {
    const cluster = informers.clusters.lister.get(name);
    if (!cluster || !findCondition(cluster.status?.conditions, conditionTypes.hubAccepted)) {
      timers.cancel(name);
      return {};
    }
    const lease = informers.leases.lister.get(names.clusterLease, name);
    if (!lease) {
      if (cluster.metadata.deletionTimestamp) {
        await markUnknown(cluster, signal);
        return {};
      }
      const fresh: Lease = {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: names.clusterLease, namespace: name, labels: { [wellKnownLabels.clusterName]: name } },
        spec: { holderIdentity: names.clusterLease, renewTime: rfc3339Micro(new Date(clock.now())) },
      };
      await client.resource<Lease>(resourceTypes.leases, name).create(fresh, { signal });
      return {};
    }
    if (lease.spec?.renewTime === undefined) log.warn('cluster lease has no renewTime; treating it as never renewed', { key: name });
    const check = checkLease(lease.spec?.renewTime, cluster.spec?.leaseDurationSeconds, clock.now());
    if (check.expired) await markUnknown(cluster, signal);
    timers.schedule(name, check.requeueAfterMs);
    return {};
  }

  const controller = ctx.newController({ name: CONTROLLER_NAME, reconcile, log, workers: CLUSTER_WORKERS });
  const timers = createKeyTimers(clock, (key) => controller.enqueue(key));
  enqueueByName(informers.clusters, controller);
  const onLease = (o: KubeObject): void => {
    const c = clusterOfLease(o);
    if (c) controller.enqueue(c);
  };
  onEveryChange(informers.leases, onLease);
  return Object.assign(controller, { stopTimers: () => timers.stop() });
}
