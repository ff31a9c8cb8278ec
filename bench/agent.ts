// Agent footprint at steady state: for each run a hub and a spoke embedded API server run in this
// process and an agent runs as a child process (`node dist/cli/main.js agent ...`, the build: see
// product.ts). The runs' agents
// run side by side, so the bench takes one settle and one measuring window however many runs there
// are. Once every agent has joined, they idle for SETTLE_MS (V8's post-start GC and compilation
// threads settle within ~40 s), then RSS and CPU are sampled from /proc over MEASURE_MS, one minute
// by default: a whole period of the agent's periodic work (lease renewal, status check), so the
// figure does not depend on where a shorter window falls in that minute. A bare Node process (an
// idle timer, nothing loaded) is sampled over the same window, so a busy machine shows in both.
// RSS is also split into file-backed pages (the node binary and libraries: code and read-only data
// touched) and anonymous memory (V8's heap, malloc). RUNS runs (OCM_TS_BENCH_RUNS, default 3); the
// figures are their medians. Targets: ≤ 50 MiB RSS, ≤ 1 millicore idle.

import 'reflect-metadata';
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HUB_CRD_NAMES, SPOKE_CRD_NAMES, loadCrds } from '../src/api/crds.js';
import type { ManagedCluster } from '../src/api/cluster.js';
import type { CertificateSigningRequest, ClusterRoleBinding, Lease, Namespace } from '../src/api/core.js';
import type * as Embedded from '../src/apiserver/embedded.js';
import type { EmbeddedApiServer } from '../src/apiserver/embedded.js';
import { createKubeClient } from '../src/client/rest-client.js';
import { resourceTypes } from '../src/client/resource-types.js';
import type { KubeClient } from '../src/client/types.js';
import { nullLogger } from '../src/util/logger.js';
import { BUILT_MAIN, fromBuild } from './product.js';

// The API servers the agent talks to come from the build, as the agent does (see product.ts).
const { startEmbeddedApiServer } = await fromBuild<typeof Embedded>('apiserver/embedded.js');

// OCM_TS_BENCH_SETTLE_MS: how long the agents idle after joining before they are measured;
// OCM_TS_BENCH_MEASURE_MS: the measuring window.
const SETTLE_MS = Number(process.env.OCM_TS_BENCH_SETTLE_MS ?? 30_000);
const MEASURE_MS = Number(process.env.OCM_TS_BENCH_MEASURE_MS ?? 60_000);
const RUNS = Number(process.env.OCM_TS_BENCH_RUNS ?? 3);
const CLUSTER = 'bench-cluster';
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch {
      // retry
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

async function installCrds(client: KubeClient, names: readonly string[]): Promise<void> {
  for (const crd of loadCrds(names)) await client.resource(resourceTypes.customResourceDefinitions).create(crd);
  for (const crd of loadCrds(names)) {
    const spec = crd['spec'] as { group: string; names: { plural: string }; versions: { name: string }[] };
    for (const v of spec.versions) await until('CRD served', async () => (await client.request('GET', `/apis/${spec.group}/${v.name}/${spec.names.plural}?limit=1`), true));
  }
}

function procSample(pid: number): { rssMiB: number; fileMiB: number; cpuTicks: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string): number => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { rssMiB: kb('VmRSS') / 1024, fileMiB: kb('RssFile') / 1024, cpuTicks: Number(fields[11]) + Number(fields[12]) };
}

/** CPU ticks per thread name (the main thread; V8 platform workers are also named `node`) of a process. */
function threadTicks(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = tid === String(pid) ? 'main thread' : stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(name, (out.get(name) ?? 0) + Number(fields[11]) + Number(fields[12]));
    } catch {
      // thread ended
    }
  }
  return out;
}

