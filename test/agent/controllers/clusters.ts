// Hub and spoke embedded API servers for the agent's integration tests (OCM CRDs installed: hub
// CRDs on the hub, ClusterClaim/ClusterProperty on the spoke; admin KubeClients), and helpers that
// play the hub controllers' part: accept a cluster, set its conditions, create its lease.

import { HUB_CRD_NAMES, SPOKE_CRD_NAMES } from '../../../src/api/crds.js';
import type { ManagedCluster } from '../../../src/api/cluster.js';
import { rfc3339 } from '../../../src/api/conditions.js';
import type { Lease, Namespace } from '../../../src/api/core.js';
import type { Condition } from '../../../src/api/meta.js';
import { resourceTypes } from '../../../src/client/resource-types.js';
import { isAlreadyExists, isNotFound } from '../../../src/client/errors.js';
import type { KubeClient } from '../../../src/client/types.js';
import type { TestApiServer, TestApiServerOptions } from '../../helpers/embedded-server.js';
import { startOcmApiServer } from '../../helpers/ocm-api-server.js';

export interface Clusters {
  hub: TestApiServer;
  spoke: TestApiServer;
  hubAdmin: KubeClient;
  spokeAdmin: KubeClient;
  stop(): Promise<void>;
}

export interface ClustersOptions {
  /**
   * true (default): a second server is the spoke. false: the hub server stands in for the spoke,
   * without the spoke CRDs. 'same': the hub server is the spoke, with both sets of CRDs.
   */
  spoke?: boolean | 'same';
  /** Options of the hub's API server (e.g. clusterSigningDurationMs). */
  hubServer?: TestApiServerOptions;
}

export async function startClusters(opts: ClustersOptions = {}): Promise<Clusters> {
  const own = opts.spoke === undefined || opts.spoke === true;
  const hub = await startOcmApiServer({ crds: opts.spoke === 'same' ? [...HUB_CRD_NAMES, ...SPOKE_CRD_NAMES] : HUB_CRD_NAMES, ...(opts.hubServer ? { server: opts.hubServer } : {}) });
  const spoke = own ? await startOcmApiServer({ crds: SPOKE_CRD_NAMES }).catch(async (err: unknown) => {
    await hub.stop();
    throw err;
  }) : hub;
  return {
    hub: hub.server,
    spoke: spoke.server,
    hubAdmin: hub.admin,
    spokeAdmin: spoke.admin,
    async stop() {
      await hub.stop();
      if (spoke !== hub) await spoke.stop();
    },
  };
}

function acceptedCondition(): Condition {
  return { type: 'HubAcceptedManagedCluster', status: 'True', reason: 'HubClusterAdminAccepted', message: 'Accepted by hub cluster admin', lastTransitionTime: rfc3339(new Date()) };
}

/**
 * Accepts the cluster as the hub admin and the hub controller would: creates the ManagedCluster if
 * missing, sets spec.hubAcceptsClient (also on a cluster the agent created unaccepted) plus `spec`,
 * then the HubAccepted condition (and `extraConditions`).
 */
export async function createAcceptedCluster(hubAdmin: KubeClient, name: string, spec: Partial<ManagedCluster['spec']> = {}, extraConditions: Condition[] = []): Promise<ManagedCluster> {
  const clusters = hubAdmin.resource<ManagedCluster>(resourceTypes.managedClusters);
  let mc: ManagedCluster;
  try {
    mc = await clusters.get(name);
  } catch (err) {
    if (!isNotFound(err)) throw err;
    mc = await clusters.create({ apiVersion: 'cluster.open-cluster-management.io/v1', kind: 'ManagedCluster', metadata: { name }, spec: { hubAcceptsClient: true } });
  }
  mc.spec = { ...mc.spec, hubAcceptsClient: true, ...spec };
  await clusters.update(mc);
  return patchConditions(hubAdmin, name, [acceptedCondition(), ...extraConditions]);
}

/** Upserts conditions on the ManagedCluster status (admin). */
export async function patchConditions(hubAdmin: KubeClient, name: string, conditions: Condition[]): Promise<ManagedCluster> {
  const clusters = hubAdmin.resource<ManagedCluster>(resourceTypes.managedClusters);
  const mc = await clusters.get(name);
  const list = (mc.status?.conditions ?? []).filter((c) => !conditions.some((n) => n.type === c.type));
  mc.status = { ...(mc.status ?? {}), conditions: [...list, ...conditions] };
  return clusters.updateStatus(mc);
}

export async function ensureNamespace(client: KubeClient, name: string): Promise<void> {
  try {
    await client.resource<Namespace>(resourceTypes.namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
}

/** Namespace `<cluster>` and Lease `managed-cluster-lease` in it, as the hub controller creates them. */
export async function createClusterLease(hubAdmin: KubeClient, cluster: string, renewTime = '2020-01-01T00:00:00.000000Z'): Promise<Lease> {
  await ensureNamespace(hubAdmin, cluster);
  return hubAdmin.resource<Lease>(resourceTypes.leases, cluster).create({
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: 'managed-cluster-lease', namespace: cluster, labels: { 'open-cluster-management.io/cluster-name': cluster } },
    spec: { holderIdentity: 'managed-cluster-lease', renewTime },
  });
}
