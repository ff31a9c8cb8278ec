// MultipleHubs end to end (spoke-agent.md §16, §5 step 7, §18.6): two embedded hubs (A, B) and one
// spoke; the agent runs with the MultipleHubs gate and both bootstrap kubeconfigs. It selects a hub
// (§16.1), joins it, and switches to the other hub after an in-process restart requested by the hub
// accept controller K (§16.3: `hubAcceptsClient` set to false) or the hub timeout controller L
// (§16.4: the hub stopped, so its cluster lease is no longer readable/renewed).
//
// The test plays each hub's part like `clusteradm accept` does: once the agent created the
// ManagedCluster it is accepted (hubAcceptsClient, HubAccepted condition, cluster lease), and only
// then are its CSRs approved. (Approving before accepting would let K restart the agent as soon as
// the main phase starts, which is OCM's behaviour too.)

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ManagedCluster } from '../../src/api/cluster.js';
import { rfc3339Micro } from '../../src/api/conditions.js';
import { HUB_CRD_NAMES, SPOKE_CRD_NAMES } from '../../src/api/crds.js';
import { serverUrlOfKubeconfig } from '../../src/agent/hubs/index.js';
import { defaultAgentOptions, type SpokeAgentOptions } from '../../src/agent/options/agent-options.js';
import { startSpokeAgent, type SpokeAgentHandle } from '../../src/agent/spoke-agent.js';
import { resourceTypes } from '../../src/client/resource-types.js';
import type { KubeClient } from '../../src/client/types.js';
import type { TestApiServer } from '../helpers/embedded-server.js';
import { getIfExists } from '../helpers/objects.js';
import { startOcmApiServer, type OcmApiServer } from '../helpers/ocm-api-server.js';
import { testLogger } from '../helpers/test-log.js';
import { waitFor } from '../helpers/wait-for.js';
import { AGENT_NS, autoDecideCsrs, grantAgentsClusterAdmin, testAgentOptions } from './bootstrap/fixture.js';
import { createAcceptedCluster, createClusterLease, ensureNamespace } from './controllers/clusters.js';

const CLUSTER = 'cluster1';

interface Hub {
  name: string;
  api: OcmApiServer;
  server: TestApiServer;
  admin: KubeClient;
  /** Server URL of its bootstrap kubeconfig. */
  url: string;
  bootstrapKubeconfig: string;
  /** While true the hub accepts the cluster once the agent created it (then approves its CSRs). */
  accepting: boolean;
}

interface Env {
  a: Hub;
  b: Hub;
  spokeAdmin: KubeClient;
  hubKubeconfigDir: string;
  startAgent(over?: Partial<SpokeAgentOptions>): Promise<SpokeAgentHandle>;
  /** Plays both hubs' part until the test ends (accepted clusters get this lease duration). */
  playHubs(leaseDurationSeconds?: number): void;
  stop(): Promise<void>;
}

async function startHub(name: string, dir: string): Promise<Hub> {
  const api = await startOcmApiServer({ crds: HUB_CRD_NAMES });
  await grantAgentsClusterAdmin(api.admin);
  const bootstrapKubeconfig = join(dir, `bootstrap-${name}.kubeconfig`);
  await copyFile(api.server.adminKubeconfigPath, bootstrapKubeconfig);
  return { name, api, server: api.server, admin: api.admin, url: serverUrlOfKubeconfig(bootstrapKubeconfig)!, bootstrapKubeconfig, accepting: true };
}

const getCluster = (hub: Hub): Promise<ManagedCluster | undefined> => getIfExists(hub.admin.resource<ManagedCluster>(resourceTypes.managedClusters), CLUSTER);