interface RunFigures {
  joinMs: number;
  rssMiB: number;
  /** File-backed part of rssMiB (the rest is anonymous memory). */
  fileMiB: number;
  peakRssMiB: number;
  millicores: number;
  bareRssMiB: number;
  bareFileMiB: number;
  bareMillicores: number;
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

export async function benchAgent(): Promise<void> {
  const started: JoinedAgent[] = [];
  let bare: ChildProcess | undefined;
  try {
    for (let i = 0; i < RUNS; i++) started.push(await startJoinedAgent());
    // An idle Node process beside the agents, started now so that it too has settled.
    bare = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], { stdio: 'ignore' });
    await sleep(SETTLE_MS);
    const runs = await measure(started, bare.pid!);
    runs.forEach((f, i) => process.stdout.write(
      `run ${i + 1}: join ${f.joinMs} ms, RSS ${f.rssMiB.toFixed(1)} MiB (file-backed ${f.fileMiB.toFixed(1)}, peak ${f.peakRssMiB.toFixed(1)}), CPU ${f.millicores.toFixed(2)} millicores; ` +
      `bare Node ${f.bareRssMiB.toFixed(1)} MiB (file-backed ${f.bareFileMiB.toFixed(1)}), ${f.bareMillicores.toFixed(2)} millicores\n`,
    ));
    const m = (k: keyof RunFigures): number => median(runs.map((r) => r[k]));
    process.stdout.write(
      [
        `agent binary: ${started[0]?.binary ?? ''}`,
        `medians of ${runs.length} runs (agents side by side, ${SETTLE_MS / 1000} s idle, then measured over ${MEASURE_MS / 1000} s):`,
        `join (start → Joined): ${m('joinMs')} ms`,
        `RSS: ${m('rssMiB').toFixed(1)} MiB = ${m('fileMiB').toFixed(1)} file-backed + ${(m('rssMiB') - m('fileMiB')).toFixed(1)} anonymous (peak ${m('peakRssMiB').toFixed(1)} MiB; ` +
          `bare Node ${m('bareRssMiB').toFixed(1)} MiB = ${m('bareFileMiB').toFixed(1)} + ${(m('bareRssMiB') - m('bareFileMiB')).toFixed(1)}; target ≤ 50 MiB)`,
        `CPU idle: ${m('millicores').toFixed(2)} millicores = ${((m('millicores') / 1000) * 60).toFixed(3)} CPU-s per minute (bare Node ${m('bareMillicores').toFixed(2)}; target ≤ 1 millicore)`,
        '',
      ].join('\n'),
    );
  } finally {
    bare?.kill('SIGKILL');
    for (const a of started) await a.stop();
  }
}

/** Samples every agent and the bare process over the same MEASURE_MS window. */
async function measure(agents: readonly JoinedAgent[], barePid: number): Promise<RunFigures[]> {
  const bareA = procSample(barePid);
  const a = agents.map((x) => procSample(x.pid));
  const ta = agents.map((x) => threadTicks(x.pid));
  const start = Date.now();
  const peak = a.map((s) => s.rssMiB);
  while (Date.now() - start < MEASURE_MS) {
    await sleep(1000);
    agents.forEach((x, i) => (peak[i] = Math.max(peak[i]!, procSample(x.pid).rssMiB)));
  }
  const elapsedS = (Date.now() - start) / 1000;
  const bareB = procSample(barePid);
  // USER_HZ = 100 ticks per second.
  const millicores = (ticks: number): number => (ticks / 100 / elapsedS) * 1000;
  return agents.map((x, i) => {
    const b = procSample(x.pid);
    // OCM_TS_BENCH_THREADS=1: where the idle CPU goes, per thread name.
    if (process.env.OCM_TS_BENCH_THREADS === '1') {
      for (const [n, t] of threadTicks(x.pid)) process.stdout.write(`  run ${i + 1} thread ${n}: ${((t - (ta[i]!.get(n) ?? 0)) * 10).toFixed(0)} ms\n`);
    }
    return {
      joinMs: x.joinMs, rssMiB: b.rssMiB, fileMiB: b.fileMiB, peakRssMiB: peak[i]!, millicores: millicores(b.cpuTicks - a[i]!.cpuTicks),
      bareRssMiB: bareB.rssMiB, bareFileMiB: bareB.fileMiB, bareMillicores: millicores(bareB.cpuTicks - bareA.cpuTicks),
    };
  });
}

interface JoinedAgent {
  pid: number;
  joinMs: number;
  binary: string;
  /** Stops the agent and its servers, removes its files. */
  stop(): Promise<void>;
}

