// The scenarios of one cell (a hub × an agent on a spoke), grouped into tracks: each track is one
// agent (one managed cluster) going through its steps in order, and the tracks of a cell run in
// parallel. A step that cannot run because an earlier one failed is reported as failed ("blocked").
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { KubeObject } from '../../../src/api/meta.js';
import { exitCode, startChild } from '../infra/child-process.js';
import { waitUntil } from '../infra/wait-until.js';
import { createAgent, type Agent, type AgentKind } from './agents.js';
import {
  ACCEPTED,
  AVAILABLE,
  CLOCK_SYNCED,
  CLUSTER_CLAIMS,
  CLUSTER_MANAGEMENT_ADDONS,
  CLUSTER_ROLE_BINDINGS,
  CSRS,
  JOINED,
  MANAGED_CLUSTER_ADDONS,
  MANAGED_CLUSTER_ADDONS_V1BETA1,
  MANAGED_CLUSTERS,
  NAMESPACES,
  ROLE_BINDINGS,
  SECRETS,
  allOf,
  conditionsOf,
  getOrUndefined,
  hasCondition,
  hubKubeconfigSecret,
  waitCluster,
} from './checks.js';
import { applyObjects, writeTokenKubeconfig } from './cluster-setup.js';
import type { Hub } from './hubs.js';
import { ocmTsCommand } from './ocm-ts-cli.js';
import type { Spoke } from './spokes.js';

const run = promisify(execFile);

export const SCENARIOS = [
  'join: ocm-ts accept',
  'join: kubectl approve + patch',
  'join: auto-approval',
  'conditions',
  'cluster claims',
  'addon (kubeClient)',
  'lease stopped → Unknown → back',
  'certificate rotation',
  'hubAcceptsClient=false',
  'cluster deleted on hub',
  'bootstrap replaced',
] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

export interface StepOutcome {
  status: 'pass' | 'fail' | 'n/a';
  detail: string;
  seconds: number;
}

export interface CellEnv {
  hub: Hub;
  agentKind: AgentKind;
  cellDir: string;
  /** Short, unique within the run: cluster names start with it. */
  prefix: string;
  kubectl: string;
  ocmRegistration: string;
  /** A spoke for one agent, and the namespace that agent uses on it. */
  spokeFor(track: string): Promise<{ spoke: Spoke; namespace: string }>;
  /** Tracks to run; others are N/A with this reason. */
  onlyTracks?: { names: readonly string[]; reason: string };
  log(line: string): void;
}

interface TrackState {
  env: CellEnv;
  agent: Agent;
  cluster: string;
}

interface Track {
  name: string;
  token: 'manual' | 'auto' | 'invalid-then-auto';
  steps: Array<{ scenario: ScenarioName; run(t: TrackState): Promise<string | void> }>;
}

const JOIN_TIMEOUT = 120_000;
const joinedAndAvailable = allOf(hasCondition(ACCEPTED, 'True'), hasCondition(JOINED, 'True'), hasCondition(AVAILABLE, 'True'));

async function kubectl(env: CellEnv, args: string[]): Promise<string> {
  const { stdout } = await run(env.kubectl, [`--kubeconfig=${env.hub.adminKubeconfigPath}`, ...args], { timeout: 60_000 });
  return stdout;
}

async function waitJoined(t: TrackState): Promise<void> {
  await waitCluster(t.env.hub.admin, t.cluster, 'Joined and Available', JOIN_TIMEOUT, joinedAndAvailable);
  await waitUntil(`${t.cluster}: hub kubeconfig secret on the spoke`, 30_000, () => hubKubeconfigSecret(t.agent.spoke.admin, t.agent.namespace));
}

async function pendingCsr(t: TrackState, labels: string): Promise<string> {
  const csr = await waitUntil(`${t.cluster}: a pending CSR (${labels})`, JOIN_TIMEOUT, async () => {
    const list = await t.env.hub.admin.resource(CSRS).list({ labelSelector: labels });
    return list.items.find((c) => conditionsOf(c).length === 0);
  }, 250);
  return csr.metadata.name!;
}

