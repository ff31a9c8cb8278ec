// ClusterProfileLifecycleController: one ClusterProfile per cluster in every namespace whose bound
// ManagedClusterSetBindings select it, and none elsewhere. Keyed by namespace: a sync compares all
// the namespace's profiles with all its bindings.

import type { ManagedCluster, ManagedClusterSet, ManagedClusterSetBinding } from '../../api/cluster.js';
import type { ClusterProfile } from '../../api/cluster-profile.js';
import type { KubeObject } from '../../api/meta.js';
import { isNotFound } from '../../client/errors.js';
import { onEveryChange } from '../../client/event-handlers.js';
import { resourceTypes } from '../../client/resource-types.js';
import type { Controller, Informer, ReconcileResult } from '../../client/types.js';
import { errorMessage } from '../../util/errors.js';
import type { HubContext } from '../common/context.js';
import { setsSelecting } from '../managedclusterset/cluster-set-selector.js';
import { desiredProfileClusters, isManagedProfile, newClusterProfile } from './profile-decision.js';

const CONTROLLER_NAME = 'ClusterProfileLifecycleController';

export function setupClusterProfileLifecycleController(ctx: HubContext, profiles: Informer<ClusterProfile>): Controller {
  const log = ctx.log.child({ controller: CONTROLLER_NAME });
  const { clusters, clusterSets, clusterSetBindings } = ctx.informers;

  async function reconcile(namespace: string, signal: AbortSignal): Promise<ReconcileResult> {
    let ns: KubeObject;
    try {
      ns = await ctx.client.resource(resourceTypes.namespaces).get(namespace, { signal });
    } catch (err) {
      if (isNotFound(err)) return {};
      throw err;
    }
    if (ns.metadata.deletionTimestamp) return {};
    const desired = desiredProfileClusters(
      clusterSetBindings.lister.list({ namespace }),
      (name) => clusterSets.lister.get(name),
      clusters.lister.list(),
    );
    const existing = new Set(profiles.lister.list({ namespace }).filter(isManagedProfile).map((p) => p.metadata.name ?? ''));
    const rc = ctx.client.resource<ClusterProfile>(resourceTypes.clusterProfiles, namespace);
    const errors: string[] = [];
    for (const cluster of desired) {
      if (existing.has(cluster)) continue;
      try {
        await rc.create(newClusterProfile(namespace, cluster), { signal });
        log.info('created ClusterProfile', { namespace, name: cluster });
      } catch (err) {
        errors.push(`failed to create ClusterProfile ${namespace}/${cluster}: ${errorMessage(err)}`);
      }
    }
    for (const cluster of existing) {
      if (desired.has(cluster)) continue;
      try {
        await rc.delete(cluster, { signal });
        log.info('deleted ClusterProfile', { namespace, name: cluster });
      } catch (err) {
        if (!isNotFound(err)) errors.push(`failed to delete ClusterProfile ${namespace}/${cluster}: ${errorMessage(err)}`);
      }
    }
    if (errors.length > 0) throw new Error(errors.sort().join('\n'));
    return {};
  }

  const controller = ctx.newController({ name: CONTROLLER_NAME, reconcile, log });
  const namespacesBoundTo = (setNames: readonly string[]): Set<string> => {
    const wanted = new Set(setNames);
    const out = new Set<string>();
    for (const b of clusterSetBindings.lister.list()) if (wanted.has(b.spec?.clusterSet ?? '')) out.add(b.metadata.namespace ?? '');
    return out;
  };
  const enqueueAll = (namespaces: Iterable<string>): void => {
    for (const ns of namespaces) if (ns !== '') controller.enqueue(ns);
  };
  const onCluster = (c: ManagedCluster): void => enqueueAll(namespacesBoundTo(setsSelecting(clusterSets.lister.list(), c.metadata.labels)));
  // Label changes move a cluster between sets and a deletion timestamp withdraws it: both matter,
  // any other update (status, heartbeats) does not.
  clusters.addHandlers({
    onAdd: onCluster,
    onDelete: onCluster,
    onUpdate: (old, cur) => {
      const moved = JSON.stringify(old.metadata.labels ?? {}) !== JSON.stringify(cur.metadata.labels ?? {});
      const deleting = !old.metadata.deletionTimestamp && cur.metadata.deletionTimestamp !== undefined;
      if (!moved && !deleting) return;
      onCluster(old);
      onCluster(cur);
    },
  });
  onEveryChange(clusterSets, (s: ManagedClusterSet) => enqueueAll(namespacesBoundTo([s.metadata.name ?? ''])));
  onEveryChange(clusterSetBindings, (b: ManagedClusterSetBinding) => enqueueAll([b.metadata.namespace ?? '']));
  // A profile deleted by someone else comes back; one created by someone else goes if unwanted.
  profiles.addHandlers({
    onAdd: (p) => enqueueAll([p.metadata.namespace ?? '']),
    onDelete: (p) => enqueueAll([p.metadata.namespace ?? '']),
  });
  return controller;
}
