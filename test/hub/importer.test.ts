// The cluster importer end to end: a hub (embedded API server, hub controllers with ClusterImporter)
// and a spoke (another embedded API server). A Cluster API Cluster and its `<name>-kubeconfig` Secret
// (the spoke's admin kubeconfig) make the hub install our agent on the spoke; an agent started with
// the arguments of the Deployment it wrote then joins the hub with the bootstrap token it was given.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ManagedCluster } from '../../src/api/cluster.js';
import { findCondition } from '../../src/api/conditions.js';
import type { Secret } from '../../src/api/core.js';
import type { KubeObject } from '../../src/api/meta.js';
import type { SpokeAgentOptions } from '../../src/agent/options/agent-options.js';
import { startSpokeAgent, type SpokeAgentHandle } from '../../src/agent/spoke-agent.js';
import { buildAgentCommand } from '../../src/cli/agent-command.js';
import { createKubeClient } from '../../src/client/rest-client.js';
import { resourceTypes } from '../../src/client/resource-types.js';
import type { KubeClient, ResourceType } from '../../src/client/types.js';
import { CAPI_CLUSTERS } from '../../src/hub/importer/capi-provider.js';
import { installCrds } from '../../src/hub/install-crds.js';
import { bootstrapClusterRole } from '../../src/hub/rbac-manifests.js';
import { realClock } from '../../src/util/clock.js';
import { startTestApiServer, type TestApiServer } from '../helpers/embedded-server.js';
import { testLogger } from '../helpers/test-log.js';
import { waitFor } from '../helpers/wait-for.js';
import { CAPI_CLUSTER_CRD } from './fixtures/capi-cluster-crd.js';
import { startHubFixture, type HubFixture } from './hub-fixture.js';

const BOOTSTRAP_USER = 'system:serviceaccount:open-cluster-management:agent-registration-bootstrap';
const DEPLOYMENTS: ResourceType = { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespaced: true };

let fx: HubFixture;
let spoke: TestApiServer;
let spokeAdmin: KubeClient;
let dir: string;
const agents: SpokeAgentHandle[] = [];

before(async () => {
  fx = await startHubFixture({ hub: false });
  await installCrds(fx.admin, [CAPI_CLUSTER_CRD], { clock: realClock });
  // What OCM's cluster-manager provides: the bootstrap service account, bound to the bootstrap role.
  await fx.admin.resource(resourceTypes.clusterRoles).create(bootstrapClusterRole());
  await fx.admin.resource(resourceTypes.namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'open-cluster-management' } });
  await fx.admin.resource(resourceTypes.serviceAccounts, 'open-cluster-management').create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'agent-registration-bootstrap' } });
  await fx.admin.resource(resourceTypes.clusterRoleBindings).create({
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'agent-registration-bootstrap' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'open-cluster-management:bootstrap' },
    subjects: [{ kind: 'ServiceAccount', name: 'agent-registration-bootstrap', namespace: 'open-cluster-management' }],
  });
  await fx.startHub({
    featureGates: ['ClusterImporter=true', 'ManagedClusterAutoApproval=true'],
    autoApprovedCsrUsers: [BOOTSTRAP_USER],
    importer: { renderers: ['render-auto'], agentImage: 'registry.example/ocm-ts:test', kubeconfigRetryMs: 200 },
  });
  spoke = await startTestApiServer();
  spokeAdmin = createKubeClient({ kubeconfigPath: spoke.adminKubeconfigPath });
  dir = await mkdtemp(join(tmpdir(), 'ocm-ts-importer-'));
});

after(async () => {
  await Promise.all(agents.map((a) => a.stop()));
  spokeAdmin.close();
  await spoke.stop();
  await fx.stop();
  await rm(dir, { recursive: true, force: true });
});

