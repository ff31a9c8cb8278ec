// The fleet simulator: N real registration agents (the product's startSpokeAgent, unchanged), each
// with its own cluster name, key, certificate and hub connections, against one hub. They run in this
// process or spread over worker processes (./worker-pool.ts). The spoke side is shared and light: one
// embedded API server with one agent namespace per cluster. The hub is either given (a bootstrap
// kubeconfig) or started here in a child process.

import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { ManagedCluster } from '../api/cluster.js';
import { loadCrds, SPOKE_CRD_NAMES } from '../api/crds.js';
import { startEmbeddedApiServer, type EmbeddedApiServer } from '../apiserver/embedded.js';
import { isAlreadyExists } from '../client/errors.js';
import { createKubeClient } from '../client/rest-client.js';
import { resourceTypes } from '../client/resource-types.js';
import type { KubeClient } from '../client/types.js';
import { installCrds } from '../hub/install-crds.js';
import type { Clock } from '../util/clock.js';
import { errorMessage } from '../util/errors.js';
import type { Logger, LogLevel } from '../util/logger.js';
import { agentNamespace, startAgentGroup, type AgentTotals } from './agent-group.js';
import { ClusterBoard, type BoardCounts } from './cluster-board.js';
import { startHubProcess, type CliEntry, type HubProcess } from './hub-process.js';
import { watchHubClusters } from './hub-watch.js';
import { startSpokeProcess } from './spoke-process.js';
import { readEstablished, readProcSample, coresBetween, type ProcSample } from './proc-stats.js';
import { createRequestProbe, type RequestProbe } from './request-probe.js';
import { startWorkerPool } from './worker-pool.js';

type FleetHub =
  | { kind: 'external'; bootstrapKubeconfig: string; adminKubeconfig?: string }
  | { kind: 'local'; dataDir: string; cli: CliEntry; clusterSigningDurationMs?: number; autoApproval: boolean };

export interface FleetOptions {
  clusters: number;
  /** Cluster names are `<prefix><i>`, i from 1. */
  namePrefix: string;
  hub: FleetHub;
  /** The spoke API server's data and the agents' hub kubeconfig directories. */
  workDir: string;
  /** Set on every ManagedCluster of the fleet (needs the hub's admin kubeconfig); undefined = the hub's default. */
  leaseDurationSeconds?: number;
  /** Agents started per second; undefined = all at once. */
  joinRatePerSecond?: number;
  /** Run the shared spoke API server in a child process of this CLI instead of in this process. */
  spokeProcess?: CliEntry;
  /** Run the agents in `count` worker processes of this CLI (count 0 or absent: in this process). */
  workers?: { count: number; cli: CliEntry; logLevel?: LogLevel; reportIntervalMs?: number };
  log: Logger;
  clock: Clock;
}

export interface FleetSample {
  atMs: number;
  counts: BoardCounts;
  started: number;
  /** Agents that stopped with an error or could not start. */
  failed: number;
  /** Hub process figures (local hub only). */
  hubCores?: number;
  hubRssBytes?: number;
  /** Established connections to the hub's port (local hub, Linux). */
  hubConnections?: number;
  openWatches: number;
  /** RSS of this process and its agent workers. */
  simulatorRssBytes: number;
  /** CPU of this process (agents and the shared spoke) and its agent workers since the previous sample, in cores. */
  simulatorCores?: number;
}

export interface Fleet {
  readonly names: readonly string[];
  readonly board: ClusterBoard;
  readonly probe: RequestProbe;
  /** The local hub (undefined for an external hub). */
  readonly hub: HubProcess | undefined;
  /** The hub's admin client, when there is one. */
  readonly admin: KubeClient | undefined;
  /** Time the first agent was started (clock ms), once started. */
  firstStartMs(): number | undefined;
  /** Resolves when every agent was started (at the join rate). */
  readonly allStarted: Promise<void>;
  /** Takes a sample; CPU is averaged since the previous call. Worker figures are as of their last report. */
  sample(): FleetSample;
  agentTotals(): AgentTotals;
  /** Brings the workers' figures up to date (they report every half second or so); nothing to do in-process. */
  refresh(): Promise<void>;
  /** Simulator RSS (this process and its workers) before the first agent started (bytes). */
  readonly baselineRssBytes: number;
  stop(): Promise<void>;
}

