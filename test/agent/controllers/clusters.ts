// Hub + spoke embedded API servers for the controller integration tests: OCM CRDs installed with the
// admin client (hub CRDs on the hub, ClusterClaim/ClusterProperty on the spoke), admin KubeClients,
// and helpers to play the hub controller's part (accept a cluster, create its lease).

import { HUB_CRD_NAMES, SPOKE_CRD_NAMES, loadCrds } from '../../../src/api/crds.js';
import type { ManagedCluster } from '../../../src/api/cluster.js';
import type { Lease, Namespace } from '../../../src/api/core.js';
import type { Condition } from '../../../src/api/meta.js';
import { createKubeClient } from '../../../src/client/rest-client.js';
import { resourceTypes } from '../../../src/client/resource-types.js';
import { isNotFound } from '../../../src/client/errors.js';
import type { KubeClient } from '../../../src/client/types.js';
import { startTestApiServer, type TestApiServer } from '../../helpers/embedded-server.js';
import { waitFor } from '../../helpers/wait-for.js';

export interface Clusters {
  hub: TestApiServer;
  spoke: TestApiServer;
  hubAdmin: KubeClient;
  spokeAdmin: KubeClient;
  stop(): Promise<void>;
}

async function installCrds(client: KubeClient, names: readonly string[]): Promise<void> {
  const crds = client.resource(resourceTypes.customResourceDefinitions);
  for (const crd of loadCrds(names)) await crds.create(crd);
  // served once discovery lists them
  for (const crd of loadCrds(names)) {
    const spec = crd['spec'] as { group: string; names: { plural: string }; versions: { name: string }[] };
    for (const v of spec.versions) {
      await waitFor(async () => {
        try {
          await client.request('GET', `/apis/${spec.group}/${v.name}/${spec.names.plural}?limit=1`);
          return true;
        } catch {
          return false;
        }
      }, 10_000);
    }
  }
}

export async function startClusters(opts: { spoke?: boolean } = {}): Promise<Clusters> {
  const hub = await startTestApiServer();
  const spoke = opts.spoke === false ? hub : await startTestApiServer();
  const hubAdmin = createKubeClient({ kubeconfigPath: hub.adminKubeconfigPath });
  const spokeAdmin = opts.spoke === false ? hubAdmin : createKubeClient({ kubeconfigPath: spoke.adminKubeconfigPath });
  await installCrds(hubAdmin, HUB_CRD_NAMES);
  if (opts.spoke !== false) await installCrds(spokeAdmin, SPOKE_CRD_NAMES);
  return {
    hub,
    spoke,
    hubAdmin,
    spokeAdmin,
    async stop() {
      hubAdmin.close();
      spokeAdmin.close();
      await hub.stop();
      if (spoke !== hub) await spoke.stop();
    },
  };
}

export function acceptedCondition(): Condition {
  return { type: 'HubAcceptedManagedCluster', status: 'True', reason: 'HubClusterAdminAccepted', message: 'Accepted by hub cluster admin', lastTransitionTime: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z') };
}

/** Creates the ManagedCluster (if missing), then sets spec and HubAccepted as the hub controller would. */
export async function createAcceptedCluster(hubAdmin: KubeClient, name: string, spec: Partial<ManagedCluster['spec']> = {}, extraConditions: Condition[] = []): Promise<ManagedCluster> {
  const clusters = hubAdmin.resource<ManagedCluster>(resourceTypes.managedClusters);
  let mc: ManagedCluster;
  try {
    mc = await clusters.get(name);
  } catch (err) {
    if (!isNotFound(err)) throw err;
    mc = await clusters.create({ apiVersion: 'cluster.open-cluster-management.io/v1', kind: 'ManagedCluster', metadata: { name }, spec: { hubAcceptsClient: true } });
  }
  mc.spec = { hubAcceptsClient: true, ...mc.spec, ...spec };
  mc = await clusters.update(mc);
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
    if (!(err instanceof Error && /already exists/i.test(err.message))) throw err;
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
