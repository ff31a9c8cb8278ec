// The messages between the fleet coordinator and its worker processes (`ocm-ts fleet-worker`), over
// the IPC channel of a forked child. A message arrives as an unknown value and is checked here
// before use: a worker and its coordinator run the same code, but a mismatch must fail loudly.
//
// coordinator → worker: start (once), report (on demand), stop.
// worker → coordinator: ready (once, before start), report (periodically and when asked), stopped.

import { isLogLevel, type LogLevel } from '../util/logger.js';

/** Which agents to run and where they connect: what a group of agents, a worker and the pool share. */
export interface AgentSlice {
  names: readonly string[];
  spokeUrl: string;
  spokeAdminKubeconfig: string;
  bootstrapKubeconfig: string;
  /** Each agent's hub kubeconfig directory is `<workDir>/agents/<name>`. */
  workDir: string;
  /** Agents started per second (this worker's share of the fleet's join rate); absent = all at once. */
  joinRatePerSecond?: number;
}

export interface WorkerConfig extends AgentSlice {
  /** `host:port` of the hub, for the request probe. */
  hubHostPort: string;
  /** The agents' log level; absent = no agent logs. */
  logLevel?: LogLevel;
  reportIntervalMs: number;
}

/** What a worker says about its agents; counters named "new" are since its previous report. */
export interface WorkerReport {
  /** The request it answers (on-demand reports), 0 for periodic ones. */
  seq: number;
  started: number;
  failed: number;
  allStarted: boolean;
  bootstraps: number;
  runs: number;
  /** A uniform sample of the new lease renewals' latencies (ms) ... */
  leaseSamples: number[];
  /** ... which stands for this many renewals. */
  leaseSeen: number;
  newLeaseFailures: number;
  newRequests: number;
  /** Lease requests so far of the clusters whose count changed: [cluster namespace, total]. */
  leaseRequests: Array<[string, number]>;
  openWatches: number;
  /** Longest event-loop delay of the worker since its previous report (ms). */
  loopDelayMaxMs: number;
  rssBytes: number;
  /** user + system CPU time so far (µs). */
  cpuMicros: number;
}

export type ToWorker = { type: 'start'; config: WorkerConfig } | { type: 'report'; seq: number } | { type: 'stop' };

export type FromWorker =
  | { type: 'ready'; rssBytes: number }
  | { type: 'report'; report: WorkerReport }
  | { type: 'stopped' };

type Fields = Record<string, unknown>;

function fields(v: unknown, what: string): Fields {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error(`fleet worker protocol: ${what} is not an object`);
  return v as Fields;
}

function num(f: Fields, key: string): number {
  const v = f[key];
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new Error(`fleet worker protocol: ${key} is not a number`);
  return v;
}

function str(f: Fields, key: string): string {
  const v = f[key];
  if (typeof v !== 'string') throw new Error(`fleet worker protocol: ${key} is not a string`);
  return v;
}

function numbers(f: Fields, key: string): number[] {
  const v = f[key];
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'number' && Number.isFinite(x))) throw new Error(`fleet worker protocol: ${key} is not a list of numbers`);
  return v as number[];
}

function parseConfig(v: unknown): WorkerConfig {
  const f = fields(v, 'config');
  const names = f['names'];
  if (!Array.isArray(names) || !names.every((n) => typeof n === 'string')) throw new Error('fleet worker protocol: names is not a list of strings');
  const logLevel = f['logLevel'];
  if (logLevel !== undefined && !isLogLevel(logLevel)) throw new Error('fleet worker protocol: logLevel is not a log level');
  const config: WorkerConfig = {
    names: names as string[],
    spokeUrl: str(f, 'spokeUrl'),
    spokeAdminKubeconfig: str(f, 'spokeAdminKubeconfig'),
    bootstrapKubeconfig: str(f, 'bootstrapKubeconfig'),
    workDir: str(f, 'workDir'),
    hubHostPort: str(f, 'hubHostPort'),
    reportIntervalMs: num(f, 'reportIntervalMs'),
  };
  if (f['joinRatePerSecond'] !== undefined) config.joinRatePerSecond = num(f, 'joinRatePerSecond');
  if (logLevel !== undefined) config.logLevel = logLevel;
  return config;
}

export function parseToWorker(v: unknown): ToWorker {
  const f = fields(v, 'message');
  switch (f['type']) {
    case 'start':
      return { type: 'start', config: parseConfig(f['config']) };
    case 'report':
      return { type: 'report', seq: num(f, 'seq') };
    case 'stop':
      return { type: 'stop' };
    default:
      throw new Error(`fleet worker protocol: unknown message type ${JSON.stringify(f['type'])}`);
  }
}

function parseReport(v: unknown): WorkerReport {
  const f = fields(v, 'report');
  const pairs = f['leaseRequests'];
  if (!Array.isArray(pairs) || !pairs.every((p) => Array.isArray(p) && p.length === 2 && typeof p[0] === 'string' && typeof p[1] === 'number')) {
    throw new Error('fleet worker protocol: leaseRequests is not a list of [cluster, count] pairs');
  }
  if (typeof f['allStarted'] !== 'boolean') throw new Error('fleet worker protocol: allStarted is not a boolean');
  return {
    seq: num(f, 'seq'),
    started: num(f, 'started'),
    failed: num(f, 'failed'),
    allStarted: f['allStarted'],
    bootstraps: num(f, 'bootstraps'),
    runs: num(f, 'runs'),
    leaseSamples: numbers(f, 'leaseSamples'),
    leaseSeen: num(f, 'leaseSeen'),
    newLeaseFailures: num(f, 'newLeaseFailures'),
    newRequests: num(f, 'newRequests'),
    leaseRequests: pairs as Array<[string, number]>,
    openWatches: num(f, 'openWatches'),
    loopDelayMaxMs: num(f, 'loopDelayMaxMs'),
    rssBytes: num(f, 'rssBytes'),
    cpuMicros: num(f, 'cpuMicros'),
  };
}

export function parseFromWorker(v: unknown): FromWorker {
  const f = fields(v, 'message');
  switch (f['type']) {
    case 'ready':
      return { type: 'ready', rssBytes: num(f, 'rssBytes') };
    case 'report':
      return { type: 'report', report: parseReport(f['report']) };
    case 'stopped':
      return { type: 'stopped' };
    default:
      throw new Error(`fleet worker protocol: unknown message type ${JSON.stringify(f['type'])}`);
  }
}