const joinByOcmTsAccept = async (t: TrackState): Promise<void> => {
  await waitUntil(`${t.cluster}: ManagedCluster created`, JOIN_TIMEOUT, () => getOrUndefined(t.env.hub.admin, MANAGED_CLUSTERS, t.cluster), 250);
  const accept = startChild({
    name: `accept-${t.cluster}`,
    ...ocmTsCommand(['accept', t.cluster, `--kubeconfig=${t.env.hub.adminKubeconfigPath}`, '--wait', '--timeout=2m']),
    logPath: join(t.env.cellDir, `accept-${t.cluster}.log`),
  });
  const code = await exitCode(accept);
  if (code !== 0) throw new Error(`ocm-ts accept exited ${String(code)}: ${accept.output().trim().split('\n').slice(-3).join(' | ')}`);
  await waitJoined(t);
};

const joinByKubectl = async (t: TrackState): Promise<void> => {
  const csr = await pendingCsr(t, `open-cluster-management.io/cluster-name=${t.cluster}`);
  await kubectl(t.env, ['certificate', 'approve', csr]);
  await waitUntil(`${t.cluster}: ManagedCluster created`, JOIN_TIMEOUT, () => getOrUndefined(t.env.hub.admin, MANAGED_CLUSTERS, t.cluster), 250);
  await kubectl(t.env, ['patch', 'managedcluster', t.cluster, '--type=merge', '-p', '{"spec":{"hubAcceptsClient":true}}']);
  await waitJoined(t);
};

const joinByAutoApproval = async (t: TrackState): Promise<void> => {
  await waitJoined(t);
};

const conditions = async (t: TrackState): Promise<void> => {
  const mc = await waitCluster(t.env.hub.admin, t.cluster, 'ClockSynced', 60_000, hasCondition(CLOCK_SYNCED, 'True'));
  const status = mc.status as { version?: { kubernetes?: string }; capacity?: Record<string, string> } | undefined;
  if (!status?.version?.kubernetes) throw new Error('status.version.kubernetes is empty');
};

const claims = async (t: TrackState): Promise<void> => {
  const custom = `compat.${t.cluster}.example.com`;
  await t.agent.spoke.admin.resource(CLUSTER_CLAIMS).create({ apiVersion: 'cluster.open-cluster-management.io/v1alpha1', kind: 'ClusterClaim', metadata: { name: custom }, spec: { value: 'blue' } } as KubeObject);
  await waitCluster(t.env.hub.admin, t.cluster, `claim ${custom} reported`, 90_000, (mc) =>
    ((mc.status as { clusterClaims?: Array<{ name: string; value: string }> } | undefined)?.clusterClaims ?? []).some((c) => c.name === custom && c.value === 'blue'),
  );
};

/** A step that cannot run in this cell, with the reason (reported N/A, later steps still run). */
class NotApplicable extends Error {}

