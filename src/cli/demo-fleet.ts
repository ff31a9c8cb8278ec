// The demo's fleet: one embedded hub and N embedded spoke clusters, each with a few Nodes and a
// registration agent, all in this process. Every component talks HTTPS to the others exactly as
// separate processes would; only their lifetimes are shared.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Node, Secret } from '../api/core.js';
import type { ClusterClaim } from '../api/cluster.js';
import { names } from '../api/constants.js';
import { loadCrds, SPOKE_CRD_NAMES } from '../api/crds.js';
import { startEmbeddedApiServer, type EmbeddedApiServer } from '../apiserver/embedded.js';
import { isAlreadyExists, isNotFound } from '../client/errors.js';
import { createKubeClient } from '../client/rest-client.js';
import { resourceTypes } from '../client/resource-types.js';
import type { KubeClient } from '../client/types.js';
import { startSpokeAgent, type SpokeAgentHandle } from '../agent/spoke-agent.js';
import { defaultAgentOptions } from '../agent/options/agent-options.js';
import { startEmbeddedHub, type EmbeddedHub } from '../embedded/embedded-hub.js';
import { installCrds } from '../hub/install-crds.js';
import { resolveHubOptions } from '../hub/options.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { tightenDataDir, writePrivateFile } from '../util/private-files.js';

interface DemoSpoke {
  name: string;
  apiserver: EmbeddedApiServer;
  client: KubeClient;
  agent: SpokeAgentHandle;
}

export interface DemoFleet {
  hub: EmbeddedHub;
  hubClient: KubeClient;
  spokes: DemoSpoke[];
  close(): Promise<void>;
}

export interface DemoFleetOptions {
  dataDir: string;
  clusters: number;
  log: Logger;
  clock: Clock;
  signal: AbortSignal;
  say: (line: string) => void;
}

interface DemoState {
  hubPort: number;
}

/** The hub keeps its port across runs: the agents' hub kubeconfigs must stay valid (same server URL). */
async function loadState(dataDir: string): Promise<DemoState | undefined> {
  try {
    return JSON.parse(await readFile(join(dataDir, 'demo.json'), 'utf8')) as DemoState;
  } catch {
    return undefined;
  }
}

function nodeFor(cluster: string, i: number): Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: `${cluster}-node-${i}`, labels: { 'kubernetes.io/hostname': `${cluster}-node-${i}` } },
    spec: i === 3 ? { unschedulable: true } : {},
  };
}

const NODE_STATUS = { capacity: { cpu: '4', memory: '16Gi', pods: '110' }, allocatable: { cpu: '3800m', memory: '15Gi', pods: '110' } };

async function ignoreExists<T>(p: Promise<T>): Promise<T | undefined> {
  try {
    return await p;
  } catch (err) {
    if (isAlreadyExists(err)) return undefined;
    throw err;
  }
}

/** What an operator installs on a managed cluster before the agent: CRDs, nodes, a claim, the agent namespace and bootstrap secret. */
async function prepareSpoke(client: KubeClient, cluster: string, bootstrapKubeconfig: string, o: DemoFleetOptions): Promise<void> {
  await installCrds(client, loadCrds(SPOKE_CRD_NAMES), { clock: o.clock, signal: o.signal });
  const nodes = client.resource<Node>(resourceTypes.nodes);
  for (let i = 1; i <= 3; i++) {
    const created = await ignoreExists(nodes.create(nodeFor(cluster, i), { signal: o.signal }));
    if (created) await nodes.updateStatus({ ...created, status: NODE_STATUS }, { signal: o.signal });
  }
  await ignoreExists(
    client.resource<ClusterClaim>(resourceTypes.clusterClaims).create(
      { apiVersion: 'cluster.open-cluster-management.io/v1alpha1', kind: 'ClusterClaim', metadata: { name: 'id.k8s.io' }, spec: { value: `${cluster}-id` } },
      { signal: o.signal },
    ),
  );
  await ignoreExists(client.resource(resourceTypes.namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: names.agentNamespace } }, { signal: o.signal }));
  const secrets = client.resource<Secret>(resourceTypes.secrets, names.agentNamespace);
  const data = { kubeconfig: Buffer.from(bootstrapKubeconfig).toString('base64') };
  try {
    const cur = await secrets.get(names.bootstrapSecret, { signal: o.signal });
    if (cur.data?.kubeconfig !== data.kubeconfig) await secrets.update({ ...cur, data }, { signal: o.signal });
  } catch (err) {
    if (!isNotFound(err)) throw err;
    await secrets.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: names.bootstrapSecret, namespace: names.agentNamespace }, data }, { signal: o.signal });
  }
}

