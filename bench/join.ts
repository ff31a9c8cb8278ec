// Join benchmark (`npm run bench -- join`): from agent start to the hub's ManagedCluster being Joined and
// Available, with auto-approval (gate ManagedClusterAutoApproval, bootstrap user in
// --auto-approved-csr-users). The hub runs as `ocm-ts hub --data-dir` in a child process (its own core,
// as in a real deployment); the spoke API server, the agents and the measuring watch run here. Each join
// uses a new cluster name and its own agent namespace on the spoke; the end is observed with a watch on
// the hub (not polling), so the figure is not quantised.
//
// Printed: median and p90 of BENCH_JOIN_RUNS (default 10) joins with the agent's default timings (what
// `ocm-ts agent` does), the same with the bootstrap wait poll shortened to 50 ms (hidden flag
// --bootstrap-poll-period) to show what the fixed 1 s poll costs, a per-phase breakdown (from the agent's
// log lines), and beside them one HTTPS round trip (GET /version on a kept-alive connection to the hub,
// median of 50) measured in the same run, and the ratios. Target: median ≤ 300 ms on 2 cores.

import 'reflect-metadata';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, request, type RequestOptions } from 'node:https';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import YAML from 'yaml';
import type { ManagedCluster } from '../src/api/cluster.js';
import { loadCrds, SPOKE_CRD_NAMES } from '../src/api/crds.js';
import { startEmbeddedApiServer } from '../src/apiserver/embedded.js';
import { defaultAgentOptions, type AgentTimings } from '../src/agent/options/agent-options.js';
import { startSpokeAgent } from '../src/agent/spoke-agent.js';
import { createKubeClient, resourceTypes } from '../src/client/index.js';
import type { KubeClient } from '../src/client/types.js';
import { installCrds } from '../src/hub/install-crds.js';
import { realClock } from '../src/util/clock.js';
import { createLogger, nullLogger, type LogFields, type Logger } from '../src/util/logger.js';

// The hub command from source (as the rest of the bench); BENCH_JOIN_HUB_MAIN=dist/cli/main.js runs a build instead.
const MAIN = process.env['BENCH_JOIN_HUB_MAIN'] ? resolve(process.env['BENCH_JOIN_HUB_MAIN']) : fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));
const JOINED = 'ManagedClusterJoined';
const AVAILABLE = 'ManagedClusterConditionAvailable';

interface HubChild {
  child: ChildProcess;
  url: string;
  adminKubeconfig: string;
  bootstrapKubeconfig: string;
  exited: Promise<number | null>;
}

async function startHubChild(dataDir: string, extra: string[], onTrace?: (line: string) => void): Promise<HubChild> {
  const child = spawn(process.execPath, [...(MAIN.endsWith('.ts') ? ['--import', 'tsx'] : []), MAIN, 'hub', '--data-dir', dataDir, '--apiserver-listen', '127.0.0.1:0', '--log-level', onTrace ? 'trace' : 'error', ...extra], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let out = '';
  let err = '';
  let partial = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    if (!onTrace) {
      err += d;
      return;
    }
    const lines = (partial + d).split('\n');
    partial = lines.pop() ?? '';
    for (const l of lines) onTrace(l);
  });
  const line = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`hub not ready after 120 s: ${err}`)), 120_000);
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const l = out.split('\n').find((x) => x.startsWith('ocm-ts hub ready:'));
      if (l) {
        clearTimeout(timer);
        resolve(l);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`hub exited with ${code}: ${err}`));
    });
  });
  const m = /apiserver (\S+) admin-kubeconfig (\S+) bootstrap-kubeconfig (\S+)/.exec(line);
  if (!m) throw new Error(`unexpected hub ready line: ${line}`);
  return { child, url: m[1]!, adminKubeconfig: m[2]!, bootstrapKubeconfig: m[3]!, exited };
}

async function stopChild(h: HubChild): Promise<void> {
  if (h.child.exitCode !== null || h.child.signalCode !== null) return;
  h.child.kill('SIGTERM');
  const timer = setTimeout(() => h.child.kill('SIGKILL'), 15_000);
  await h.exited;
  clearTimeout(timer);
}

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  // Nearest rank.
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

const ms = (v: number): string => `${v.toFixed(1)} ms`;