/** The spoke as an operator prepares it: spoke CRDs, then one agent namespace per cluster. */
interface Spoke {
  url: string;
  adminKubeconfigPath: string;
  close(): Promise<void>;
}

async function launchSpoke(o: FleetOptions): Promise<Spoke> {
  const dataDir = join(o.workDir, 'spoke');
  if (o.spokeProcess) {
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    const p = await startSpokeProcess(o.spokeProcess, dataDir);
    return { url: p.url, adminKubeconfigPath: p.adminKubeconfig, close: () => p.stop() };
  }
  const s: EmbeddedApiServer = await startEmbeddedApiServer({ dataDir, listen: { host: '127.0.0.1', port: 0 }, log: o.log.child({ component: 'spoke-apiserver' }), clock: o.clock });
  return { url: s.url, adminKubeconfigPath: s.adminKubeconfigPath, close: () => s.close() };
}

async function startSpoke(o: FleetOptions, names: readonly string[], signal: AbortSignal): Promise<{ server: Spoke; client: KubeClient }> {
  const server = await launchSpoke(o);
  const client = createKubeClient({ kubeconfigPath: server.adminKubeconfigPath });
  try {
    await installCrds(client, loadCrds(SPOKE_CRD_NAMES), { clock: o.clock, signal });
    const namespaces = client.resource(resourceTypes.namespaces);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < names.length) {
        const name = names[next++]!;
        try {
          await namespaces.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: agentNamespace(name) } }, { signal });
        } catch (err) {
          if (!isAlreadyExists(err)) throw err;
        }
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
  } catch (err) {
    client.close();
    await server.close();
    throw err;
  }
  return { server, client };
}