async function createCapiCluster(namespace: string, name: string, phase: string, kubeconfig?: string): Promise<void> {
  await fx.admin.resource(resourceTypes.namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }).catch(() => undefined);
  await fx.admin.resource(CAPI_CLUSTERS, namespace).create({ apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Cluster', metadata: { name }, spec: {}, status: { phase } });
  if (kubeconfig !== undefined) await createKubeconfigSecret(namespace, name, kubeconfig);
}

async function createKubeconfigSecret(namespace: string, name: string, kubeconfig: string): Promise<void> {
  await fx.admin.resource<Secret>(resourceTypes.secrets, namespace).create({
    apiVersion: 'v1', kind: 'Secret', metadata: { name: `${name}-kubeconfig` }, data: { value: Buffer.from(kubeconfig).toString('base64') },
  });
}

async function createManagedCluster(name: string, annotations?: Record<string, string>): Promise<void> {
  await fx.admin.resource<ManagedCluster>(resourceTypes.managedClusters).create({
    apiVersion: 'cluster.open-cluster-management.io/v1', kind: 'ManagedCluster',
    metadata: { name, ...(annotations ? { annotations } : {}) }, spec: { hubAcceptsClient: true },
  });
}

/** Waits for the import condition to have `reason`; returns the condition. */
async function importCondition(name: string, reason: string, timeoutMs = 15_000): Promise<{ status: string; message: string }> {
  const rc = fx.admin.resource<ManagedCluster>(resourceTypes.managedClusters);
  return waitFor(async () => {
    const c = findCondition((await rc.get(name)).status?.conditions, 'ManagedClusterImportSucceeded');
    return c?.reason === reason ? c : undefined;
  }, timeoutMs, { message: `${name}: ManagedClusterImportSucceeded ${reason}`, intervalMs: 50 });
}

interface PodSpec {
  containers: { args: string[]; image: string; volumeMounts: { name: string; mountPath: string }[] }[];
  volumes: { name: string; secret?: { secretName: string }; emptyDir?: unknown }[];
}

/**
 * The Deployment's container arguments, run here as the kubelet would run them: each mounted
 * volume becomes a local folder (a Secret's keys as files), and the in-cluster service account
 * becomes the spoke's admin kubeconfig. Health is served on a free port without delegated auth,
 * which the embedded server cannot answer.
 */
async function agentArgsFromDeployment(deployment: KubeObject): Promise<{ args: string[]; mounts: Map<string, string> }> {
  const pod = (deployment as unknown as { spec: { template: { spec: PodSpec } } }).spec.template.spec;
  assert.equal(pod.containers.length, 1);
  const container = pod.containers[0]!;
  assert.equal(container.image, 'registry.example/ocm-ts:test');
  const mounts = new Map<string, string>();
  for (const m of container.volumeMounts) {
    const local = join(dir, m.name);
    await mkdir(local, { recursive: true });
    const volume = pod.volumes.find((v) => v.name === m.name)!;
    if (volume.secret) {
      const s = await spokeAdmin.resource<Secret>(resourceTypes.secrets, 'open-cluster-management-agent').get(volume.secret.secretName);
      for (const [k, v] of Object.entries(s.data ?? {})) await writeFile(join(local, k), Buffer.from(v, 'base64'), { mode: 0o600 });
    }
    mounts.set(m.mountPath, local);
  }
  const remap = (a: string): string => {
    for (const [from, to] of mounts) if (a.includes(from)) return a.replace(from, to);
    return a;
  };
  return { args: container.args.map(remap), mounts };
}

async function parseAgentArgs(args: string[]): Promise<SpokeAgentOptions> {
  let got: SpokeAgentOptions | undefined;
  const cmd = buildAgentCommand(async (o) => {
    got = o;
  });
  cmd.exitOverride();
  await cmd.parseAsync(args, { from: 'user' });
  assert.ok(got);
  return got;
}

test('imports a Provisioned CAPI cluster: the agent is installed on it, and started from its Deployment it joins', async () => {
  await createCapiCluster('capi-1', 'capi-1', 'Provisioned', await readFile(spoke.adminKubeconfigPath, 'utf8'));
  await createManagedCluster('capi-1');
  const cond = await importCondition('capi-1', 'ImportSucceed');
  assert.equal(cond.status, 'True');

  // What the importer installed on the spoke.
  const ns = 'open-cluster-management-agent';
  await spokeAdmin.resource(resourceTypes.serviceAccounts, ns).get('klusterlet-registration-sa');
  await spokeAdmin.resource(resourceTypes.clusterRoleBindings).get('open-cluster-management:klusterlet-registration:agent');
  const bootstrap = await spokeAdmin.resource<Secret>(resourceTypes.secrets, ns).get('bootstrap-hub-kubeconfig');
  const bootstrapText = Buffer.from(bootstrap.data?.['kubeconfig'] ?? '', 'base64').toString();
  assert.match(bootstrapText, new RegExp(`server: ${fx.server.url}`));
  assert.match(bootstrapText, /token: /);
  const deployment = await spokeAdmin.resource(DEPLOYMENTS, ns).get('klusterlet-registration-agent');

  const { args, mounts } = await agentArgsFromDeployment(deployment);
  assert.equal(args[0], 'agent', 'the image runs `ocm-ts agent ...`');
  assert.ok(args.includes('--spoke-cluster-name=capi-1'), args.join(' '));
  const options = await parseAgentArgs([
    ...args.slice(1),
    // The pod's environment: in-cluster credentials, the agent's default hub kubeconfig folder
    // (an emptyDir mount), a free port; faster polling than production.
    `--kubeconfig=${spoke.adminKubeconfigPath}`,
    `--hub-kubeconfig-dir=${mounts.get('/spoke/hub-kubeconfig') ?? join(dir, 'hub-kubeconfig')}`,
    '--listen=127.0.0.1:0', '--metrics-auth=none',
    '--bootstrap-poll-period=100ms', '--cluster-healthcheck-period=1s',
  ]);
  assert.equal(options.clusterName, 'capi-1');
  const agent = await startSpokeAgent({ options, log: testLogger(), defaultMetrics: false });
  agents.push(agent);

  const rc = fx.admin.resource<ManagedCluster>(resourceTypes.managedClusters);
  const joined = await waitFor(async () => {
    const mc = await rc.get('capi-1');
    return findCondition(mc.status?.conditions, 'ManagedClusterJoined')?.status === 'True' ? mc : undefined;
  }, 30_000, { message: 'capi-1 joined', intervalMs: 100 });
  assert.equal(findCondition(joined.status?.conditions, 'ManagedClusterImportSucceeded')?.status, 'True');
  const csrs = await fx.admin.resource(resourceTypes.certificateSigningRequests).list({ labelSelector: 'open-cluster-management.io/cluster-name=capi-1' });
  assert.equal((csrs.items[0] as KubeObject & { spec: { username: string } }).spec.username, BOOTSTRAP_USER, 'the agent bootstrapped with the token the importer gave it');
});

test('a missing kubeconfig Secret is KubeConfigGetFailed, looked for again, and imported once it exists (annotated Cluster)', async () => {
  await createCapiCluster('capi-ns', 'cluster-b', 'Provisioned');
  await createManagedCluster('capi-2', { 'cluster.x-k8s.io/cluster': 'capi-ns/cluster-b' });
  const failed = await importCondition('capi-2', 'KubeConfigGetFailed');
  assert.equal(failed.status, 'False');
  assert.match(failed.message, /^failed to get kubeconfig\. See errors:\nkubeconfig secret capi-ns\/cluster-b-kubeconfig is not found$/);
  await createKubeconfigSecret('capi-ns', 'cluster-b', await readFile(spoke.adminKubeconfigPath, 'utf8'));
  assert.equal((await importCondition('capi-2', 'ImportSucceed')).status, 'True');
});

test('failures: not Provisioned is KubeConfigNotFound; a bad kubeconfig KubeConfigGetFailed; an unreachable cluster ImportFailed', async () => {
  await createCapiCluster('capi-3', 'capi-3', 'Provisioning', await readFile(spoke.adminKubeconfigPath, 'utf8'));
  await createManagedCluster('capi-3');
  assert.equal((await importCondition('capi-3', 'KubeConfigNotFound')).message, 'Secret for kubeconfig is not found.');

  await createCapiCluster('capi-4', 'capi-4', 'Provisioned', 'this: is: not a kubeconfig');
  await createManagedCluster('capi-4');
  assert.match((await importCondition('capi-4', 'KubeConfigGetFailed')).message, /^failed to get kubeconfig\. See errors:\ninvalid kubeconfig/);

  await createCapiCluster('capi-5', 'capi-5', 'Provisioned', [
    'apiVersion: v1', 'kind: Config', 'current-context: c',
    'clusters: [{ name: k, cluster: { server: "https://127.0.0.1:1", insecure-skip-tls-verify: true } }]',
    'contexts: [{ name: c, context: { cluster: k, user: u } }]', 'users: [{ name: u, user: { token: t } }]',
  ].join('\n'));
  await createManagedCluster('capi-5');
  assert.match((await importCondition('capi-5', 'ImportFailed')).message, /^failed to import the klusterlet\. See errors:\nNamespace open-cluster-management-agent: /);

  // Ready later: the Cluster's update brings the ManagedCluster back.
  await fx.admin.resource(CAPI_CLUSTERS, 'capi-3').patch('capi-3', 'merge', { status: { phase: 'Provisioned' } });
  assert.equal((await importCondition('capi-3', 'ImportSucceed')).status, 'True');
});

test('a cluster no CAPI Cluster provides is left alone', async () => {
  await createManagedCluster('plain');
  await new Promise((r) => setTimeout(r, 300));
  const mc = await fx.admin.resource<ManagedCluster>(resourceTypes.managedClusters).get('plain');
  assert.equal(findCondition(mc.status?.conditions, 'ManagedClusterImportSucceeded'), undefined);
});