/** GET /version on one kept-alive TLS connection, `n` times after a warm-up; returns sorted ms. */
async function roundTrips(adminKubeconfig: string, n: number): Promise<number[]> {
  const kc = new KubeConfig();
  kc.loadFromFile(adminKubeconfig);
  const opts: RequestOptions = {};
  await kc.applyToHTTPSOptions(opts);
  const agent = new Agent({ keepAlive: true, maxSockets: 1, ca: opts.ca, cert: opts.cert, key: opts.key });
  const url = new URL('/version', kc.getCurrentCluster()!.server);
  const once = (): Promise<number> =>
    new Promise((resolve, reject) => {
      const t0 = performance.now();
      const req = request(url, { agent, headers: { ...(opts.headers ?? {}), accept: 'application/json' } }, (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve(performance.now() - t0) : reject(new Error(`GET /version: ${res.statusCode}`))));
      });
      req.on('error', reject);
      req.end();
    });
  for (let i = 0; i < 5; i++) await once();
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(await once());
  agent.destroy();
  return out.sort((a, b) => a - b);
}

/** Resolves, per cluster name, when a watch event shows it Joined and Available. */
function joinWatcher(hubClient: KubeClient, signal: AbortSignal): { ready: Promise<void>; waitFor(name: string): Promise<number> } {
  const waiters = new Map<string, (t: number) => void>();
  const seen = new Map<string, number>();
  const mcs = hubClient.resource<ManagedCluster>(resourceTypes.managedClusters);
  let markReady!: () => void;
  const ready = new Promise<void>((r) => (markReady = r));
  void (async () => {
    while (!signal.aborted) {
      try {
        const list = await mcs.list({ signal });
        markReady();
        for await (const ev of mcs.watch({ resourceVersion: list.metadata?.resourceVersion ?? '', allowWatchBookmarks: true, signal })) {
          const t = performance.now();
          const obj = ev.object as ManagedCluster;
          const name = obj?.metadata?.name;
          if (!name || (ev.type !== 'ADDED' && ev.type !== 'MODIFIED')) continue;
          const cond = (type: string) => obj.status?.conditions?.find((c) => c.type === type)?.status;
          if (cond(JOINED) === 'True' && cond(AVAILABLE) === 'True' && !seen.has(name)) {
            seen.set(name, t);
            waiters.get(name)?.(t);
          }
        }
      } catch {
        if (signal.aborted) return;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  })();
  return {
    ready,
    waitFor(name) {
      const t = seen.get(name);
      if (t !== undefined) return Promise.resolve(t);
      return new Promise((resolve) => waiters.set(name, resolve));
    },
  };
}

/** Records when the agent logs its milestones and counts its round trips; passes every line on to `inner` (trace). */
function milestoneLogger(marks: Map<string, number>, counts: { roundTrips: number }, inner?: Logger): Logger {
  const rec = (msg: string): void => {
    const key = milestoneOf(msg);
    if (key && !marks.has(key)) marks.set(key, performance.now());
  };
  const wrap = (to: Logger | undefined): Logger => {
    const l: Logger = {
      debug: (m: string, f?: LogFields) => {
        if (m === 'http' || m === 'http watch opened') counts.roundTrips++;
        to?.debug(m, f);
      },
      info: (m: string, f?: LogFields) => {
        rec(m);
        to?.info(m, f);
      },
      warn: (m: string, f?: LogFields) => {
        rec(m);
        to?.warn(m, f);
      },
      error: (m: string, f?: LogFields) => {
        rec(m);
        to?.error(m, f);
      },
      child: (fields: LogFields) => (to ? wrap(to.child(fields)) : l),
    };
    return l;
  };
  return wrap(inner);
}

/** Epoch milliseconds (with a fraction) of a trace line's leading time. */
function traceTime(line: string): number {
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3})(\d{3})Z/.exec(line);
  return m ? Date.parse(`${m[1]!}Z`) + Number(m[2]!) / 1000 : NaN;
}

const wallNow = (): number => performance.timeOrigin + performance.now();

const MILESTONES: Array<[string, RegExp]> = [
  ['management informers synced', /^Waiting for hub client config and managed cluster to be ready/],
  ['ManagedCluster created', /^Managed cluster ".*" created on hub/],
  ['CSR created', /^A csr ".*" is created/],
  ['certificate issued', /^A new client certificate for .* is available/],
  ['bootstrap wait noticed', /^hub client config is ready/],
  ['main phase started', /^registration agent main phase started/],
];

