// Join benchmark (`npm run bench -- join`): from agent start to the hub's ManagedCluster being Joined and
// Available. The hub runs as `ocm-ts hub --data-dir` in a child process (its own core, as in a real
// deployment); the spoke API server and the measuring watch run here. Each join uses a new cluster
// name and its own agent namespace on the spoke; the end is observed with a watch on the hub (not
// polling), so the figure is not quantised. Four series:
//
// - manual accept: the hub without auto-approval; once the agent has created its ManagedCluster and
//   CSR, `ocm-ts accept`'s acceptCluster (in this process) approves and accepts; measured from
//   the accept to Joined and Available (BENCH_JOIN_ACCEPT_RUNS, default 5);
// - agent in this process, with auto-approval (gate ManagedClusterAutoApproval, bootstrap user in
//   --auto-approved-csr-users): the join as the agent's code sees it (BENCH_JOIN_RUNS, default 10);
// - agent as a child process (`node dist/cli/main.js agent`, or OCM_TS_AGENT_MAIN), interleaved
//   with the previous one: Node's start-up (spawn → first log line) is printed apart from the join;
// - agent in this process against the same hub through a relay that holds each direction half of
//   BENCH_JOIN_HUB_RTT_MS (default 20; 0 skips it), a hub that far away: there a join costs its
//   sequential round trips (BENCH_JOIN_REMOTE_RUNS, default 5).
//
// Printed with each: median and p90, a per-step breakdown (from the agent's log lines), the agent's
// round trips, CPU milliseconds per join of each process (a figure a busy machine hardly changes,
// unlike wall time), one HTTPS round trip measured in the same run, and the load average: wall
// time on a loaded machine is the same steps each waiting for a CPU. Targets: median ≤ 80 ms,
// p90 ≤ 120 ms on a quiet machine. OCM_TS_TRACE=1 also prints the median and the slowest in-process
// joins as timelines of hub and agent trace lines (tracing slows every join a little).

import 'reflect-metadata';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseYaml } from '../src/util/yaml.js';
import { loadCrds, SPOKE_CRD_NAMES } from '../src/api/crds.js';
import type * as AgentOptions from '../src/agent/options/agent-options.js';
import type * as SpokeAgent from '../src/agent/spoke-agent.js';
import type { SpokeAgentHandle } from '../src/agent/spoke-agent.js';
import type * as Embedded from '../src/apiserver/embedded.js';
import type { EmbeddedApiServer } from '../src/apiserver/embedded.js';
import type * as Accept from '../src/cli/accept.js';
import type * as Client from '../src/client/index.js';
import type { KubeClient } from '../src/client/types.js';
import { installCrds } from '../src/hub/install-crds.js';
import type * as ClockModule from '../src/util/clock.js';
import type * as LoggerModule from '../src/util/logger.js';
import { BUILT_MAIN, fromBuild, newerSourceThan, ROOT } from './product.js';
import {
  joinWatcher, kubeconfigWithServer, milestoneLogger, milestoneOf, MILESTONES, ownCpuMs, processCpuMs, quantile, roundTrips, sortedCopy,
  startDelayRelay, startHubChild, stopChild, traceTime, wallNow, type AgentMarks, type HubChild, type JoinWatcher,
} from './join-parts.js';