/** A hub and a spoke server in this process and an agent process that has joined the hub. */
async function startJoinedAgent(): Promise<JoinedAgent> {
  const dir = await mkdtemp(join(tmpdir(), 'ocm-ts-bench-agent-'));
  const servers: EmbeddedApiServer[] = [];
  let child: ChildProcess | undefined;
  const stopApprover = new AbortController();
  let approving: Promise<void> = Promise.resolve();
  const stop = async (): Promise<void> => {
    stopApprover.abort();
    await approving;
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child!.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    for (const s of servers) await s.close();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const hub = await startEmbeddedApiServer({ dataDir: join(dir, 'hub'), listen: { host: '127.0.0.1', port: 0 }, log: nullLogger() });
    servers.push(hub);
    const spoke = await startEmbeddedApiServer({ dataDir: join(dir, 'spoke'), listen: { host: '127.0.0.1', port: 0 }, log: nullLogger() });
    servers.push(spoke);
    const hubAdmin = createKubeClient({ kubeconfigPath: hub.adminKubeconfigPath });
    const spokeAdmin = createKubeClient({ kubeconfigPath: spoke.adminKubeconfigPath });
    await installCrds(hubAdmin, HUB_CRD_NAMES);
    await installCrds(spokeAdmin, SPOKE_CRD_NAMES);
    await spokeAdmin.resource<Namespace>(resourceTypes.namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'open-cluster-management-agent' } });
    await hubAdmin.resource<ClusterRoleBinding>(resourceTypes.clusterRoleBindings).create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'bench-managed-clusters' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'system:open-cluster-management:managed-clusters' }],
    });
    const bootstrap = join(dir, 'bootstrap.kubeconfig');
    await writeFile(bootstrap, await readFile(hub.adminKubeconfigPath, 'utf8'), { mode: 0o600 });

    // The hub's part: approve the agent's CSRs.
    const csrs = hubAdmin.resource<CertificateSigningRequest>(resourceTypes.certificateSigningRequests);
    approving = (async () => {
      while (!stopApprover.signal.aborted) {
        try {
          for (const c of (await csrs.list()).items) {
            if ((c.status?.conditions ?? []).length > 0) continue;
            c.status = { conditions: [{ type: 'Approved', status: 'True', reason: 'Bench', message: 'bench' }] };
            await csrs.updateSubresource(c, 'approval');
          }
        } catch {
          // retry
        }
        await sleep(100);
      }
    })();

    // OCM_TS_AGENT_MAIN points at another build of dist/cli/main.js.
    const main = process.env.OCM_TS_AGENT_MAIN ?? BUILT_MAIN;
    const args = [
      // OCM_TS_AGENT_NODE_ARGS: extra node flags (space-separated), e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`.
      ...(process.env.OCM_TS_AGENT_NODE_ARGS ?? '').split(' ').filter((a) => a !== ''),
      main,
      'agent',
      `--kubeconfig=${spoke.adminKubeconfigPath}`,
      `--bootstrap-kubeconfig=${bootstrap}`,
      `--hub-kubeconfig-dir=${join(dir, 'hub-kubeconfig')}`,
      `--spoke-cluster-name=${CLUSTER}`,
      '--agent-id=bench',
      // the health and metrics server as deployed, on a free port (agents run side by side)
      '--listen=127.0.0.1:0',
      '--log-level=warn',
      // OCM_TS_AGENT_ARGS: extra agent flags (space-separated), e.g. `--log-level=debug` to see idle activity.
      ...(process.env.OCM_TS_AGENT_ARGS ?? '').split(' ').filter((a) => a !== ''),
    ];
    child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit'] });
    const pid = child.pid!;
    const t0 = Date.now();
    const clusters = hubAdmin.resource<ManagedCluster>(resourceTypes.managedClusters);
    await until('ManagedCluster', async () => clusters.get(CLUSTER));
    // Accept the cluster and create its lease, as the hub controller would.
    await hubAdmin.resource<Namespace>(resourceTypes.namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: CLUSTER } });
    await hubAdmin.resource<Lease>(resourceTypes.leases, CLUSTER).create({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'managed-cluster-lease', namespace: CLUSTER }, spec: {} });
    const mc = await clusters.get(CLUSTER);
    mc.spec = { ...mc.spec, hubAcceptsClient: true };
    await clusters.update(mc);
    const accepted = await clusters.get(CLUSTER);
    accepted.status = { ...(accepted.status ?? {}), conditions: [{ type: 'HubAcceptedManagedCluster', status: 'True', reason: 'HubClusterAdminAccepted', message: 'Accepted by hub cluster admin', lastTransitionTime: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z') }] };
    await clusters.updateStatus(accepted);
    await until('Joined', async () => (await clusters.get(CLUSTER)).status?.conditions?.some((c) => c.type === 'ManagedClusterJoined' && c.status === 'True'));
    const joinMs = Date.now() - t0;
    hubAdmin.close();
    spokeAdmin.close();
    stopApprover.abort();
    await approving;
    return { pid, joinMs, binary: main, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
