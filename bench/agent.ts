// Agent footprint at steady state: a hub and a spoke embedded API server run in this process; the
// agent runs as a child process (`node dist/cli/main.js agent ...`, or through tsx when dist is not
// built — tsx itself adds RSS, so build first for the real figure). Once the cluster has joined and
// the agent is idle, RSS and CPU are sampled from /proc for MEASURE_MS and extrapolated per minute.
// A bare Node process (an idle timer, nothing loaded) is sampled over the same window, so a busy
// machine shows in both. RUNS runs (OCM_TS_BENCH_RUNS, default 3); the figures are their medians.
// Targets: ≤ 50 MiB RSS, ≤ 1 millicore idle.

import 'reflect-metadata';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HUB_CRD_NAMES, SPOKE_CRD_NAMES, loadCrds } from '../src/api/crds.js';
import type { ManagedCluster } from '../src/api/cluster.js';
import type { CertificateSigningRequest, ClusterRoleBinding, Lease, Namespace } from '../src/api/core.js';
import { startEmbeddedApiServer, type EmbeddedApiServer } from '../src/apiserver/embedded.js';
import { createKubeClient } from '../src/client/rest-client.js';
import { resourceTypes } from '../src/client/resource-types.js';
import type { KubeClient } from '../src/client/types.js';
import { nullLogger } from '../src/util/logger.js';

// OCM_TS_BENCH_SETTLE_MS: how long the agent idles after joining before it is measured.
const SETTLE_MS = Number(process.env.OCM_TS_BENCH_SETTLE_MS ?? 5_000);
const MEASURE_MS = 20_000;
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

function procSample(pid: number): { rssMiB: number; cpuTicks: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { rssMiB: rssKb / 1024, cpuTicks: Number(fields[11]) + Number(fields[12]) };
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
  peakRssMiB: number;
  millicores: number;
  bareRssMiB: number;
  bareMillicores: number;
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

export async function benchAgent(): Promise<void> {
  const runs: RunFigures[] = [];
  let binary = '';
  for (let i = 0; i < RUNS; i++) {
    const r = await benchAgentOnce();
    binary = r.binary;
    runs.push(r.figures);
    const f = r.figures;
    process.stdout.write(`run ${i + 1}: join ${f.joinMs} ms, RSS ${f.rssMiB.toFixed(1)} MiB (peak ${f.peakRssMiB.toFixed(1)}), CPU ${f.millicores.toFixed(2)} millicores; bare Node ${f.bareRssMiB.toFixed(1)} MiB, ${f.bareMillicores.toFixed(2)} millicores\n`);
  }
  const m = (k: keyof RunFigures): number => median(runs.map((r) => r[k]));
  process.stdout.write(
    [
      `agent binary: ${binary}`,
      `medians of ${runs.length} runs:`,
      `join (start → Joined): ${m('joinMs')} ms`,
      `RSS: ${m('rssMiB').toFixed(1)} MiB (peak ${m('peakRssMiB').toFixed(1)} MiB; bare Node ${m('bareRssMiB').toFixed(1)} MiB; target ≤ 50 MiB)`,
      `CPU idle: ${m('millicores').toFixed(2)} millicores = ${((m('millicores') / 1000) * 60).toFixed(3)} CPU-s per minute (bare Node ${m('bareMillicores').toFixed(2)}; target ≤ 1 millicore)`,
      '',
    ].join('\n'),
  );
}

async function benchAgentOnce(): Promise<{ binary: string; figures: RunFigures }> {
  const dir = await mkdtemp(join(tmpdir(), 'ocm-ts-bench-agent-'));
  const servers: EmbeddedApiServer[] = [];
  let child: ChildProcess | undefined;
  let bare: ChildProcess | undefined;
  const stopApprover = new AbortController();
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
    const approving = (async () => {
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
    const dist = process.env.OCM_TS_AGENT_MAIN ?? join(process.cwd(), 'dist/cli/main.js');
    const useDist = existsSync(dist);
    const args = [
      // OCM_TS_AGENT_NODE_ARGS: extra node flags (space-separated), e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`.
      ...(process.env.OCM_TS_AGENT_NODE_ARGS ?? '').split(' ').filter((a) => a !== ''),
      ...(useDist ? [dist] : ['--import', 'tsx', join(process.cwd(), 'src/cli/main.ts')]),
      'agent',
      `--kubeconfig=${spoke.adminKubeconfigPath}`,
      `--bootstrap-kubeconfig=${bootstrap}`,
      `--hub-kubeconfig-dir=${join(dir, 'hub-kubeconfig')}`,
      `--spoke-cluster-name=${CLUSTER}`,
      '--agent-id=bench',
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

    // An idle Node process beside the agent, started now so that it too has settled.
    bare = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], { stdio: 'ignore' });
    await sleep(SETTLE_MS);
    const barePid = bare.pid!;
    const bareA = procSample(barePid);
    const a = procSample(pid);
    const ta = threadTicks(pid);
    const start = Date.now();
    let peakRss = a.rssMiB;
    while (Date.now() - start < MEASURE_MS) {
      await sleep(1000);
      peakRss = Math.max(peakRss, procSample(pid).rssMiB);
    }
    const b = procSample(pid);
    const bareB = procSample(barePid);
    const tb = threadTicks(pid);
    const elapsedS = (Date.now() - start) / 1000;
    // USER_HZ = 100 ticks per second.
    const millicores = ((b.cpuTicks - a.cpuTicks) / 100 / elapsedS) * 1000;
    const bareMillicores = ((bareB.cpuTicks - bareA.cpuTicks) / 100 / elapsedS) * 1000;
    // OCM_TS_BENCH_THREADS=1: where the idle CPU goes, per thread name.
    if (process.env.OCM_TS_BENCH_THREADS === '1') for (const [n, t] of tb) process.stdout.write(`  thread ${n}: ${((t - (ta.get(n) ?? 0)) * 10).toFixed(0)} ms\n`);
    hubAdmin.close();
    spokeAdmin.close();
    stopApprover.abort();
    await approving;
    return {
      binary: useDist ? dist : 'src/cli/main.ts via tsx (build for the real figure)',
      figures: { joinMs, rssMiB: b.rssMiB, peakRssMiB: peakRss, millicores, bareRssMiB: bareB.rssMiB, bareMillicores },
    };
  } finally {
    bare?.kill('SIGKILL');
    stopApprover.abort();
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child!.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    for (const s of servers) await s.close();
    await rm(dir, { recursive: true, force: true });
  }
}
