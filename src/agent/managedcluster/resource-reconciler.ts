// Resource reconciler: status.version.kubernetes from the spoke's /version,
// status.capacity summed over every node (all resource names, merged over keys others wrote) and
// status.allocatable summed over schedulable nodes (replaced as a whole).

import type { ManagedCluster } from '../../api/cluster.js';
import type { Node } from '../../api/core.js';
import type { KubeClient } from '../../client/types.js';
import type { Logger } from '../../util/logger.js';
import { sumResourceLists } from './quantity.js';
import type { StatusContext, StatusReconciler, StepResult } from './reconciler.js';
import { errorMessage } from '../../util/errors.js';

export interface NodeResources {
  capacity: Record<string, string>;
  allocatable: Record<string, string>;
}

/** Pure: capacity over all nodes merged onto `existingCapacity`; allocatable over schedulable nodes. */
export function computeNodeResources(nodes: readonly Node[], existingCapacity: Record<string, string> | undefined, onInvalid?: (name: string, value: string) => void): NodeResources {
  const computed = sumResourceLists(nodes.map((n) => n.status?.capacity), onInvalid);
  const allocatable = sumResourceLists(
    nodes.filter((n) => n.spec?.unschedulable !== true).map((n) => n.status?.allocatable),
    onInvalid,
  );
  return { capacity: { ...(existingCapacity ?? {}), ...computed }, allocatable };
}

export interface ResourceReconcilerOptions {
  /** Spoke server version (gitVersion), normally `spokeVersion(spokeClient, signal)`. */
  version(signal: AbortSignal): Promise<string>;
  /** All spoke nodes (the Node informer's lister). */
  listNodes(): Node[];
  log?: Logger;
}

/** GET /version on the spoke; returns gitVersion. */
export async function spokeVersion(client: Pick<KubeClient, 'request'>, signal: AbortSignal): Promise<string> {
  const info = await client.request<{ gitVersion?: string }>('GET', '/version', undefined, { signal });
  return info.gitVersion ?? '';
}

export function createResourceReconciler(opts: ResourceReconcilerOptions): StatusReconciler {
  return {
    name: 'resource',
    async reconcile(obj: ManagedCluster, ctx: StatusContext): Promise<StepResult> {
      let version: string;
      try {
        version = await opts.version(ctx.signal);
      } catch (err) {
        return { obj, next: 'stop', error: new Error(`unable to get server version of managed cluster "${ctx.clusterName}": ${errorMessage(err)}`, { cause: err }) };
      }
      let nodes: Node[];
      try {
        nodes = opts.listNodes();
      } catch (err) {
        return { obj, next: 'stop', error: new Error(`unable to get capacity and allocatable of managed cluster "${ctx.clusterName}": ${errorMessage(err)}`, { cause: err }) };
      }
      const status = obj.status ?? {};
      const res = computeNodeResources(nodes, status.capacity, (name, value) => opts.log?.warn('ignoring unparsable node quantity', { resource: name, value }));
      status.version = { ...(status.version ?? {}), kubernetes: version };
      status.capacity = res.capacity;
      status.allocatable = res.allocatable;
      obj.status = status;
      return { obj, next: 'continue' };
    },
  };
}
