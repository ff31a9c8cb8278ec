// Addon registration controller I with the credential controller J using the token driver, against
// real hub and spoke (spoke-agent.md §15.2–§15.6, §18.10, §18.13; api-objects.md §6, §10.4).
// The agent runs with a hub identity of its own (cluster groups, the hub's registration RBAC). The
// test plays the addon manager's part: it creates ServiceAccount `<addon>-agent` in the cluster
// namespace, a Role/RoleBinding letting the cluster's group create its token, and sets
// TokenInfrastructureReady. Expected: driver `token` and the token subject written on the addon;
// secret `<addon>-hub-kubeconfig` with `kubeconfig` (tokenFile: token), `token`, `cluster-name`;
// the token authenticates to the hub as the ServiceAccount; TokenRefreshed True; the secret is
// deleted when the registration goes away.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { setMaxListeners } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ManagedClusterAddOn } from '../../../src/api/addon.js';
import type { ClusterRole, Role, RoleBinding, Secret } from '../../../src/api/core.js';
import type { Condition, KubeObject } from '../../../src/api/meta.js';
import { findCondition } from '../../../src/api/conditions.js';
import { createInformerFactory } from '../../../src/client/informer-factory.js';
import { createKubeClient } from '../../../src/client/rest-client.js';
import { ApiStatusError } from '../../../src/client/errors.js';
import { resourceTypes } from '../../../src/client/resource-types.js';
import type { KubeClient } from '../../../src/client/types.js';
import { nullLogger } from '../../../src/util/logger.js';
import { clusterRoleBindings, commonClusterRoles } from '../../../src/hub/rbac-manifests.js';
import { createAddonRegistrationController, createAddonRegistrationStarter } from '../../../src/agent/addon/index.js';
import { ensureNamespace, startClusters, type Clusters } from './clusters.js';
import { agentGroups, agentUser, clientAs } from '../../helpers/identities.js';
import { getIfExists } from '../../helpers/objects.js';
import { waitFor } from '../../helpers/wait-for.js';

let env: Clusters;
let agentHub: KubeClient;
const CLUSTER = 'token-cluster';
const ADDON = 'helloworld';
const SA = `${ADDON}-agent`;
const SA_USER = `system:serviceaccount:${CLUSTER}:${SA}`;
const ADDON_NS = 'open-cluster-management-agent-addon';

before(async () => {
  env = await startClusters();
  await ensureNamespace(env.hubAdmin, CLUSTER);
  await ensureNamespace(env.spokeAdmin, ADDON_NS);
  // The hub's RBAC for an accepted cluster that the addon controllers use (addons get/list/watch,
  // addons/status patch), as the hub controller would apply it.
  const [registrationRole] = commonClusterRoles({});
  const [registrationBinding] = clusterRoleBindings(CLUSTER, {});
  await env.hubAdmin.resource<ClusterRole>(resourceTypes.clusterRoles).create(registrationRole);
  await env.hubAdmin.resource<RoleBinding>(resourceTypes.roleBindings, CLUSTER).create(registrationBinding);
  agentHub = await clientAs(env.hub, agentUser(CLUSTER), agentGroups(CLUSTER));
});
after(async () => {
  agentHub?.close();
  await env?.stop();
});

/** The addon manager's part: the ServiceAccount and the right to create its token. Returns the SA uid. */
async function createTokenInfrastructure(): Promise<string> {
  const sa = await env.hubAdmin.resource<KubeObject>(resourceTypes.serviceAccounts, CLUSTER).create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: SA, namespace: CLUSTER } });
  await env.hubAdmin.resource<Role>(resourceTypes.roles, CLUSTER).create({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: `${ADDON}-token-requester`, namespace: CLUSTER },
    rules: [{ apiGroups: [''], resources: ['serviceaccounts/token'], resourceNames: [SA], verbs: ['create'] }],
  });
  await env.hubAdmin.resource<RoleBinding>(resourceTypes.roleBindings, CLUSTER).create({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: `${ADDON}-token-requester`, namespace: CLUSTER },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: `${ADDON}-token-requester` },
    subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: `system:open-cluster-management:${CLUSTER}` }],
  });
  assert.ok(sa.metadata.uid);
  return sa.metadata.uid;
}

/** Changes the addon status as the hub admin, retrying conflicts with the agent's patches. */
async function updateAddonStatus(change: (a: ManagedClusterAddOn) => void): Promise<void> {
  const addons = env.hubAdmin.resource<ManagedClusterAddOn>(resourceTypes.managedClusterAddOns, CLUSTER);
  await waitFor(async () => {
    const a = await addons.get(ADDON);
    change(a);
    try {
      await addons.updateStatus(a);
      return true;
    } catch (err) {
      if (err instanceof ApiStatusError && err.code === 409) return false;
      throw err;
    }
  }, 10_000);
}