const addon = async (t: TrackState): Promise<void> => {
  if (t.agent.kind === 'ocm-ts' && t.env.hub.kind.endsWith('@kube')) {
    // A real kube-apiserver stores ManagedClusterAddOns at v1alpha1 and, without OCM's add-on
    // conversion webhook (run by OCM's add-on manager, not by either hub here), drops the v1beta1
    // registration fields on the way in. Our agent reads v1beta1, as OCM's agents from 1.3 do.
    throw new NotApplicable("needs OCM's add-on conversion webhook (v1beta1 add-ons on a real kube-apiserver)");
  }
  const name = 'compat-addon';
  const installNs = `compat-addon-${t.cluster}`;
  const hub = t.env.hub.admin;
  try {
    await hub.resource(CLUSTER_MANAGEMENT_ADDONS).create({ apiVersion: 'addon.open-cluster-management.io/v1alpha1', kind: 'ClusterManagementAddOn', metadata: { name }, spec: { addOnMeta: { displayName: 'compat' } } } as KubeObject);
  } catch (err) {
    if ((err as { code?: number }).code !== 409) throw err;
  }
  await applyObjects(t.agent.spoke.admin, [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: installNs } } as KubeObject]);
  // What an add-on manager does: declare the registration (a client certificate for the hub), in the
  // API version the agent reads: OCM v1.2 reads v1alpha1 (signerName), ocm-ts, like later OCM
  // releases, v1beta1 (type kubeClient). Neither server here runs OCM's add-on conversion webhook,
  // so each add-on is written in its reader's version.
  const user = `system:open-cluster-management:cluster:${t.cluster}:addon:${name}:agent:${name}-agent`;
  const groups = [`system:open-cluster-management:cluster:${t.cluster}:addon:${name}`, `system:open-cluster-management:addon:${name}`, 'system:authenticated'];
  const v1alpha1 = t.agent.kind === 'OCM';
  const mca = hub.resource(v1alpha1 ? MANAGED_CLUSTER_ADDONS : MANAGED_CLUSTER_ADDONS_V1BETA1, t.cluster);
  await mca.create({
    apiVersion: `addon.open-cluster-management.io/${v1alpha1 ? 'v1alpha1' : 'v1beta1'}`,
    kind: 'ManagedClusterAddOn',
    metadata: { name, namespace: t.cluster },
    spec: v1alpha1 ? { installNamespace: installNs } : {},
  } as KubeObject);
  const registration = v1alpha1
    ? { signerName: 'kubernetes.io/kube-apiserver-client', subject: { user, groups } }
    : { type: 'kubeClient', kubeClient: { driver: 'csr', subject: { user, groups } } };
  await mca.patch(name, 'merge', { status: { namespace: installNs, registrations: [registration] } }, { subresource: 'status' });
  const csr = await pendingCsr(t, `open-cluster-management.io/cluster-name=${t.cluster},open-cluster-management.io/addon-name=${name}`);
  await kubectl(t.env, ['certificate', 'approve', csr]);
  await waitUntil(`${t.cluster}: ${name}-hub-kubeconfig secret in ${installNs}`, 90_000, async () => {
    const s = await getOrUndefined(t.agent.spoke.admin, SECRETS, `${name}-hub-kubeconfig`, installNs);
    const data = (s as { data?: Record<string, string> } | undefined)?.data;
    return data?.kubeconfig && data['tls.crt'] ? true : undefined;
  }, 250);
};

const leaseStopped = async (t: TrackState): Promise<string> => {
  const hub = t.env.hub.admin;
  await hub.resource(MANAGED_CLUSTERS).patch(t.cluster, 'merge', { spec: { leaseDurationSeconds: 5 } });
  // Let the agent renew once at the new period, so the hub judges by it.
  await new Promise((r) => setTimeout(r, 6000));
  await t.agent.kill();
  const stoppedAt = Date.now();
  await waitCluster(hub, t.cluster, 'Available Unknown after the agent stopped', 120_000, hasCondition(AVAILABLE, 'Unknown'));
  const unknownAfter = (Date.now() - stoppedAt) / 1000;
  t.agent.start();
  await waitCluster(hub, t.cluster, 'Available again', 120_000, joinedAndAvailable);
  return `Unknown after ${unknownAfter.toFixed(0)} s`;
};