// What is timed comes from the build: the hub and child agent commands, and the agent, spoke API
// server and clients run in this process. BENCH_JOIN_HUB_MAIN and OCM_TS_AGENT_MAIN run other builds.
const HUB_MAIN = process.env['BENCH_JOIN_HUB_MAIN'] ? resolve(process.env['BENCH_JOIN_HUB_MAIN']) : BUILT_MAIN;
const AGENT_MAIN = process.env['OCM_TS_AGENT_MAIN'] ? resolve(process.env['OCM_TS_AGENT_MAIN']) : BUILT_MAIN;
const { defaultAgentOptions } = await fromBuild<typeof AgentOptions>('agent/options/agent-options.js');
const { startSpokeAgent } = await fromBuild<typeof SpokeAgent>('agent/spoke-agent.js');
const { startEmbeddedApiServer } = await fromBuild<typeof Embedded>('apiserver/embedded.js');
const { acceptCluster } = await fromBuild<typeof Accept>('cli/accept.js');
const { createKubeClient, resourceTypes } = await fromBuild<typeof Client>('client/index.js');
const { realClock } = await fromBuild<typeof ClockModule>('util/clock.js');
const { createLogger, nullLogger } = await fromBuild<typeof LoggerModule>('util/logger.js');
const TARGET_MEDIAN_MS = 80;
const TARGET_P90_MS = 120;
const JOIN_TIMEOUT_MS = 60_000;

interface Series {
  label: string;
  totals: number[];
  /** Per step: the time since the previous step. */
  steps: Map<string, number[]>;
  roundTrips: number[];
  /** CPU ms per join, by process. */
  cpu: Map<string, number[]>;
  /** Child process series: spawn → first log line. */
  startups: number[];
}

const newSeries = (label: string): Series => ({ label, totals: [], steps: new Map(), roundTrips: [], cpu: new Map(), startups: [] });
const push = <K>(m: Map<K, number[]>, k: K, v: number): void => void m.set(k, [...(m.get(k) ?? []), v]);
const ms = (v: number): string => `${v.toFixed(1)} ms`;

/** Steps from `from` in milestone order; the last one ends at `end`. */
function recordSteps(s: Series, marks: Map<string, number>, from: number, end: number): void {
  let prev = from;
  for (const [key] of MILESTONES) {
    const t = marks.get(key);
    if (t === undefined || t < from) continue;
    push(s.steps, key, t - prev);
    prev = t;
  }
  push(s.steps, 'Joined and Available on the hub', end - prev);
}

function timeout<T>(p: Promise<T>, what: () => Promise<string>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => void what().then((w) => reject(new Error(`not Joined and Available after ${JOIN_TIMEOUT_MS / 1000} s: ${w}`))), JOIN_TIMEOUT_MS);
    }),
  ]).finally(() => clearTimeout(timer));
}

interface Env {
  dir: string;
  spoke: EmbeddedApiServer;
  spokeClient: KubeClient;
  hub: HubChild;
  hubClient: KubeClient;
  watcher: JoinWatcher;
  seq: number;
}

