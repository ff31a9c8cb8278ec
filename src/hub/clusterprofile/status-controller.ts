// ClusterProfileStatusController: every ClusterProfile the hub manages mirrors its ManagedCluster
// (version, claims as properties, Available and Joined conditions, the cluster set label). Keyed
// by cluster name.

import { CLUSTER_MANAGER_LABEL, OCM_CLUSTER_MANAGER, type ClusterProfile } from '../../api/cluster-profile.js';
import { labels as wellKnownLabels } from '../../api/constants.js';
import { isNotFound } from '../../client/errors.js';
import { enqueueByName } from '../../client/event-handlers.js';
import { patchStatus } from '../../client/patch-writer.js';
import { resourceTypes } from '../../client/resource-types.js';
import type { Controller, Informer, ReconcileResult } from '../../client/types.js';
import { errorMessage } from '../../util/errors.js';
import type { HubContext } from '../common/context.js';
import { profileClusterName, profileLabels, profileStatus } from './profile-decision.js';

const CONTROLLER_NAME = 'ClusterProfileStatusController';

export function setupClusterProfileStatusController(ctx: HubContext, profiles: Informer<ClusterProfile>): Controller {
  const log = ctx.log.child({ controller: CONTROLLER_NAME });

  async function reconcile(clusterName: string, signal: AbortSignal): Promise<ReconcileResult> {
    const cluster = ctx.informers.clusters.lister.get(clusterName);
    if (!cluster) return {};
    const errors: string[] = [];
    for (const profile of profiles.lister.list()) {
      if (profileClusterName(profile) !== clusterName || profile.spec?.clusterManager?.name !== OCM_CLUSTER_MANAGER) continue;
      const ns = profile.metadata.namespace ?? '';
      const rc = ctx.client.resource<ClusterProfile>(resourceTypes.clusterProfiles, ns);
      try {
        await patchStatus(rc, profile, profileStatus(profile.status, cluster, new Date(ctx.clock.now())), signal);
        const labels = profileLabels(profile, cluster);
        if (labels) await rc.patch(profile.metadata.name ?? '', 'merge', { metadata: { labels } }, { signal });
      } catch (err) {
        // Gone meanwhile: the lifecycle controller deleted it.
        if (!isNotFound(err)) errors.push(`failed to update ClusterProfile ${ns}/${profile.metadata.name ?? ''}: ${errorMessage(err)}`);
      }
    }
    if (errors.length > 0) throw new Error(errors.sort().join('\n'));
    return {};
  }

  const controller = ctx.newController({ name: CONTROLLER_NAME, reconcile, log });
  enqueueByName(ctx.informers.clusters, controller);
  const onProfile = (p: ClusterProfile): void => {
    const labels = p.metadata.labels ?? {};
    if (labels[wellKnownLabels.clusterName] === undefined && labels[CLUSTER_MANAGER_LABEL] !== OCM_CLUSTER_MANAGER) return;
    controller.enqueue(profileClusterName(p));
  };
  profiles.addHandlers({ onAdd: onProfile, onUpdate: (_old, cur) => onProfile(cur), onDelete: () => {} });
  return controller;
}