/** The hub's part: accept the cluster once created (hubAcceptsClient, HubAccepted, lease), then approve its CSRs. */
async function playHub(hub: Hub, leaseDurationSeconds: number, signal: AbortSignal): Promise<void> {
  let accepted = false;
  let approving: Promise<void> | undefined;
  while (!signal.aborted) {
    try {
      if (!accepted && hub.accepting && (await getCluster(hub))) {
        await createAcceptedCluster(hub.admin, CLUSTER, { leaseDurationSeconds });
        // Renewed "now", as the hub's lease controller creates it (an old renewTime would be stale at once).
        await createClusterLease(hub.admin, CLUSTER, rfc3339Micro(new Date())).catch(() => undefined); // may exist already
        accepted = true;
        approving = autoDecideCsrs(hub.admin, CLUSTER, signal);
      }
    } catch {
      // conflicts with the agent, or the hub was stopped: try again
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  await approving;
}

async function startEnv(): Promise<Env> {
  const dir = await mkdtemp(join(tmpdir(), 'ocm-ts-multihub-'));
  const [a, b, spoke] = await Promise.all([startHub('a', dir), startHub('b', dir), startOcmApiServer({ crds: SPOKE_CRD_NAMES })]);
  const spokeAdmin = spoke.admin;
  await ensureNamespace(spokeAdmin, AGENT_NS);
  const hubKubeconfigDir = join(dir, 'hub-kubeconfig');
  const handles: SpokeAgentHandle[] = [];
  const players = new AbortController();
  const playing: Promise<void>[] = [];
  return {
    a,
    b,
    spokeAdmin,
    hubKubeconfigDir,
    async startAgent(over = {}) {
      const options = testAgentOptions({
        kubeconfig: spoke.server.adminKubeconfigPath,
        hubKubeconfigDir,
        clusterName: CLUSTER,
        featureGates: { ...defaultAgentOptions().featureGates, MultipleHubs: true },
        bootstrapKubeconfigs: [a.bootstrapKubeconfig, b.bootstrapKubeconfig],
        ...over,
      });
      const h = await startSpokeAgent({ options, log: testLogger(), defaultMetrics: false });
      handles.push(h);
      return h;
    },
    playHubs(leaseDurationSeconds = 60) {
      playing.push(playHub(a, leaseDurationSeconds, players.signal), playHub(b, leaseDurationSeconds, players.signal));
    },
    async stop() {
      for (const h of handles) await h.stop();
      players.abort();
      await Promise.allSettled(playing);
      await Promise.all([a.api.stop(), b.api.stop(), spoke.stop()]);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Joined to `hub`: main phase with a hub kubeconfig for its server, and Joined reported there by the agent. */
async function waitJoined(env: Env, agent: SpokeAgentHandle, hub: Hub, what: string): Promise<void> {
  await waitFor(
    async () => {
      if (agent.status().phase !== 'main') return false;
      if (serverUrlOfKubeconfig(join(env.hubKubeconfigDir, 'kubeconfig')) !== hub.url) return false;
      const mc = await getCluster(hub);
      return mc?.status?.conditions?.some((c) => c.type === 'ManagedClusterJoined' && c.status === 'True') ?? false;
    },
    20_000,
    { message: what, intervalMs: 50 },
  );
}

test('MultipleHubs: selects hub A, joins it; hubAcceptsClient=false on A → restart and join hub B', async (t) => {
  const env = await startEnv();
  t.after(() => env.stop());
  env.playHubs();
  const agent = await env.startAgent();

  // §16.1: no hub kubeconfig yet and both candidates usable → the first one (A).
  await waitJoined(env, agent, env.a, 'joined hub A');
  assert.equal(await getCluster(env.b), undefined, 'nothing registered on hub B');
  const runsOnA = agent.status().runs;

  // K: the hub admin of A no longer accepts the cluster (it stays refused there).
  env.a.accepting = false;
  const clusters = env.a.admin.resource<ManagedCluster>(resourceTypes.managedClusters);
  const mc = (await getCluster(env.a))!;
  await clusters.update({ ...mc, spec: { ...mc.spec, hubAcceptsClient: false } });

  // The agent restarts in-process; pass 1 finds A's candidate invalid ("hub does not accept
  // client"), pass 2 skips A and selects B, where it bootstraps and joins.
  await waitJoined(env, agent, env.b, 'joined hub B');
  assert.ok(agent.status().runs > runsOnA, 'restarted in-process');
  assert.ok(agent.status().bootstraps >= 2, 'bootstrapped again against hub B');
  assert.equal((await getCluster(env.a))?.spec?.hubAcceptsClient, false);
});

test('MultipleHubs: a restart keeps the current hub when its candidate is still valid (§16.1 pass 1)', async (t) => {
  const env = await startEnv();
  t.after(() => env.stop());
  env.playHubs();
  // Candidates in order B, A → joins B (first valid, no hub kubeconfig yet).
  const first = await env.startAgent({ bootstrapKubeconfigs: [env.b.bootstrapKubeconfig, env.a.bootstrapKubeconfig] });
  await waitJoined(env, first, env.b, 'joined hub B');
  await first.stop();

  // Restarted with the candidates in order A, B: pass 1 prefers B, the hub of the current hub
  // kubeconfig, so the agent goes straight to the main phase on B without bootstrapping.
  const second = await env.startAgent();
  await waitJoined(env, second, env.b, 'still on hub B');
  assert.equal(second.status().bootstraps, 0, 'no bootstrap');
  assert.equal(await getCluster(env.a), undefined, 'nothing registered on hub A');
});

test('MultipleHubs: hub A stops (lease no longer renewed) → hub timeout restart and join hub B', async (t) => {
  const env = await startEnv();
  t.after(() => env.stop());
  // A 1 s lease duration keeps the lease renewed well within the 3 s connection timeout while A is up.
  env.playHubs(1);
  const agent = await env.startAgent({
    hubConnectionTimeoutSeconds: 3,
    timings: { hubTimeoutResyncMs: 200, hubTimeoutStartupGraceMs: 500 } as SpokeAgentOptions['timings'],
  });
  await waitJoined(env, agent, env.a, 'joined hub A');
  const runsOnA = agent.status().runs;

  // Hub A goes away: L can no longer read a renewed lease; after the timeout the agent restarts,
  // A's candidate fails validation (unreachable) and B is selected.
  await env.a.server.stop();
  await waitJoined(env, agent, env.b, 'joined hub B after the hub timeout');
  assert.ok(agent.status().runs > runsOnA, 'restarted in-process');
});