async function newAgentNamespace(env: Env): Promise<{ name: string; namespace: string }> {
  const n = ++env.seq;
  const namespace = `agent-${n}`;
  await env.spokeClient.resource(resourceTypes.namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  return { name: `bench-${n}`, namespace };
}

async function startInProcessAgent(env: Env, name: string, namespace: string, marks: AgentMarks, trace?: (l: string) => void, bootstrapKubeconfig = env.hub.bootstrapKubeconfig): Promise<SpokeAgentHandle> {
  const d = defaultAgentOptions();
  return startSpokeAgent({
    options: {
      ...d,
      kubeconfig: env.spoke.adminKubeconfigPath,
      clusterName: name,
      namespace,
      bootstrapKubeconfig,
      hubKubeconfigDir: join(env.dir, 'agents', name),
      spokeExternalServerUrls: [env.spoke.url],
    },
    log: milestoneLogger(marks, trace ? createLogger({ level: 'trace', write: trace }) : undefined),
    clock: realClock,
    defaultMetrics: false,
  });
}

const describe = (env: Env, name: string, agent: string) => async (): Promise<string> => {
  try {
    const mc = await env.hubClient.resource(resourceTypes.managedClusters).get(name);
    return `${name}: agent ${agent}; hub ${JSON.stringify({ spec: mc['spec'], status: mc['status'] })}`;
  } catch (err) {
    return `${name}: agent ${agent}; hub: ${String(err)}`;
  }
};

/** When one join ran (epoch ms), to cut its lines out of the trace. */
interface TraceWindow {
  from: number;
  to: number;
  roundTrips: number;
}

/** The agent in this process, auto-approval: agent start → Joined and Available. */
async function joinInProcess(env: Env, s: Series, trace?: { lines: string[]; windows: TraceWindow[] }, bootstrapKubeconfig?: string): Promise<void> {
  const { name, namespace } = await newAgentNamespace(env);
  const marks: AgentMarks = { at: new Map(), roundTrips: 0 };
  const hubCpu0 = processCpuMs(env.hub.child.pid!);
  const cpu0 = ownCpuMs();
  const wall0 = wallNow();
  const t0 = performance.now();
  const joined = env.watcher.waitFor(name);
  const agent = await startInProcessAgent(env, name, namespace, marks, trace ? (l) => void trace.lines.push(`agent  ${l}`) : undefined, bootstrapKubeconfig);
  try {
    const t1 = await timeout(joined, describe(env, name, JSON.stringify(agent.status())));
    s.totals.push(t1 - t0);
    s.roundTrips.push(marks.roundTrips);
    push(s.cpu, 'bench process (agent + spoke API server)', ownCpuMs() - cpu0);
    const hubCpu1 = processCpuMs(env.hub.child.pid!);
    if (hubCpu0 !== undefined && hubCpu1 !== undefined) push(s.cpu, 'hub process', hubCpu1 - hubCpu0);
    recordSteps(s, marks.at, t0, t1);
    trace?.windows.push({ from: wall0, to: wall0 + (t1 - t0), roundTrips: marks.roundTrips });
  } finally {
    await agent.stop();
  }
}

/** `node dist/cli/main.js agent ...`: spawn → first log line (Node's start-up), then → Joined and Available. */
async function joinChildProcess(env: Env, s: Series): Promise<void> {
  const { name, namespace } = await newAgentNamespace(env);
  const args = [
    // OCM_TS_AGENT_NODE_ARGS: extra node flags (space-separated), e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`.
    ...(process.env['OCM_TS_AGENT_NODE_ARGS'] ?? '').split(' ').filter((a) => a !== ''),
    AGENT_MAIN, 'agent',
    `--kubeconfig=${env.spoke.adminKubeconfigPath}`,
    `--spoke-cluster-name=${name}`,
    `--component-namespace=${namespace}`,
    `--bootstrap-kubeconfig=${env.hub.bootstrapKubeconfig}`,
    `--hub-kubeconfig-dir=${join(env.dir, 'agents', name)}`,
    `--spoke-external-server-urls=${env.spoke.url}`,
    // As the in-process agent: no leader election, no health listener.
    '--disable-leader-election', '--listen=', '--log-level=info',
  ];
  const marks = new Map<string, number>();
  const hubCpu0 = processCpuMs(env.hub.child.pid!);
  const t0 = performance.now();
  const joined = env.watcher.waitFor(name);
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  let firstLine: number | undefined;
  let partial = '';
  let output = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    const now = performance.now();
    output = (output + d).slice(-4000);
    const lines = (partial + d).split('\n');
    partial = lines.pop() ?? '';
    for (const l of lines) {
      firstLine ??= now;
      let msg = '';
      try {
        msg = String((JSON.parse(l) as { msg?: unknown }).msg ?? '');
      } catch {
        continue;
      }
      const key = milestoneOf(msg);
      if (key && !marks.has(key)) marks.set(key, now);
    }
  });
  try {
    const t1 = await timeout(Promise.race([joined, exited.then((c) => Promise.reject(new Error(`agent exited with ${c}: ${output}`)))]), describe(env, name, output));
    const started = firstLine ?? t0;
    s.startups.push(started - t0);
    s.totals.push(t1 - started);
    const agentCpu = processCpuMs(child.pid!);
    if (agentCpu !== undefined) push(s.cpu, 'agent process (with its start-up)', agentCpu);
    const hubCpu1 = processCpuMs(env.hub.child.pid!);
    if (hubCpu0 !== undefined && hubCpu1 !== undefined) push(s.cpu, 'hub process', hubCpu1 - hubCpu0);
    recordSteps(s, marks, started, t1);
  } finally {
    await stopChild({ child, exited });
  }
}

