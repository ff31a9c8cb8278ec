// The fleet's agents spread over worker processes (`ocm-ts fleet-worker`, forked with an IPC
// channel), so that the simulator uses every core and no one event loop runs thousands of agents.
// The coordinator keeps the hub, the shared spoke and the watch of the hub; each worker runs a
// round-robin share of the cluster names at its share of the join rate and reports its figures,
// which are summed here. A worker that exits unasked is reported and its agents count as failed.

import { fork, type ChildProcess } from 'node:child_process';
import { getPriority, setPriority } from 'node:os';
import type { Clock } from '../util/clock.js';
import { errorMessage } from '../util/errors.js';
import type { Logger, LogLevel } from '../util/logger.js';
import type { AgentTotals } from './agent-group.js';
import type { CliEntry } from './hub-process.js';
import { readProcSample } from './proc-stats.js';
import type { RequestProbe } from './request-probe.js';
import { Reservoir } from './stats.js';
import { parseFromWorker, type AgentSlice, type ToWorker, type WorkerConfig, type WorkerReport } from './worker-protocol.js';

/** How much lower the workers' CPU priority is than the coordinator's (and the hub's). */
const WORKER_NICENESS = 10;

/** At most this many agents per worker by default. */
const AGENTS_PER_WORKER = 2_500;
/** Up to this many agents the default keeps them in the coordinator's own process. */
const IN_PROCESS_MAX = 1_000;

/** The default worker count for `clusters` agents: 0 (in-process) up to 1,000, else enough for ≤ 2,500 each. */
export function defaultWorkerCount(clusters: number): number {
  return clusters <= IN_PROCESS_MAX ? 0 : Math.ceil(clusters / AGENTS_PER_WORKER);
}

interface WorkerPoolOptions extends AgentSlice {
  count: number;
  cli: CliEntry;
  hubHostPort: string;
  /** The agents' log level in the workers; undefined = none. */
  logLevel?: LogLevel;
  /** Period of the workers' reports (default 500 ms). */
  reportIntervalMs?: number;
  /** Longest wait for a worker to load (default 120 s) and to stop before SIGKILL (default 30 s). */
  readyTimeoutMs?: number;
  stopTimeoutMs?: number;
  log: Logger;
  clock: Clock;
}

interface WorkerPool {
  /** Sum of the workers' RSS before their first agent (bytes). */
  readonly baselineRssBytes: number;
  firstStartMs(): number | undefined;
  /** Resolves when every worker started all its agents (or exited). */
  readonly allStarted: Promise<void>;
  started(): number;
  failed(): number;
  totals(): AgentTotals;
  /** The workers' RSS now (bytes). */
  rssBytes(): number;
  /** The workers' CPU time so far (seconds); a worker that exited keeps its last figure. */
  cpuSeconds(): number;
  /** The workers' request figures added to `local` (the coordinator's own probe). */
  probeOver(local: RequestProbe): RequestProbe;
  /** Asks every worker for a report now and waits for the answers (at most `timeoutMs`, default 5 s). */
  refresh(timeoutMs?: number): Promise<void>;
  /** Stops every worker (each stops its agents, then exits); SIGKILL after the stop timeout. */
  stop(): Promise<void>;
}

interface Worker {
  index: number;
  names: string[];
  child: ChildProcess;
  exited: Promise<void>;
  readyRss: number | undefined;
  last: WorkerReport | undefined;
  cpuSeconds: number;
  /** The coordinator asked it to stop (an exit is then no failure). */
  stopAsked: boolean;
  crashed: boolean;
  onReport: Set<(r: WorkerReport) => void>;
}

function alive(w: Worker): boolean {
  return w.child.exitCode === null && w.child.signalCode === null;
}

function within<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([p, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)))]).finally(() => clearTimeout(timer));
}

