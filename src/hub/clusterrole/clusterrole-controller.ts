// ManagedClusterClusterRoleController: the two common ClusterRoles exist
// while at least one ManagedCluster exists.

import { REGISTRATION_CLUSTER_ROLE, WORK_CLUSTER_ROLE } from '../../api/constants.js';
import type { KubeObject } from '../../api/meta.js';
import type { Controller, ReconcileResult } from '../../client/types.js';
import { applyRbacList, deleteRbacList } from '../common/apply.js';
import { DEFAULT_KEY, type HubContext } from '../common/context.js';
import { aggregate } from '../../util/errors.js';
import { commonClusterRoles } from '../rbac-manifests.js';
import { onEveryChange } from '../../client/event-handlers.js';

const CONTROLLER_NAME = 'ManagedClusterClusterRoleController';

/** 'apply' with ≥1 cluster, else 'delete'. Pure. */
function commonRolesAction(clusterCount: number): 'apply' | 'delete' {
  return clusterCount > 0 ? 'apply' : 'delete';
}

export function setupClusterRoleController(ctx: HubContext): Controller {
  const log = ctx.log.child({ controller: CONTROLLER_NAME });
  const listers = {
    clusterRoles: ctx.informers.clusterRoles.lister,
    clusterRoleBindings: ctx.informers.clusterRoleBindings.lister,
    roleBindings: ctx.informers.roleBindings.lister,
  };
  async function reconcile(_key: string, signal: AbortSignal): Promise<ReconcileResult> {
    const roles = commonClusterRoles(ctx.options.labels);
    const errors = commonRolesAction(ctx.informers.clusters.lister.size()) === 'apply'
      ? await applyRbacList(ctx.client, listers, roles, log, signal)
      : await deleteRbacList(ctx.client, roles, signal);
    const err = aggregate(errors, 'lines');
    if (err) throw err;
    return {};
  }
  const controller = ctx.newController({ name: CONTROLLER_NAME, reconcile, log });
  const any = (): void => controller.enqueue(DEFAULT_KEY);
  onEveryChange(ctx.informers.clusters, any);
  const onRole = (o: KubeObject): void => {
    if (o.metadata.name === REGISTRATION_CLUSTER_ROLE || o.metadata.name === WORK_CLUSTER_ROLE) any();
  };
  onEveryChange(ctx.informers.clusterRoles, onRole);
  controller.enqueue(DEFAULT_KEY);
  return controller;
}
