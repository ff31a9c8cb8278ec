// Pieces of the join benchmark (./join.ts): the hub child process, the watch that sees a cluster
// become Joined and Available, the agent's milestones (from its log lines), CPU accounting and
// small statistics. Nothing here prints.

import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { Agent, request, type RequestOptions } from 'node:https';
import { performance } from 'node:perf_hooks';
import { KubeConfig } from '@kubernetes/client-node';
import type { ManagedCluster } from '../src/api/cluster.js';
import { resourceTypes } from '../src/client/index.js';
import type { KubeClient } from '../src/client/types.js';
import type { LogFields, Logger } from '../src/util/logger.js';
import { parseYaml, toYaml } from '../src/util/yaml.js';

const JOINED = 'ManagedClusterJoined';
const AVAILABLE = 'ManagedClusterConditionAvailable';

export interface HubChild {
  child: ChildProcess;
  url: string;
  adminKubeconfig: string;
  bootstrapKubeconfig: string;
  exited: Promise<number | null>;
}

/** `ocm-ts hub --data-dir` as a child process; with `onTrace` it runs at --log-level trace and hands over each line. */
export async function startHubChild(main: string, dataDir: string, extra: string[], onTrace?: (line: string) => void): Promise<HubChild> {
  // BENCH_JOIN_HUB_NODE_ARGS: extra node flags for the hub (space-separated), e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`.
  const nodeArgs = (process.env['BENCH_JOIN_HUB_NODE_ARGS'] ?? '').split(' ').filter((a) => a !== '');
  const child = spawn(process.execPath, [...nodeArgs, ...(main.endsWith('.ts') ? ['--import', 'tsx'] : []), main, 'hub', '--data-dir', dataDir, '--apiserver-listen', '127.0.0.1:0', '--log-level', onTrace ? 'trace' : 'error', ...extra], {
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

export async function stopChild(c: { child: ChildProcess; exited: Promise<unknown> }): Promise<void> {
  if (c.child.exitCode !== null || c.child.signalCode !== null) return;
  c.child.kill('SIGTERM');
  const timer = setTimeout(() => c.child.kill('SIGKILL'), 15_000);
  await c.exited;
  clearTimeout(timer);
}

/** Nearest-rank quantile of sorted values. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

export const sortedCopy = (v: readonly number[]): number[] => [...v].sort((a, b) => a - b);

/** GET /version on one kept-alive TLS connection, `n` times after a warm-up; returns sorted ms. */
export async function roundTrips(adminKubeconfig: string, n: number): Promise<number[]> {
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
  return sortedCopy(out);
}

export interface JoinWatcher {
  ready: Promise<void>;
  /** Resolves with performance.now() of the watch event that showed `name` Joined and Available. */
  waitFor(name: string): Promise<number>;
}

/** One watch on the hub's ManagedClusters (not polling, so the end of a join is not quantised). */
export function joinWatcher(hubClient: KubeClient, signal: AbortSignal): JoinWatcher {
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

/** The agent's steps, each recognised by the log message that ends it. */
export const MILESTONES: ReadonlyArray<readonly [string, RegExp]> = [
  ['management informers synced', /^Waiting for hub client config and managed cluster to be ready/],
  ['ManagedCluster created', /^Managed cluster ".*" created on hub/],
  ['CSR created', /^A csr ".*" is created/],
  ['certificate issued', /^A new client certificate for .* is available/],
  ['bootstrap wait noticed', /^hub client config is ready/],
  ['main phase started', /^registration agent main phase started/],
];

export function milestoneOf(msg: string): string | undefined {
  return MILESTONES.find(([, re]) => re.test(msg))?.[0];
}

export interface AgentMarks {
  /** performance.now() of each milestone's first line. */
  at: Map<string, number>;
  /** HTTPS requests and watches the agent opened. */
  roundTrips: number;
  /** Called at each new milestone. */
  onMark?: (key: string) => void;
}

/** Records the agent's milestones and counts its round trips; passes every line on to `inner` (trace). */
export function milestoneLogger(marks: AgentMarks, inner?: Logger): Logger {
  const rec = (msg: string): void => {
    const key = milestoneOf(msg);
    if (key && !marks.at.has(key)) {
      marks.at.set(key, performance.now());
      marks.onMark?.(key);
    }
  };
  const wrap = (to: Logger | undefined): Logger => {
    const l: Logger = {
      debug: (m: string, f?: LogFields) => {
        if (m === 'http' || m === 'http watch opened') marks.roundTrips++;
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
export function traceTime(line: string): number {
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3})(\d{3})Z/.exec(line);
  return m ? Date.parse(`${m[1]!}Z`) + Number(m[2]!) / 1000 : NaN;
}

export const wallNow = (): number => performance.timeOrigin + performance.now();

/** CPU milliseconds (user + system) a process has used so far, from /proc; undefined elsewhere. */
export function processCpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // USER_HZ is 100 on Linux: a tick is 10 ms.
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

/** CPU milliseconds this process has used so far. */
export function ownCpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

export interface DelayRelay {
  port: number;
  close(): Promise<void>;
}

/**
 * A TCP relay to `host:port` that holds every chunk `oneWayMs` in each direction, so that a server
 * on loopback behaves as one `2 × oneWayMs` of round trip away (the TCP handshake with the relay
 * itself is not delayed; everything after it, TLS included, is).
 */
export async function startDelayRelay(host: string, port: number, oneWayMs: number): Promise<DelayRelay> {
  const sockets = new Set<Socket>();
  const track = (s: Socket): void => {
    sockets.add(s);
    s.setNoDelay(true);
    s.on('close', () => sockets.delete(s));
  };
  // Timers of one delay fire in the order they were set, so chunks keep their order.
  const forward = (from: Socket, to: Socket): void => {
    from.on('data', (d: Buffer) => void setTimeout(() => void (to.destroyed || to.write(d)), oneWayMs));
    from.on('end', () => void setTimeout(() => void (to.destroyed || to.end()), oneWayMs));
    from.on('error', () => to.destroy());
    from.on('close', () => void setTimeout(() => to.destroy(), oneWayMs + 1));
  };
  const server = createServer((client) => {
    const upstream = connect(port, host);
    track(client);
    track(upstream);
    forward(client, upstream);
    forward(upstream, client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A copy of a kubeconfig whose clusters point at `server`, written to `out`. */
export function kubeconfigWithServer(path: string, server: string, out: string): string {
  const kc = parseYaml(readFileSync(path, 'utf8')) as { clusters?: { cluster: { server: string } }[] };
  for (const c of kc.clusters ?? []) c.cluster.server = server;
  writeFileSync(out, toYaml(kc), { mode: 0o600 });
  return out;
}