export async function startWorkerPool(o: WorkerPoolOptions): Promise<WorkerPool> {
  if (!Number.isInteger(o.count) || o.count < 1) throw new Error(`a worker pool needs at least one worker, got ${o.count}`);
  const count = Math.min(o.count, Math.max(1, o.names.length));
  const leaseUpdates = new Reservoir(100_000);
  let leaseFailures = 0;
  let requests = 0;
  let longestLoopDelay = 0;
  const leaseRequests = new Map<string, number>();
  let firstStart: number | undefined;
  let seq = 0;

  const absorb = (w: Worker, r: WorkerReport): void => {
    w.last = r;
    leaseUpdates.merge(r.leaseSamples, r.leaseSeen);
    leaseFailures += r.newLeaseFailures;
    requests += r.newRequests;
    longestLoopDelay = Math.max(longestLoopDelay, r.loopDelayMaxMs);
    for (const [ns, n] of r.leaseRequests) leaseRequests.set(ns, n);
    for (const fn of w.onReport) fn(r);
  };

  const workers: Worker[] = Array.from({ length: count }, (_, index) => {
    const child = fork(o.cli.script, ['fleet-worker'], { execArgv: [...o.cli.execArgv], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    // The simulated clusters yield the CPU to the hub they measure: at equal priority, several busy
    // workers share the cores evenly with the hub's one event loop and starve it, its answers slow
    // past the agents' timeouts and their retries (new CSRs among them) pile onto it.
    if (child.pid !== undefined) {
      try {
        setPriority(child.pid, Math.min(19, getPriority(process.pid) + WORKER_NICENESS));
      } catch (err) {
        o.log.warn('fleet: cannot lower a worker\'s CPU priority', { worker: index, err: errorMessage(err) });
      }
    }
    const w: Worker = {
      index,
      names: o.names.filter((_, i) => i % count === index),
      child,
      exited: new Promise<void>((resolve) => child.once('exit', () => resolve())),
      readyRss: undefined,
      last: undefined,
      cpuSeconds: 0,
      stopAsked: false,
      crashed: false,
      onReport: new Set(),
    };
    child.on('error', (err) => o.log.error('fleet: worker process error', { worker: index, err: errorMessage(err) }));
    child.on('message', (raw) => {
      try {
        const msg = parseFromWorker(raw);
        if (msg.type === 'ready') w.readyRss = msg.rssBytes;
        else if (msg.type === 'report') absorb(w, msg.report);
      } catch (err) {
        o.log.error('fleet: a worker message was not understood', { worker: index, err: errorMessage(err) });
      }
    });
    child.once('exit', (code, sig) => {
      if (w.stopAsked || w.readyRss === undefined) return;
      w.crashed = true;
      o.log.error(`fleet: worker ${index} (pid ${child.pid}) exited unasked (${sig ?? `code ${code}`}): its ${w.names.length} agents count as failed`, { worker: index });
    });
    return w;
  });

  const send = (w: Worker, msg: ToWorker): void => {
    if (!alive(w) || !w.child.connected) return;
    w.child.send(msg, (err) => {
      if (err) o.log.warn('fleet: cannot reach a worker', { worker: w.index, err: errorMessage(err) });
    });
  };

  const stopWorker = async (w: Worker): Promise<void> => {
    w.stopAsked = true;
    if (!alive(w)) return;
    send(w, { type: 'stop' });
    if ((await within(w.exited.then(() => true), o.stopTimeoutMs ?? 30_000)) === undefined) {
      o.log.warn('fleet: a worker did not stop in time; killing it', { worker: w.index });
      w.child.kill('SIGKILL');
      await w.exited;
    }
  };
  const stopAll = async (): Promise<void> => {
    await Promise.all(workers.map(stopWorker));
  };

  try {
    const readyTimeoutMs = o.readyTimeoutMs ?? 120_000;
    await Promise.all(
      workers.map(async (w) => {
        const ready = new Promise<boolean>((resolve) => {
          const check = (): void => {
            if (w.readyRss !== undefined) resolve(true);
          };
          w.child.on('message', check);
          void w.exited.then(() => resolve(false));
        });
        const ok = await within(ready, readyTimeoutMs);
        if (ok === undefined) throw new Error(`fleet worker ${w.index} was not ready after ${readyTimeoutMs / 1000} s`);
        if (!ok) throw new Error(`fleet worker ${w.index} exited before it was ready (${w.child.signalCode ?? `code ${w.child.exitCode}`})`);
      }),
    );
  } catch (err) {
    await stopAll();
    throw err;
  }

  firstStart = o.clock.now();
  for (const w of workers) {
    const config: WorkerConfig = {
      names: w.names,
      spokeUrl: o.spokeUrl,
      spokeAdminKubeconfig: o.spokeAdminKubeconfig,
      bootstrapKubeconfig: o.bootstrapKubeconfig,
      workDir: o.workDir,
      hubHostPort: o.hubHostPort,
      reportIntervalMs: o.reportIntervalMs ?? 500,
      ...(o.joinRatePerSecond !== undefined ? { joinRatePerSecond: o.joinRatePerSecond / count } : {}),
      ...(o.logLevel !== undefined ? { logLevel: o.logLevel } : {}),
    };
    send(w, { type: 'start', config });
  }

  const allStarted = Promise.all(
    workers.map(
      (w) =>
        new Promise<void>((resolve) => {
          const check = (r: WorkerReport): void => {
            if (!r.allStarted) return;
            w.onReport.delete(check);
            resolve();
          };
          w.onReport.add(check);
          void w.exited.then(() => resolve());
        }),
    ),
  ).then(() => undefined);

  const sum = (pick: (w: Worker) => number): number => workers.reduce((t, w) => t + pick(w), 0);

  return {
    baselineRssBytes: sum((w) => w.readyRss ?? 0),
    firstStartMs: () => firstStart,
    allStarted,
    started: () => sum((w) => (w.crashed ? w.names.length : (w.last?.started ?? 0))),
    failed: () => sum((w) => (w.crashed ? w.names.length : (w.last?.failed ?? 0))),
    totals: () => ({ bootstraps: sum((w) => w.last?.bootstraps ?? 0), runs: sum((w) => w.last?.runs ?? 0) }),
    rssBytes: () => sum((w) => (alive(w) ? (readProcSample(w.child.pid!)?.rssBytes ?? w.last?.rssBytes ?? 0) : 0)),
    cpuSeconds: () =>
      sum((w) => {
        if (alive(w)) w.cpuSeconds = Math.max(w.cpuSeconds, readProcSample(w.child.pid!)?.cpuSeconds ?? (w.last?.cpuMicros ?? 0) / 1e6);
        return w.cpuSeconds;
      }),
    probeOver: (local) => ({
      leaseUpdates,
      leaseFailures: () => local.leaseFailures() + leaseFailures,
      leaseRequestsByCluster: () => {
        const out = new Map(leaseRequests);
        for (const [ns, n] of local.leaseRequestsByCluster()) out.set(ns, (out.get(ns) ?? 0) + n);
        return out;
      },
      openWatches: () => local.openWatches() + sum((w) => (alive(w) ? (w.last?.openWatches ?? 0) : 0)),
      requests: () => local.requests() + requests,
      loopDelay: {
        longestMs: () => Math.max(local.loopDelay.longestMs(), longestLoopDelay),
        reset() {
          local.loopDelay.reset();
          longestLoopDelay = 0;
        },
        close: () => local.loopDelay.close(),
      },
      reset() {
        local.reset();
        leaseUpdates.clear();
        longestLoopDelay = 0;
        leaseFailures = 0;
        requests = 0;
      },
      close: () => local.close(),
    }),
    async refresh(timeoutMs = 5_000) {
      const want = ++seq;
      await Promise.all(
        workers.filter(alive).map((w) => {
          const answered = new Promise<void>((resolve) => {
            const check = (r: WorkerReport): void => {
              if (r.seq < want) return;
              w.onReport.delete(check);
              resolve();
            };
            w.onReport.add(check);
            void w.exited.then(() => {
              w.onReport.delete(check);
              resolve();
            });
          });
          send(w, { type: 'report', seq: want });
          return within(answered, timeoutMs);
        }),
      );
    },
    stop: stopAll,
  };
}