const rotation = async (t: TrackState): Promise<string> => {
  const spoke = t.agent.spoke.admin;
  const first = await waitUntil('hub kubeconfig secret', 30_000, () => hubKubeconfigSecret(spoke, t.agent.namespace));
  const rotated = async (): Promise<Awaited<ReturnType<typeof hubKubeconfigSecret>>> => {
    const s = await hubKubeconfigSecret(spoke, t.agent.namespace);
    return s && s.serial !== first.serial ? s : undefined;
  };
  // Both agents rotate once 20-25 % of the lifetime is left. OCM's agent looks at its certificate
  // only on its 5-minute resync or an event, so past that point (plus a margin) the hub kubeconfig
  // secret is touched, as any change to it would; ours looks at the rotation time by itself.
  const lifetime = first.notAfter.getTime() - first.notBefore.getTime();
  const windowEnd = first.notAfter.getTime() - 0.2 * lifetime + 10_000;
  let next = await waitUntil(`${t.cluster}: certificate rotated by itself`, Math.max(1000, windowEnd - Date.now()), rotated, 1000).catch(() => undefined);
  let how = 'by itself';
  if (!next) {
    how = 'after a change to the hub kubeconfig secret';
    await spoke.resource(SECRETS, t.agent.namespace).patch('hub-kubeconfig-secret', 'merge', { metadata: { annotations: { 'compat.ocm-ts.dev/nudge': String(Date.now()) } } });
    next = await waitUntil(`${t.cluster}: certificate rotated`, Math.max(30_000, first.notAfter.getTime() - Date.now()), rotated, 1000);
  }
  await waitCluster(t.env.hub.admin, t.cluster, 'Available after rotation', 60_000, joinedAndAvailable);
  const early = (first.notAfter.getTime() - Date.now()) / 1000;
  return `rotated ${how}, ${early > 0 ? `${early.toFixed(0)} s before expiry` : 'after expiry'}`;
};

const denied = async (t: TrackState): Promise<void> => {
  const hub = t.env.hub.admin;
  await hub.resource(MANAGED_CLUSTERS).patch(t.cluster, 'merge', { spec: { hubAcceptsClient: false } });
  await waitCluster(hub, t.cluster, 'HubAcceptedManagedCluster False (HubClusterAdminDenied)', 60_000, (mc) =>
    conditionsOf(mc).some((c) => c.type === ACCEPTED && c.status === 'False' && c.reason === 'HubClusterAdminDenied'),
  );
  // The agents' role bindings in the cluster namespace go; the cluster-wide role stays, reduced.
  for (const agentRole of ['registration', 'work']) {
    const name = `open-cluster-management:managedcluster:${t.cluster}:${agentRole}`;
    await waitUntil(`${t.cluster}: RoleBinding ${name} removed`, 60_000, async () => (await getOrUndefined(hub, ROLE_BINDINGS, name, t.cluster)) === undefined, 250);
  }
};

const deleted = async (t: TrackState): Promise<string> => {
  const hub = t.env.hub.admin;
  await hub.resource(MANAGED_CLUSTERS).delete(t.cluster);
  await waitUntil(`${t.cluster}: cluster RBAC removed`, 90_000, async () => (await getOrUndefined(hub, CLUSTER_ROLE_BINDINGS, `open-cluster-management:managedcluster:${t.cluster}`)) === undefined, 250);
  // Whether the agent brings the cluster back on its own is OCM's behaviour to match, not judged here.
  const back = await waitUntil(`${t.cluster}: recreated`, 45_000, async () => {
    const mc = await getOrUndefined(hub, MANAGED_CLUSTERS, t.cluster);
    return mc && !mc.metadata.deletionTimestamp ? mc : undefined;
  }, 500).then(() => true, () => false);
  const ns = await getOrUndefined(hub, NAMESPACES, t.cluster);
  return back ? 'agent recreated the cluster' : `not recreated; namespace ${ns ? 'kept' : 'deleted'}`;
};

const bootstrapReplaced = async (t: TrackState, validKubeconfig: string): Promise<void> => {
  await new Promise((r) => setTimeout(r, 5000));
  if (await getOrUndefined(t.env.hub.admin, MANAGED_CLUSTERS, t.cluster)) throw new Error('joined with an invalid bootstrap kubeconfig');
  await t.agent.replaceBootstrap(validKubeconfig);
  await waitJoined(t);
};