/** What the demo writes in its directory: its state and log, the hub's and each spoke's directories. */
function isDemoFile(name: string): boolean {
  return name === 'demo.json' || name === 'demo.log' || name === 'hub' || /^cluster\d+$/.test(name);
}

/**
 * Creates the demo directory 0700 and makes everything the demo wrote there private (files 0600,
 * directories 0700): it holds every cluster's keys and kubeconfigs.
 */
export async function prepareDemoDir(dataDir: string): Promise<void> {
  await tightenDataDir(dataDir, isDemoFile);
}

export async function startDemoFleet(o: DemoFleetOptions): Promise<DemoFleet> {
  await prepareDemoDir(o.dataDir);
  const state = await loadState(o.dataDir);
  const hubDir = join(o.dataDir, 'hub');
  o.say(state ? `restarting the hub from ${hubDir}` : `starting the hub in ${hubDir}`);
  const { options: hubOptions } = resolveHubOptions({});
  const hub = await startEmbeddedHub({
    dataDir: hubDir,
    apiserverListen: { host: '127.0.0.1', port: state?.hubPort ?? 0 },
    bootstrapTokenTtlMs: 24 * 3600_000,
    hubOptions,
    log: o.log.child({ component: 'hub' }),
    clock: o.clock,
    signal: o.signal,
  });
  await writePrivateFile(join(o.dataDir, 'demo.json'), JSON.stringify({ hubPort: Number(new URL(hub.url).port) } satisfies DemoState));
  o.say(`hub ready at ${hub.url} (admin kubeconfig: ${hub.adminKubeconfigPath})`);
  const hubClient = createKubeClient({ kubeconfigPath: hub.adminKubeconfigPath });
  const bootstrapKubeconfig = await readFile(hub.bootstrapKubeconfigPath, 'utf8');
  const spokes: DemoSpoke[] = [];
  // Every spoke part is registered here the moment it exists, so that an interruption half-way
  // through a spoke's start (API server up, agent not yet) still closes what was started.
  const partial: Partial<DemoSpoke>[] = [];
  const close = async (): Promise<void> => {
    await Promise.all(partial.map((s) => s.agent?.stop()));
    for (const s of partial) {
      s.client?.close();
      await s.apiserver?.close();
    }
    hubClient.close();
    await hub.close();
  };
  try {
    for (let i = 1; i <= o.clusters; i++) {
      o.signal.throwIfAborted();
      const name = `cluster${i}`;
      const dir = join(o.dataDir, name);
      const parts: Partial<DemoSpoke> = { name };
      partial.push(parts);
      const apiserver = await startEmbeddedApiServer({ dataDir: join(dir, 'apiserver'), listen: { host: '127.0.0.1', port: 0 }, log: o.log.child({ component: 'spoke-apiserver', cluster: name }), clock: o.clock });
      parts.apiserver = apiserver;
      const client = createKubeClient({ kubeconfigPath: apiserver.adminKubeconfigPath });
      parts.client = client;
      await prepareSpoke(client, name, bootstrapKubeconfig, o);
      const options = {
        ...defaultAgentOptions(),
        kubeconfig: apiserver.adminKubeconfigPath,
        clusterName: name,
        bootstrapKubeconfig: hub.bootstrapKubeconfigPath,
        hubKubeconfigDir: join(dir, 'hub-kubeconfig'),
        spokeExternalServerUrls: [apiserver.url],
      };
      const agent = await startSpokeAgent({ options, log: o.log.child({ component: 'agent', cluster: name }), clock: o.clock, defaultMetrics: false });
      parts.agent = agent;
      spokes.push({ name, apiserver, client, agent });
      o.say(`${name}: spoke API server at ${apiserver.url}, agent started`);
    }
  } catch (err) {
    await close();
    throw err;
  }
  return { hub, hubClient, spokes, close };
}