function setAddonCondition(cond: Condition): Promise<void> {
  return updateAddonStatus((a) => {
    const rest = (a.status?.conditions ?? []).filter((c) => c.type !== cond.type);
    a.status = { ...(a.status ?? {}), conditions: [...rest, { ...cond, lastTransitionTime: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z') }] };
  });
}

test('token driver: token requested once TokenInfrastructureReady, secret written, token authenticates as the ServiceAccount, secret deleted when unregistered', async () => {
  const addons = env.hubAdmin.resource<ManagedClusterAddOn>(resourceTypes.managedClusterAddOns, CLUSTER);
  await addons.create({ apiVersion: 'addon.open-cluster-management.io/v1beta1', kind: 'ManagedClusterAddOn', metadata: { name: ADDON, namespace: CLUSTER }, spec: {} });
  let a = await addons.get(ADDON);
  a.status = { registrations: [{ type: 'kubeClient', kubeClient: { subject: { user: 'someone', groups: ['some-group'] } } }] };
  await addons.updateStatus(a);

  const ac = new AbortController();
  setMaxListeners(100, ac.signal);
  const hubInformers = createInformerFactory(agentHub);
  const startRegistration = createAddonRegistrationStarter({
    hubClient: agentHub,
    hubInformers,
    spokeClient: env.spokeAdmin,
    bootstrapKubeconfigPath: env.hub.adminKubeconfigPath,
    addonTokenExpirationSeconds: 3600,
    log: nullLogger(),
  });
  const i = createAddonRegistrationController({
    clusterName: CLUSTER,
    hubClient: agentHub,
    hubInformers,
    spokeClient: env.spokeAdmin,
    addonKubeClientRegistrationAuth: 'token',
    startRegistration,
    log: nullLogger(),
  });
  hubInformers.start(ac.signal);
  const running = i.run(ac.signal);
  const secrets = env.spokeAdmin.resource<Secret>(resourceTypes.secrets, ADDON_NS);
  const secretName = `${ADDON}-hub-kubeconfig`;
  const dir = await mkdtemp(join(tmpdir(), 'ocm-ts-addon-token-'));
  try {
    // driver and the token subject written on the addon by the agent (groups dropped)
    a = await waitFor(async () => {
      const x = await addons.get(ADDON);
      const kc = x.status?.registrations?.[0]?.kubeClient;
      return kc?.driver === 'token' && kc.subject?.user === SA_USER ? x : undefined;
    }, 10_000);
    assert.deepEqual(a.status?.registrations?.[0]?.kubeClient?.subject, { user: SA_USER });
    assert.equal(findCondition(a.status?.conditions, 'TokenRefreshed'), undefined, 'no token before the infrastructure is ready');

    const uid = await createTokenInfrastructure();
    await setAddonCondition({ type: 'TokenInfrastructureReady', status: 'True', reason: 'TokenInfrastructureReady', message: `ServiceAccount ${CLUSTER}/${SA} (UID: ${uid}) is ready` });

    const secret = await waitFor(async () => {
      const s = await secrets.get(secretName);
      return s.data?.['token'] ? s : undefined;
    }, 15_000, { message: 'token secret' });
    assert.deepEqual(Object.keys(secret.data ?? {}).sort(), ['cluster-name', 'kubeconfig', 'token']);
    assert.equal(Buffer.from(secret.data!['cluster-name']!, 'base64').toString(), CLUSTER);
    const kubeconfig = Buffer.from(secret.data!['kubeconfig']!, 'base64').toString();
    assert.ok(kubeconfig.includes(env.hub.url), 'kubeconfig targets the bootstrap hub');
    assert.match(kubeconfig, /tokenFile: token/);
    assert.doesNotMatch(kubeconfig, /tls\.crt|tls\.key/);

    // the token claims: the ServiceAccount, its uid, the requested lifetime
    const token = Buffer.from(secret.data!['token']!, 'base64').toString();
    const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { sub: string; exp: number; iat: number; 'kubernetes.io': { serviceaccount: { uid: string } } };
    assert.equal(claims.sub, SA_USER);
    assert.equal(claims['kubernetes.io'].serviceaccount.uid, uid);
    assert.equal(claims.exp - claims.iat, 3600);

    // the stored kubeconfig + token authenticate to the hub as the ServiceAccount
    await writeFile(join(dir, 'kubeconfig'), kubeconfig, { mode: 0o600 });
    await writeFile(join(dir, 'token'), token, { mode: 0o600 });
    const asAddon = createKubeClient({ kubeconfigPath: join(dir, 'kubeconfig') });
    try {
      await assert.rejects(asAddon.resource(resourceTypes.managedClusters).list(), (err: unknown) => {
        assert.ok(err instanceof ApiStatusError);
        assert.equal(err.code, 403);
        assert.ok(err.message.includes(`User "${SA_USER}"`), 'forbidden as the ServiceAccount, i.e. authenticated as it');
        return true;
      });
    } finally {
      asAddon.close();
    }

    const refreshed = await waitFor(async () => findCondition((await addons.get(ADDON)).status?.conditions, 'TokenRefreshed'), 10_000);
    assert.equal(refreshed.status, 'True');
    assert.equal(refreshed.reason, 'AddonTokenRefreshed');
    assert.match(refreshed.message, /^Addon token refreshed, expires at \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);

    // registration removed → secret deleted
    await updateAddonStatus((x) => {
      x.status = { ...x.status, registrations: [] };
    });
    // the secret is deleted, then the registration forgotten
    await waitFor(async () => (await getIfExists(secrets, secretName)) === undefined && i.registrations.state().size === 0, 10_000, { message: 'secret deleted, registration gone' });
  } finally {
    ac.abort();
    await running;
    await rm(dir, { recursive: true, force: true });
  }
});