const TRACKS: readonly Track[] = [
  {
    name: 'a',
    token: 'manual',
    steps: [
      { scenario: 'join: ocm-ts accept', run: joinByOcmTsAccept },
      { scenario: 'conditions', run: conditions },
      { scenario: 'cluster claims', run: claims },
      { scenario: 'addon (kubeClient)', run: addon },
      { scenario: 'lease stopped → Unknown → back', run: leaseStopped },
      { scenario: 'certificate rotation', run: rotation },
    ],
  },
  {
    name: 'b',
    token: 'manual',
    steps: [
      { scenario: 'join: kubectl approve + patch', run: joinByKubectl },
      { scenario: 'hubAcceptsClient=false', run: denied },
    ],
  },
  {
    name: 'c',
    token: 'auto',
    steps: [
      { scenario: 'join: auto-approval', run: joinByAutoApproval },
      { scenario: 'cluster deleted on hub', run: deleted },
    ],
  },
  { name: 'd', token: 'invalid-then-auto', steps: [{ scenario: 'bootstrap replaced', run: async () => {} }] },
];

async function runTrack(env: CellEnv, track: Track, results: Map<ScenarioName, StepOutcome>): Promise<void> {
  const cluster = `${env.prefix}${track.name}`;
  const { spoke, namespace } = await env.spokeFor(track.name);
  const hub = env.hub;
  const valid = hub.bootstrapKubeconfig(track.token === 'manual' ? hub.manualToken : hub.autoToken);
  let bootstrap = valid;
  if (track.token === 'invalid-then-auto') {
    bootstrap = join(env.cellDir, `${cluster}-invalid.kubeconfig`);
    writeTokenKubeconfig(bootstrap, 'https://127.0.0.1:1', hub.caPem, `${hub.autoToken.id}.${hub.autoToken.secret}`);
  }
  const agent = await createAgent({ kind: env.agentKind, clusterName: cluster, spoke, namespace, bootstrapKubeconfigPath: bootstrap, dir: join(env.cellDir, cluster), ocmRegistration: env.ocmRegistration });
  const t: TrackState = { env, agent, cluster };
  agent.start();
  let blocked: string | undefined;
  try {
    for (const step of track.steps) {
      const started = Date.now();
      if (blocked) {
        results.set(step.scenario, { status: 'fail', detail: `blocked: ${blocked} failed`, seconds: 0 });
        continue;
      }
      try {
        const detail = step.scenario === 'bootstrap replaced' ? await bootstrapReplaced(t, valid) : await step.run(t);
        results.set(step.scenario, { status: 'pass', detail: detail ?? '', seconds: (Date.now() - started) / 1000 });
      } catch (err) {
        if (err instanceof NotApplicable) {
          results.set(step.scenario, { status: 'n/a', detail: err.message, seconds: 0 });
          continue;
        }
        blocked = step.scenario;
        results.set(step.scenario, { status: 'fail', detail: `${(err as Error).message} (agent log ${agent.logPath})`, seconds: (Date.now() - started) / 1000 });
      }
      env.log(`${env.hub.kind} × ${env.agentKind}: ${step.scenario}: ${results.get(step.scenario)!.status}`);
    }
  } finally {
    await agent.stop();
  }
}

export async function runCell(env: CellEnv): Promise<Map<ScenarioName, StepOutcome>> {
  const results = new Map<ScenarioName, StepOutcome>();
  const tracks = TRACKS.filter((t) => !env.onlyTracks || env.onlyTracks.names.includes(t.name));
  for (const t of TRACKS) if (!tracks.includes(t)) for (const s of t.steps) results.set(s.scenario, { status: 'n/a', detail: env.onlyTracks!.reason, seconds: 0 });
  await Promise.all(
    tracks.map((track) =>
      runTrack(env, track, results).catch((err: unknown) => {
        for (const s of track.steps) if (!results.has(s.scenario)) results.set(s.scenario, { status: 'fail', detail: `set-up failed: ${(err as Error).message}`, seconds: 0 });
      }),
    ),
  );
  return results;
}