function milestoneOf(msg: string): string | undefined {
  return MILESTONES.find(([, re]) => re.test(msg))?.[0];
}

interface JoinSeries {
  label: string;
  timings: Partial<AgentTimings>;
  totals: number[];
  /** The agent's HTTPS requests (and watches opened) per join. */
  roundTrips: number[];
  phases: Map<string, number[]>;
}

export async function benchJoin(): Promise<void> {
  const runs = Math.max(1, Number(process.env['BENCH_JOIN_RUNS'] ?? 10));
  // OCM_TS_TRACE=1: the hub runs with --log-level trace and the last join of the first series is
  // printed as one timeline of hub and agent lines (tracing itself slows every join a little).
  const trace = process.env['OCM_TS_TRACE'] === '1';
  const hubTrace: string[] = [];
  const onHubTrace = trace ? (l: string): void => void hubTrace.push(`hub    ${l}`) : undefined;
  const dir = await mkdtemp(join(tmpdir(), 'ocm-ts-bench-join-'));
  const stop = new AbortController();
  let hub: HubChild | undefined;
  const closers: Array<() => Promise<void> | void> = [];
  try {
    // 1. The hub, once to learn its bootstrap token id, then with auto-approval for that bootstrap user.
    hub = await startHubChild(join(dir, 'hub'), []);
    const token = String(YAML.parse(readFileSync(hub.bootstrapKubeconfig, 'utf8')).users[0].user.token);
    const tokenId = token.split('.')[0]!;
    await stopChild(hub);
    const autoHub = await startHubChild(join(dir, 'hub'), ['--feature-gates', 'ManagedClusterAutoApproval=true', '--auto-approved-csr-users', `system:bootstrap:${tokenId}`], onHubTrace);
    hub = autoHub;
    const hubClient = createKubeClient({ kubeconfigPath: autoHub.adminKubeconfig });
    closers.push(() => hubClient.close());

    // 2. The spoke (in-process), prepared as the klusterlet operator would: spoke CRDs.
    const spoke = await startEmbeddedApiServer({ dataDir: join(dir, 'spoke'), listen: { host: '127.0.0.1', port: 0 }, log: nullLogger(), clock: realClock });
    closers.push(() => spoke.close());
    const spokeClient = createKubeClient({ kubeconfigPath: spoke.adminKubeconfigPath });
    closers.push(() => spokeClient.close());
    await installCrds(spokeClient, loadCrds(SPOKE_CRD_NAMES), { clock: realClock, signal: stop.signal });

    const watcher = joinWatcher(hubClient, stop.signal);
    await watcher.ready;

    // 3. One HTTPS round trip to the hub, in the same run.
    const rtt = await roundTrips(autoHub.adminKubeconfig, 50);
    const rttMedian = quantile(rtt, 0.5);

    // 4. Joins.
    let seq = 0;
    // The two series are interleaved (one join of each in turn) so that load drift on a shared machine hits both alike.
    let traced: { from: number; to: number; agentLines: string[]; roundTrips: number } | undefined;
    const joinOnce = async (s: JoinSeries, traceThis: boolean): Promise<void> => {
      const name = `bench-${++seq}`;
      const namespace = `agent-${seq}`;
      await spokeClient.resource(resourceTypes.namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
      const d = defaultAgentOptions();
      const marks = new Map<string, number>();
      const counts = { roundTrips: 0 };
      const agentLines: string[] = [];
      const agentTrace = traceThis ? createLogger({ level: 'trace', write: (l) => agentLines.push(`agent  ${l}`) }) : undefined;
      const wall0 = wallNow();
      const t0 = performance.now();
      const joined = watcher.waitFor(name);
      const agent = await startSpokeAgent({
        options: {
          ...d,
          kubeconfig: spoke.adminKubeconfigPath,
          clusterName: name,
          namespace,
          bootstrapKubeconfig: autoHub.bootstrapKubeconfig,
          hubKubeconfigDir: join(dir, 'agents', name),
          spokeExternalServerUrls: [spoke.url],
          timings: { ...d.timings, ...s.timings },
        },
        log: milestoneLogger(marks, counts, agentTrace),
        clock: realClock,
        defaultMetrics: false,
      });
      let timer: NodeJS.Timeout | undefined;
      try {
        const t1 = await Promise.race([
          joined,
          new Promise<never>((_, reject) => (timer = setTimeout(() => {
            void hubClient.resource<ManagedCluster>(resourceTypes.managedClusters).get(name).then(
              (mc) => reject(new Error(`${name} not Joined and Available after 60 s (agent ${JSON.stringify(agent.status())}; hub: ${JSON.stringify({ spec: mc.spec, conditions: mc.status?.conditions })})`)),
              (err: unknown) => reject(new Error(`${name} not Joined and Available after 60 s (agent ${JSON.stringify(agent.status())}; hub: ${String(err)})`)),
            );
          }, 60_000))),
        ]);
        s.totals.push(t1 - t0);
        s.roundTrips.push(counts.roundTrips);
        if (traceThis) traced = { from: wall0, to: wall0 + (t1 - t0), agentLines, roundTrips: counts.roundTrips };
        let prev = t0;
        const add = (key: string, t: number): void => {
          s.phases.set(key, [...(s.phases.get(key) ?? []), t - prev]);
          prev = t;
        };
        for (const [key] of MILESTONES) {
          const t = marks.get(key);
          if (t !== undefined) add(key, t);
        }
        add('Joined and Available on the hub', t1);
      } finally {
        clearTimeout(timer);
        await agent.stop();
      }
    };
    const results: JoinSeries[] = [
      { label: 'agent defaults (bootstrap wait woken by the secret dump, 1 s poll fallback)', timings: {}, totals: [], roundTrips: [], phases: new Map() },
      { label: 'bootstrap wait poll 50 ms', timings: { bootstrapPollMs: 50 }, totals: [], roundTrips: [], phases: new Map() },
    ];
    for (let i = 0; i < runs; i++) for (const s of results) await joinOnce(s, trace && i === runs - 1 && s === results[0]);

    // 5. Report.
    process.stdout.write(`join: agent start → ManagedCluster Joined and Available on the hub (auto-approval), ${runs} joins per series\n`);
    process.stdout.write(`  HTTPS round trip (GET /version, kept-alive, median of 50): ${ms(rttMedian)} (p90 ${ms(quantile(rtt, 0.9))})\n`);
    for (const s of results) {
      const sorted = [...s.totals].sort((a, b) => a - b);
      const med = quantile(sorted, 0.5);
      const p90 = quantile(sorted, 0.9);
      process.stdout.write(
        `  ${s.label}: median ${ms(med)}, p90 ${ms(p90)}, min ${ms(sorted[0]!)}, max ${ms(sorted[sorted.length - 1]!)}` +
          ` — ${(med / rttMedian).toFixed(0)}× one round trip; target median ≤ 300 ms: ${med <= 300 ? 'met' : 'NOT met'}\n`,
      );
      for (const [key, vals] of s.phases) {
        const v = [...vals].sort((a, b) => a - b);
        process.stdout.write(`      ${`+ ${key}`.padEnd(36)} median ${ms(quantile(v, 0.5)).padStart(10)}  p90 ${ms(quantile(v, 0.9)).padStart(10)}\n`);
      }
      process.stdout.write(`      agent round trips per join: median ${quantile([...s.roundTrips].sort((a, b) => a - b), 0.5)}\n`);
    }
    if (traced) {
      const { from, to } = traced;
      const lines = [...traced.agentLines, ...hubTrace].map((l) => ({ l, t: traceTime(l.slice(7)) })).filter((x) => x.t >= from - 1 && x.t <= to + 1);
      lines.sort((a, b) => a.t - b.t);
      process.stdout.write(`\ntrace of the last join (${traced.roundTrips} agent round trips), ms since agent start:\n`);
      for (const { l, t } of lines) process.stdout.write(`${(t - from).toFixed(2).padStart(8)} ${l.slice(0, 7)}${l.slice(7 + 28)}\n`);
    }
  } finally {
    stop.abort();
    for (const c of closers.reverse()) {
      try {
        await c();
      } catch {
        // best effort
      }
    }
    if (hub) await stopChild(hub);
    await rm(dir, { recursive: true, force: true });
  }
}