/** Manual accept: once the agent waits with its ManagedCluster and CSR, accept → Joined and Available. */
async function joinManualAccept(env: Env, s: Series): Promise<void> {
  const { name, namespace } = await newAgentNamespace(env);
  let ready!: () => void;
  const waiting = new Promise<void>((r) => (ready = r));
  const marks: AgentMarks = { at: new Map(), roundTrips: 0 };
  marks.onMark = () => {
    if (marks.at.has('ManagedCluster created') && marks.at.has('CSR created')) ready();
  };
  const joined = env.watcher.waitFor(name);
  const agent = await startInProcessAgent(env, name, namespace, marks);
  try {
    await timeout(waiting, describe(env, name, JSON.stringify(agent.status())));
    const rt0 = marks.roundTrips;
    const t0 = performance.now();
    await acceptCluster({ client: env.hubClient, clock: realClock, wait: false, timeoutMs: JOIN_TIMEOUT_MS, say: () => {} }, name);
    push(s.steps, 'accepted (CSRs approved, hubAcceptsClient)', performance.now() - t0);
    const t1 = await timeout(joined, describe(env, name, JSON.stringify(agent.status())));
    s.totals.push(t1 - t0);
    s.roundTrips.push(marks.roundTrips - rt0);
    const accepted = t0 + (s.steps.get('accepted (CSRs approved, hubAcceptsClient)')?.at(-1) ?? 0);
    recordSteps(s, marks.at, accepted, t1);
  } finally {
    await agent.stop();
  }
}

function report(s: Series, rttMedian: number, targets: boolean): void {
  const sorted = sortedCopy(s.totals);
  if (sorted.length === 0) return;
  const med = quantile(sorted, 0.5);
  const p90 = quantile(sorted, 0.9);
  const verdict = targets ? `; targets median ≤ ${TARGET_MEDIAN_MS} ms, p90 ≤ ${TARGET_P90_MS} ms: ${med <= TARGET_MEDIAN_MS && p90 <= TARGET_P90_MS ? 'met' : 'NOT met'}` : '';
  process.stdout.write(`  ${s.label}: median ${ms(med)}, p90 ${ms(p90)}, min ${ms(sorted[0]!)}, max ${ms(sorted[sorted.length - 1]!)} — ${(med / rttMedian).toFixed(0)}× one round trip${verdict}\n`);
  if (s.startups.length > 0) {
    const st = sortedCopy(s.startups);
    process.stdout.write(`      Node start-up (spawn → first log line, not in the figures above): median ${ms(quantile(st, 0.5))}, p90 ${ms(quantile(st, 0.9))}\n`);
  }
  for (const [key, vals] of s.steps) {
    const v = sortedCopy(vals);
    process.stdout.write(`      ${`+ ${key}`.padEnd(45)} median ${ms(quantile(v, 0.5)).padStart(10)}  p90 ${ms(quantile(v, 0.9)).padStart(10)}\n`);
  }
  if (s.roundTrips.length > 0) process.stdout.write(`      agent round trips per join (requests and watches opened): median ${quantile(sortedCopy(s.roundTrips), 0.5)}\n`);
  // The mean as well: the kernel counts a process's CPU in 10 ms ticks, so one join's figure is coarse,
  // while the mean of many is not.
  for (const [who, vals] of s.cpu) process.stdout.write(`      CPU per join, ${who}: median ${ms(quantile(sortedCopy(vals), 0.5))}, mean ${ms(vals.reduce((a, b) => a + b, 0) / vals.length)}\n`);
}