export async function startFleet(o: FleetOptions, signal: AbortSignal): Promise<Fleet> {
  const names = Array.from({ length: o.clusters }, (_, i) => `${o.namePrefix}${i + 1}`);
  await mkdir(o.workDir, { recursive: true, mode: 0o700 });
  const closers: Array<() => Promise<void> | void> = [];
  const closeAll = async (): Promise<void> => {
    for (const c of closers.splice(0).reverse()) {
      try {
        await c();
      } catch (err) {
        o.log.warn('fleet: error while stopping', { err: errorMessage(err) });
      }
    }
  };
  try {
    let hub: HubProcess | undefined;
    let bootstrapKubeconfig: string;
    let adminKubeconfig: string | undefined;
    if (o.hub.kind === 'local') {
      await mkdir(o.hub.dataDir, { recursive: true, mode: 0o700 });
      hub = await startHubProcess({
        cli: o.hub.cli,
        dataDir: o.hub.dataDir,
        autoApproval: o.hub.autoApproval,
        agents: names.length,
        ...(o.hub.clusterSigningDurationMs !== undefined ? { clusterSigningDurationMs: o.hub.clusterSigningDurationMs } : {}),
      });
      const h = hub;
      closers.push(() => h.stop());
      bootstrapKubeconfig = hub.endpoints.bootstrapKubeconfig;
      adminKubeconfig = hub.endpoints.adminKubeconfig;
    } else {
      bootstrapKubeconfig = o.hub.bootstrapKubeconfig;
      adminKubeconfig = o.hub.adminKubeconfig;
    }
    if (o.leaseDurationSeconds !== undefined && adminKubeconfig === undefined) throw new Error('a lease duration needs the hub admin kubeconfig');
    const watchClient = createKubeClient({ kubeconfigPath: adminKubeconfig ?? bootstrapKubeconfig }, { userAgent: 'ocm-ts-fleet' });
    closers.push(() => watchClient.close());
    const hostPort = new URL(watchClient.server).host;
    const probe = createRequestProbe(hostPort);
    closers.push(() => probe.close());

    const board = new ClusterBoard(new Set(names));
    const watchCtl = new AbortController();
    const onAbort = (): void => watchCtl.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    closers.push(() => signal.removeEventListener('abort', onAbort));
    // The lease duration is the hub's to set (spec.leaseDurationSeconds); an admin does it once per cluster.
    const patched = new Set<string>();
    const clusters = watchClient.resource<ManagedCluster>(resourceTypes.managedClusters);
    const onCluster = (mc: ManagedCluster): void => {
      const name = mc.metadata.name ?? '';
      if (o.leaseDurationSeconds === undefined || patched.has(name) || !board.leaseDurationOf(name) || mc.spec?.leaseDurationSeconds === o.leaseDurationSeconds) return;
      if (!names.includes(name)) return;
      patched.add(name);
      clusters.patch(name, 'merge', { spec: { leaseDurationSeconds: o.leaseDurationSeconds } }, { signal: watchCtl.signal }).catch((err: unknown) => {
        patched.delete(name);
        o.log.warn('fleet: cannot set the lease duration', { cluster: name, err: errorMessage(err) });
      });
    };
    const watching = watchHubClusters({ client: watchClient, board, clock: o.clock, onCluster }, watchCtl.signal);
    closers.push(async () => {
      watchCtl.abort();
      await watching;
    });

    const spoke = await startSpoke(o, names, signal);
    closers.push(() => spoke.server.close());
    closers.push(() => spoke.client.close());

    const spokeAgents = {
      names,
      spokeUrl: spoke.server.url,
      spokeAdminKubeconfig: spoke.server.adminKubeconfigPath,
      bootstrapKubeconfig,
      workDir: o.workDir,
      ...(o.joinRatePerSecond !== undefined ? { joinRatePerSecond: o.joinRatePerSecond } : {}),
    };
    const selfBaseline = process.memoryUsage.rss();
    const workers = o.workers !== undefined && o.workers.count > 0 ? o.workers : undefined;
    const pool = workers
      ? await startWorkerPool({
          ...spokeAgents,
          count: workers.count,
          cli: workers.cli,
          hubHostPort: hostPort,
          ...(workers.logLevel !== undefined ? { logLevel: workers.logLevel } : {}),
          ...(workers.reportIntervalMs !== undefined ? { reportIntervalMs: workers.reportIntervalMs } : {}),
          log: o.log,
          clock: o.clock,
        })
      : undefined;
    const group = pool ?? startAgentGroup({ ...spokeAgents, log: o.log, clock: o.clock, signal });
    closers.push(() => group.stop());
    const fleetProbe = pool ? pool.probeOver(probe) : probe;
    const baselineRssBytes = selfBaseline + (pool?.baselineRssBytes ?? 0);

    let prevHub: { at: number; s: ProcSample } | undefined;
    let prevSelf: { at: number; cpuSeconds: number } | undefined;
    const sample = (): FleetSample => {
      const atMs = o.clock.now();
      const out: FleetSample = {
        atMs,
        counts: board.counts(),
        started: group.started(),
        failed: group.failed(),
        openWatches: fleetProbe.openWatches(),
        simulatorRssBytes: process.memoryUsage.rss() + (pool?.rssBytes() ?? 0),
      };
      const own = process.cpuUsage();
      const cpuSeconds = (own.user + own.system) / 1e6 + (pool?.cpuSeconds() ?? 0);
      if (prevSelf && atMs > prevSelf.at) out.simulatorCores = Math.max(0, cpuSeconds - prevSelf.cpuSeconds) / ((atMs - prevSelf.at) / 1000);
      prevSelf = { at: atMs, cpuSeconds };
      const pid = hub?.pid();
      const s = pid !== undefined ? readProcSample(pid) : undefined;
      if (s) {
        if (prevHub) out.hubCores = coresBetween(prevHub.s, s, atMs - prevHub.at);
        out.hubRssBytes = s.rssBytes;
        prevHub = { at: atMs, s };
      } else {
        prevHub = undefined;
      }
      if (hub) {
        const c = readEstablished(hub.endpoints.port);
        if (c !== undefined) out.hubConnections = c;
      }
      return out;
    };
    sample();

    return {
      names,
      board,
      probe: fleetProbe,
      hub,
      admin: adminKubeconfig !== undefined ? watchClient : undefined,
      firstStartMs: () => group.firstStartMs(),
      allStarted: group.allStarted,
      sample,
      agentTotals: () => group.totals(),
      refresh: async () => {
        await pool?.refresh();
      },
      baselineRssBytes,
      async stop() {
        await closeAll();
        if (o.hub.kind === 'local') {
          // Nothing: the hub's data stays for the next run (its port and bootstrap token are reused).
        }
      },
    };
  } catch (err) {
    await closeAll();
    throw err;
  }
}
