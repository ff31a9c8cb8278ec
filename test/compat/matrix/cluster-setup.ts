// Setting up a hub or spoke the way an OCM admin does, identically on a real kube-apiserver and on
// ours: the CRDs from manifests/crds, the bootstrap ClusterRole and binding from deploy/hub, bootstrap
// tokens as kube-system secrets, kubeconfigs that carry a token.
import { readFileSync, writeFileSync } from 'node:fs';
import { parseYamlDocuments, toYaml } from '../../../src/util/yaml.js';
import type { KubeObject } from '../../../src/api/meta.js';
import { loadCrds } from '../../../src/api/crds.js';
import { resourceTypes } from '../../../src/client/resource-types.js';
import type { KubeClient, ResourceType } from '../../../src/client/types.js';
import { installCrds } from '../../../src/hub/install-crds.js';
import { realClock } from '../../../src/util/clock.js';

const repoFile = (rel: string): string => new URL(`../../../${rel}`, import.meta.url).pathname;

const typeByKind: Record<string, ResourceType> = {
  Namespace: resourceTypes.namespaces,
  ServiceAccount: resourceTypes.serviceAccounts,
  ClusterRole: resourceTypes.clusterRoles,
  ClusterRoleBinding: resourceTypes.clusterRoleBindings,
  Role: resourceTypes.roles,
  RoleBinding: resourceTypes.roleBindings,
  Secret: resourceTypes.secrets,
  ConfigMap: resourceTypes.configMaps,
};

/** Creates each object, or replaces it when it exists (the effect of `kubectl apply` for these kinds). */
export async function applyObjects(client: KubeClient, objs: readonly KubeObject[]): Promise<void> {
  for (const obj of objs) {
    const type = typeByKind[obj.kind ?? ''];
    if (!type) throw new Error(`applyObjects: no resource for kind ${String(obj.kind)}`);
    const rc = client.resource(type, type.namespaced ? obj.metadata.namespace : undefined);
    try {
      await rc.create(obj);
    } catch (err) {
      if ((err as { code?: number }).code !== 409) throw err;
      const live = await rc.get(obj.metadata.name!);
      await rc.update({ ...obj, metadata: { ...obj.metadata, resourceVersion: live.metadata.resourceVersion } });
    }
  }
}

/** Objects of a deploy/ manifest, filtered. */
function manifestObjects(rel: string, keep: (o: KubeObject) => boolean = () => true): KubeObject[] {
  return (parseYamlDocuments(readFileSync(repoFile(rel), 'utf8')) as Array<KubeObject | null>)
    .filter((o): o is KubeObject => o !== null && typeof o === 'object')
    .filter(keep);
}

/** The hub CRDs plus the bootstrap ClusterRole and its binding to the bootstrap group, from our manifests. */
export async function installHubBasics(admin: KubeClient): Promise<void> {
  await installCrds(admin, loadCrds([
    'managedclusters.cluster.open-cluster-management.io',
    'managedclustersets.cluster.open-cluster-management.io',
    'managedclustersetbindings.cluster.open-cluster-management.io',
    'managedclusteraddons.addon.open-cluster-management.io',
    'clustermanagementaddons.addon.open-cluster-management.io',
  ]), { clock: realClock, timeoutMs: 60_000 });
  await applyObjects(admin, manifestObjects('deploy/hub/hub.yaml', (o) => o.metadata.name === 'open-cluster-management:bootstrap'));
}

/** The CRDs a managed cluster needs for claims (the agent waits for them). */
export async function installSpokeBasics(admin: KubeClient): Promise<void> {
  await installCrds(admin, loadCrds(['clusterclaims.cluster.open-cluster-management.io', 'clusterproperties.about.k8s.io']), { clock: realClock, timeoutMs: 60_000 });
}

export interface BootstrapToken {
  id: string;
  secret: string;
  /** The user name the API server gives its holder. */
  user: string;
}

/** A bootstrap token in the managed-cluster bootstrap group, valid for `ttlMs`. */
export async function createBootstrapToken(admin: KubeClient, id: string, secret: string, ttlMs = 24 * 3600_000): Promise<BootstrapToken> {
  await applyObjects(admin, [
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: `bootstrap-token-${id}`, namespace: 'kube-system' },
      type: 'bootstrap.kubernetes.io/token',
      stringData: {
        'token-id': id,
        'token-secret': secret,
        'usage-bootstrap-authentication': 'true',
        'auth-extra-groups': 'system:bootstrappers:managedcluster',
        expiration: new Date(Date.now() + ttlMs).toISOString().replace(/\.\d+Z$/, 'Z'),
      },
    } as KubeObject,
  ]);
  return { id, secret, user: `system:bootstrap:${id}` };
}

/** A kubeconfig holding a bearer token and the CA inline, as a bootstrap kubeconfig does. */
export function writeTokenKubeconfig(path: string, server: string, caPem: string, token: string): void {
  const doc = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'hub', cluster: { server, 'certificate-authority-data': Buffer.from(caPem).toString('base64') } }],
    users: [{ name: 'bootstrap', user: { token } }],
    contexts: [{ name: 'bootstrap', context: { cluster: 'hub', user: 'bootstrap' } }],
    'current-context': 'bootstrap',
  };
  writeFileSync(path, toYaml(doc), { mode: 0o600 });
}