function printTrace(lines: string[], w: TraceWindow, which: string): void {
  const inWindow = lines.map((l) => ({ l, t: traceTime(l.slice(7)) })).filter((x) => x.t >= w.from - 1 && x.t <= w.to + 1);
  inWindow.sort((a, b) => a.t - b.t);
  process.stdout.write(`\ntrace of the ${which} in-process join (${w.roundTrips} agent round trips), ms since agent start:\n`);
  // Each line: its process, then the line without its own time stamp (27 characters and a space).
  for (const { l, t } of inWindow) process.stdout.write(`${(t - w.from).toFixed(2).padStart(8)} ${l.slice(0, 7)}${l.slice(7 + 28)}\n`);
}

const loadLine = (): string => loadavg().map((v) => v.toFixed(2)).join(' ');

export async function benchJoin(): Promise<void> {
  const runs = Math.max(1, Number(process.env['BENCH_JOIN_RUNS'] ?? 10));
  const acceptRuns = Math.max(0, Number(process.env['BENCH_JOIN_ACCEPT_RUNS'] ?? Math.min(runs, 5)));
  const traceOn = process.env['OCM_TS_TRACE'] === '1';
  const loadBefore = loadLine();
  const dir = await mkdtemp(join(tmpdir(), 'ocm-ts-bench-join-'));
  const stop = new AbortController();
  const closers: Array<() => Promise<void> | void> = [];
  const trace = traceOn ? { lines: [] as string[], windows: [] as TraceWindow[] } : undefined;
  const onHubTrace = trace ? (l: string): void => void trace.lines.push(`hub    ${l}`) : undefined;
  let hub: HubChild | undefined;
  try {
    // 1. The hub without auto-approval (manual accept), and the spoke (in this process, prepared as
    //    the klusterlet operator would: spoke CRDs).
    hub = await startHubChild(HUB_MAIN, join(dir, 'hub'), [], onHubTrace);
    const token = (parseYaml(readFileSync(hub.bootstrapKubeconfig, 'utf8')) as { users: { user: { token: string } }[] }).users[0]!.user.token;
    const spoke = await startEmbeddedApiServer({ dataDir: join(dir, 'spoke'), listen: { host: '127.0.0.1', port: 0 }, log: nullLogger(), clock: realClock });
    closers.push(() => spoke.close());
    const spokeClient = createKubeClient({ kubeconfigPath: spoke.adminKubeconfigPath });
    closers.push(() => spokeClient.close());
    await installCrds(spokeClient, loadCrds(SPOKE_CRD_NAMES), { clock: realClock, signal: stop.signal });
    const connect = async (h: HubChild, signal: AbortSignal): Promise<{ hubClient: KubeClient; watcher: JoinWatcher }> => {
      const hubClient = createKubeClient({ kubeconfigPath: h.adminKubeconfig });
      const watcher = joinWatcher(hubClient, signal);
      await watcher.ready;
      return { hubClient, watcher };
    };
    const first = new AbortController();
    const env: Env = { dir, spoke, spokeClient, hub, ...(await connect(hub, first.signal)), seq: 0 };

    // 2. Manual accept.
    const manual = newSeries('manual accept (acceptCluster of `ocm-ts accept`), from the accept');
    for (let i = 0; i < acceptRuns; i++) await joinManualAccept(env, manual);
    first.abort();
    env.hubClient.close();
    await stopChild(hub);

    // 3. The same hub with auto-approval for its bootstrap user.
    hub = await startHubChild(HUB_MAIN, join(dir, 'hub'), ['--feature-gates', 'ManagedClusterAutoApproval=true', '--auto-approved-csr-users', `system:bootstrap:${token.split('.')[0]!}`], onHubTrace);
    Object.assign(env, { hub, ...(await connect(hub, stop.signal)) });
    closers.push(() => env.hubClient.close());
    const rtt = await roundTrips(hub.adminKubeconfig, 50);
    const rttMedian = quantile(rtt, 0.5);

    // 4. The agent in this process and as a child process, one join of each in turn, so that load
    //    drift on a shared machine hits both alike.
    const inProcess = newSeries('agent in this process, auto-approval, from agent start');
    const childSeries = newSeries(`agent as a child process (${AGENT_MAIN.startsWith(ROOT) ? AGENT_MAIN.slice(ROOT.length) : AGENT_MAIN}), auto-approval, from its first log line`);
    const haveDist = existsSync(AGENT_MAIN);
    for (let i = 0; i < runs; i++) {
      await joinInProcess(env, inProcess, trace);
      if (haveDist) await joinChildProcess(env, childSeries);
    }

    // 5. The agent in this process against the same hub behind a relay that delays each direction.
    const hubRttMs = Math.max(0, Number(process.env['BENCH_JOIN_HUB_RTT_MS'] ?? 20));
    const remoteRuns = Math.max(0, Number(process.env['BENCH_JOIN_REMOTE_RUNS'] ?? Math.min(runs, 5)));
    let remote: { series: Series; rtt: number[] } | undefined;
    if (hubRttMs > 0 && remoteRuns > 0) {
      const hubUrl = new URL(hub.url);
      const relay = await startDelayRelay(hubUrl.hostname, Number(hubUrl.port), hubRttMs / 2);
      closers.push(() => relay.close());
      const relayUrl = `https://127.0.0.1:${relay.port}`;
      const bootstrap = kubeconfigWithServer(hub.bootstrapKubeconfig, relayUrl, join(dir, 'bootstrap-relayed.kubeconfig'));
      const rtt = await roundTrips(kubeconfigWithServer(hub.adminKubeconfig, relayUrl, join(dir, 'admin-relayed.kubeconfig')), 10);
      const series = newSeries(`agent in this process, the hub ${hubRttMs} ms of round trip away (a delaying relay), auto-approval, from agent start`);
      for (let i = 0; i < remoteRuns; i++) await joinInProcess(env, series, undefined, bootstrap);
      remote = { series, rtt };
    }

    // 6. Report.
    process.stdout.write(`join: agent start → ManagedCluster Joined and Available on the hub; ${runs} joins per series (${acceptRuns} with manual accept)\n`);
    process.stdout.write(`  machine: ${cpus().length} CPUs; load average ${loadBefore} at start, ${loadLine()} at the end\n`);
    process.stdout.write(`  HTTPS round trip (GET /version, kept-alive, median of 50): ${ms(rttMedian)} (p90 ${ms(quantile(rtt, 0.9))})\n`);
    report(inProcess, rttMedian, true);
    if (haveDist) {
      if (newerSourceThan(AGENT_MAIN, join(ROOT, 'src'))) process.stdout.write(`  note: src/ has files newer than ${AGENT_MAIN}: the child process runs an older build (npm run build)\n`);
      report(childSeries, rttMedian, true);
    } else process.stdout.write(`  agent as a child process: skipped, ${AGENT_MAIN} does not exist (npm run build, or OCM_TS_AGENT_MAIN)\n`);
    if (remote) {
      process.stdout.write(`  HTTPS round trip through the relay (GET /version, kept-alive, median of 10): ${ms(quantile(remote.rtt, 0.5))}\n`);
      report(remote.series, quantile(remote.rtt, 0.5), false);
    }
    report(manual, rttMedian, false);
    if (loadavg()[0]! > cpus().length / 2) {
      process.stdout.write(
        `  the machine was busy: with a load average near or above ${cpus().length} (CPUs), each step of a join waits for a CPU as well as for its\n` +
          `  round trips, so wall times grow with the load while the CPU per join stays about the same; compare those, and the round trip above.\n`,
      );
    }
    if (trace && trace.windows.length > 0) {
      const byLength = [...trace.windows].sort((a, b) => a.to - a.from - (b.to - b.from));
      printTrace(trace.lines, byLength[Math.floor((byLength.length - 1) / 2)]!, 'median');
      if (byLength.length > 1) printTrace(trace.lines, byLength[byLength.length - 1]!, 'slowest');
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
