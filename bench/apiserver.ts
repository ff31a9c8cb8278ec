// API server benchmark: HTTPS creates/s (32 requests in flight on kept-alive connections), the
// storage layer's own figures in both durability modes beside raw SQLite, and watch delivery
// latency with 1,000 concurrent watchers running in a child process (so their TLS and parsing work
// does not distort the server's figures), measured twice: over HTTP/1.1 (one TLS connection per
// watch) and over HTTP/2 (the watches multiplexed as streams over a few connections, as Kubernetes
// clients do). For each protocol: commit -> arrival in the receiving process, and the server's own
// side, commit -> the event's last socket write. Medians of several runs; bounded to about a minute.
// The machine may be shared: the 1-minute load average is printed with the figures.
// Environment:
// - BENCH_APISERVER_WATCH_ONLY=1 skips the storage and creates phases (a quick run of the watch phases).
// - BENCH_APISERVER_H2_STREAMS_PER_SESSION (default 250, at most the server's 1,000 streams per
//   connection): HTTP/2 watches per connection; 1000 puts every watch on one connection.

import 'reflect-metadata';
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, request } from 'node:https';
import os, { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import type * as Embedded from '../src/apiserver/embedded.js';
import type { EmbeddedApiServer } from '../src/apiserver/embedded.js';
import { defaultConnectionLimits } from '../src/apiserver/http/connection-limits.js';
import type { Store } from '../src/apiserver/storage/types.js';
import type * as LoggerModule from '../src/util/logger.js';
import { benchStorage, formatStorage, type StorageBenchResult } from './apiserver-storage.js';
import { fromBuild } from './product.js';
import { measureHttp2Floor, type Http2FloorResult } from './http2-floor.js';
import { epochNow, percentile, round2 } from './watch-figures.js';

// The server under test comes from the build (see product.ts).
const { startEmbeddedApiServer } = await fromBuild<typeof Embedded>('apiserver/embedded.js');
const { nullLogger } = await fromBuild<typeof LoggerModule>('util/logger.js');

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : (s[Math.floor((s.length - 1) / 2)] as number);
}

interface Conn {
  host: string;
  port: number;
  agent: Agent;
}

function connect(server: EmbeddedApiServer, maxSockets: number): Conn {
  const kc = new KubeConfig();
  kc.loadFromFile(server.adminKubeconfigPath);
  const dec = (v: string | undefined): string => Buffer.from(v ?? '', 'base64').toString('utf8');
  const url = new URL(server.url);
  return {
    host: url.hostname,
    port: Number(url.port),
    agent: new Agent({
      keepAlive: true, maxSockets,
      ca: dec(kc.getCurrentCluster()?.caData), cert: dec(kc.getCurrentUser()?.certData), key: dec(kc.getCurrentUser()?.keyData),
    }),
  };
}

function send(c: Conn, method: string, path: string, body?: unknown): Promise<number> {
  const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = request({
      host: c.host, port: c.port, method, path, agent: c.agent,
      headers: data ? { 'content-type': 'application/json', 'content-length': data.length } : {},
    }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(data);
  });
}

interface WatcherChild {
  /** Resolves with [name, epochMs] arrivals once the child has closed its watches. */
  report(): Promise<[string, number][]>;
  kill(): void;
}

/** How the receiving process opens its watches: one TLS connection each, or HTTP/2 streams. */
type WatchTransport = { protocol: 'http1' } | { protocol: 'http2'; streamsPerSession: number };

/** Spreads `n` watches over `processes` child processes; resolves once all are open. */
async function startWatcherProcesses(target: WatchTarget, n: number, processes: number, transport: WatchTransport): Promise<WatcherChild> {
  const children: WatcherChild[] = [];
  try {
    for (let i = 0; i < processes; i++) {
      const share = Math.floor(n / processes) + (i < n % processes ? 1 : 0);
      children.push(await startWatchers(target, share, transport));
    }
  } catch (err) {
    for (const c of children) c.kill();
    throw err;
  }
  return {
    report: async () => (await Promise.all(children.map((c) => c.report()))).flat(),
    kill: () => children.forEach((c) => c.kill()),
  };
}

/** Where the receiving process opens its watches, with the admin kubeconfig's credentials. */
interface WatchTarget {
  url: string;
  kubeconfig: string;
  path: string;
}

/** Starts bench/apiserver-client.ts with `n` watches on the target; resolves once all are open. */
function startWatchers(target: WatchTarget, n: number, transport: WatchTransport): Promise<WatcherChild> {
  const child = forkClient();
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null): void => reject(new Error(`watcher process exited early (${String(code)})`));
    child.once('exit', onExit);
    child.once('message', () => {
      resolve({
        report: () => new Promise((res) => {
          child.once('message', (m: { arrivals: [string, number][] }) => res(m.arrivals));
          child.off('exit', onExit);
          child.send({ report: true });
        }),
        kill: () => child.kill(),
      });
    });
    const start = { ...target, watchers: n };
    child.send(transport.protocol === 'http1'
      ? { role: 'watch', ...start }
      : { role: 'watch-h2', ...start, streamsPerSession: transport.streamsPerSession });
  });
}

function forkClient(): ChildProcess {
  return fork(new URL('./apiserver-client.ts', import.meta.url).pathname, [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
}

/** Runs the 'creates' role in a child process: creates/s per namespace. */
function createsInChild(server: EmbeddedApiServer, namespaces: string[], count: number, concurrency: number, budgetMs: number): Promise<number[]> {
  const child = forkClient();
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`client process exited early (${String(code)})`)));
    child.once('message', (m: { rates: number[] }) => resolve(m.rates));
    child.send({ role: 'creates', url: server.url, kubeconfig: server.adminKubeconfigPath, namespaces, count, concurrency, budgetMs });
  });
}

interface WatchPathTrace {
  /** Object name → when its create committed (epoch ms), for keys under the traced prefix. */
  commitAt: Map<string, number>;
  /** Object name → when its event reached the first watcher (fan-out start, after the fsync) and when the last watcher's write was out (epoch ms). */
  fanOut: Map<string, { first: number; last: number }>;
  stop(): void;
}

/**
 * Times the server's side of watch delivery in this process without touching the server's code or
 * its watchers: the store's create returns once the transaction has committed; once the write is
 * durable the store has handed its event to the fan-out, which then writes it to every watcher in
 * one immediate queued before `whenDurable` settles. An immediate queued from there runs right after
 * that fan-out (the fan-out's start is when the event leaves the store); one queued from it runs on
 * the next turn, after the native immediates in which each HTTP/2 session sends the DATA frames
 * its streams queued (over HTTP/1.1 the writes reached the sockets during the fan-out, so the
 * figure is a slight over-estimate there). Nothing wraps the watchers' own callbacks, so the
 * tracing does not stretch the fan-out it times.
 */
function traceWatchPath(store: Store, keyPrefix: string): WatchPathTrace {
  const commitAt = new Map<string, number>();
  const fanOut = new Map<string, { first: number; last: number }>();
  const nameOf = (key: string): string => key.slice(key.lastIndexOf('/') + 1);
  const create = store.create.bind(store);
  store.create = (key, obj) => {
    const stored = create(key, obj);
    if (!key.startsWith(keyPrefix)) return stored;
    const name = nameOf(key);
    commitAt.set(name, epochNow());
    const times = { first: NaN, last: NaN };
    fanOut.set(name, times);
    void store.whenDurable(stored.revision).then(() => {
      times.first = epochNow();
      setImmediate(() => setImmediate(() => (times.last = epochNow())));
    });
    return stored;
  };
  return {
    commitAt,
    fanOut,
    stop: () => {
      store.create = create;
    },
  };
}

/** Watch delivery over one protocol. */
export interface WatchDeliveryResult {
  protocol: 'http1' | 'http2';
  /** TLS connections the watches were carried on. */
  connections: number;
  /** Events written, and deliveries recorded by the receiving process (of writes × watchers). */
  writes: number;
  deliveries: number;
  /** Commit → event arriving at the watcher (client process), over every delivery. */
  p50Ms: number;
  p99Ms: number;
  /** Commit → the event's last socket write (server process), over events. */
  serverP50Ms: number;
  serverP99Ms: number;
  /** Events the server side was timed for. */
  serverEvents: number;
  /** Commit → the fan-out's start (the fsync), median. */
  fanOutStartP50Ms: number;
  /** The fan-out's start → its last socket write, per event: the part the HTTP/2 floor is compared with. */
  fanOutP50Ms: number;
  fanOutP99Ms: number;
  /** POST sent → arrival, which adds the request's own path. */
  postP50Ms: number;
  postP99Ms: number;
  /** 1-minute load average at the end of this phase. */
  loadAverage1m: number;
}

interface WatchPhase {
  server: EmbeddedApiServer;
  writers: Conn;
  watchers: number;
  watchWrites: number;
  watcherProcesses: number;
  transport: WatchTransport;
}

/** Opens the watches in a child process, creates `watchWrites` watched objects one at a time, and times their delivery. */
async function measureWatch(p: WatchPhase): Promise<WatchDeliveryResult> {
  const { server, writers, watchers, watchWrites, transport } = p;
  // a namespace of its own per protocol, so that no event reaches the other phase's watches
  const ns = transport.protocol === 'http1' ? 'watched' : 'watched-h2';
  const trace = traceWatchPath(server.store, `/core/configmaps/${ns}/w-`);
  let watcherChild: WatcherChild | undefined;
  try {
    await send(writers, 'POST', '/api/v1/namespaces', { metadata: { name: ns } });
    const path = `/api/v1/namespaces/${ns}/configmaps?watch=true&resourceVersion=${server.store.currentRevision()}`;
    watcherChild = await startWatcherProcesses({ url: server.url, kubeconfig: server.adminKubeconfigPath, path }, watchers, p.watcherProcesses, transport);
    await new Promise((r) => setTimeout(r, 300));
    const sent = new Map<string, number>();
    const watchStarted = Date.now();
    let written = 0;
    for (let i = 0; i < watchWrites && Date.now() - watchStarted < 15_000; i++, written++) {
      const name = `w-${i}`;
      sent.set(name, epochNow());
      await send(writers, 'POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name } });
      await new Promise((r) => setTimeout(r, 50)); // one write at a time: latency, not throughput
    }
    await new Promise((r) => setTimeout(r, 500));
    const arrivals = await watcherChild.report();
    watcherChild = undefined;
    const since = (from: Map<string, number>, name: string, at: number): number => at - (from.get(name) ?? NaN);
    const finite = (xs: number[]): number[] => xs.filter((x) => Number.isFinite(x));
    const fromCommit = finite(arrivals.map(([name, at]) => since(trace.commitAt, name, at)));
    const fromPost = finite(arrivals.map(([name, at]) => since(sent, name, at)));
    const fanOutStart = finite([...trace.fanOut].map(([name, f]) => since(trace.commitAt, name, f.first)));
    const lastWrite = finite([...trace.fanOut].map(([name, f]) => since(trace.commitAt, name, f.last)));
    const fanOut = finite([...trace.fanOut.values()].map((f) => f.last - f.first));
    return {
      protocol: transport.protocol,
      connections: transport.protocol === 'http1' ? watchers : Math.ceil(watchers / p.watcherProcesses / transport.streamsPerSession) * p.watcherProcesses,
      writes: written,
      deliveries: fromCommit.length,
      p50Ms: round2(percentile(fromCommit, 50)),
      p99Ms: round2(percentile(fromCommit, 99)),
      serverP50Ms: round2(percentile(lastWrite, 50)),
      serverP99Ms: round2(percentile(lastWrite, 99)),
      serverEvents: lastWrite.length,
      fanOutStartP50Ms: round2(percentile(fanOutStart, 50)),
      fanOutP50Ms: round2(percentile(fanOut, 50)),
      fanOutP99Ms: round2(percentile(fanOut, 99)),
      postP50Ms: round2(percentile(fromPost, 50)),
      postP99Ms: round2(percentile(fromPost, 99)),
      loadAverage1m: round2(loadavg()[0]!),
    };
  } finally {
    trace.stop();
    watcherChild?.kill();
  }
}

const WATCH_TARGET_P99_MS = 10;
const verdict = (p99: number): string => (p99 <= WATCH_TARGET_P99_MS ? 'met' : 'NOT met');

function formatWatch(w: WatchDeliveryResult, watchers: number, processes: number, streamsPerSession: number): string {
  const carried = w.protocol === 'http1'
    ? `HTTP/1.1, one TLS connection per watch (${w.connections} connections)`
    : `HTTP/2, ${w.connections} TLS connection${w.connections === 1 ? '' : 's'} of up to ${streamsPerSession} streams`;
  return (
    `watch delivery over ${carried}: ${watchers} watchers in ${processes} separate process${processes === 1 ? '' : 'es'}, ${w.writes} writes (${w.deliveries} deliveries of ${w.writes * watchers}); 1-minute load average ${w.loadAverage1m.toFixed(2)}\n` +
    `  commit -> delivered   p50 ${w.p50Ms} ms, p99 ${w.p99Ms} ms (target p99 <= ${WATCH_TARGET_P99_MS}: ${verdict(w.p99Ms)}; includes the fsync, the fan-out and the receiving process)\n` +
    `  server side           commit -> last socket write p50 ${w.serverP50Ms} ms, p99 ${w.serverP99Ms} ms (target p99 <= ${WATCH_TARGET_P99_MS}: ${verdict(w.serverP99Ms)}; per event, over ${w.serverEvents} events);\n` +
    `                        commit -> fan-out start p50 ${w.fanOutStartP50Ms.toFixed(2)} ms (the fsync), fan-out start -> last socket write p50 ${w.fanOutP50Ms} ms, p99 ${w.fanOutP99Ms} ms\n` +
    `  POST sent -> delivered p50 ${w.postP50Ms.toFixed(2)} ms, p99 ${w.postP99Ms.toFixed(2)} ms (adds the request's own path)\n`
  );
}

function formatFloor(f: Http2FloorResult, product: WatchDeliveryResult, watchers: number): string {
  return (
    `baseline, node:http2 alone: one prepared event line written to each of the same ${watchers} streams from one immediate (same receiving process, connections and TLS; no store, no watch code), ${f.writes} writes (${f.deliveries} deliveries)\n` +
    `  first write -> last socket write p50 ${f.serverP50Ms} ms, p99 ${f.serverP99Ms} ms; first write -> delivered p50 ${f.deliveredP50Ms} ms, p99 ${f.deliveredP99Ms} ms\n` +
    `  API server over HTTP/2 / node:http2 alone: fan-out (start -> last socket write) p50 ${(product.fanOutP50Ms / f.serverP50Ms).toFixed(2)}x, p99 ${(product.fanOutP99Ms / f.serverP99Ms).toFixed(2)}x\n`
  );
}

export interface ApiserverBenchResult {
  /** NaN when skipped (BENCH_APISERVER_WATCH_ONLY=1). */
  createsPerSec: number;
  concurrency: number;
  /** Undefined when skipped (BENCH_APISERVER_WATCH_ONLY=1). */
  storage: StorageBenchResult | undefined;
  watchers: number;
  /** The same watch phase over each protocol. */
  watchHttp1: WatchDeliveryResult;
  watchHttp2: WatchDeliveryResult;
  /** node:http2 alone, same receiving process and streams: the HTTP/2 phase's baseline. */
  http2Floor: Http2FloorResult;
  loadAverage1m: number;
}

export async function benchApiserver(opts: {
  runs?: number; creates?: number; watchers?: number; watchWrites?: number; concurrency?: number; watcherProcesses?: number;
  streamsPerSession?: number; watchOnly?: boolean;
} = {}): Promise<ApiserverBenchResult> {
  const runs = opts.runs ?? 3;
  const creates = opts.creates ?? 3000;
  const watchers = opts.watchers ?? 1000;
  const watchWrites = opts.watchWrites ?? 40;
  const concurrency = opts.concurrency ?? 32;
  // one process: on a 2-core machine more receiving processes only contend with each other
  const watcherProcesses = opts.watcherProcesses ?? 1;
  const watchOnly = opts.watchOnly ?? process.env['BENCH_APISERVER_WATCH_ONLY'] === '1';
  const streamsPerSession = opts.streamsPerSession ?? Number(process.env['BENCH_APISERVER_H2_STREAMS_PER_SESSION'] ?? 250);
  const streamCap = defaultConnectionLimits(undefined).maxStreamsPerConnection;
  if (!Number.isInteger(streamsPerSession) || streamsPerSession < 1 || streamsPerSession > streamCap) {
    throw new Error(`HTTP/2 streams per session must be an integer from 1 to the server's ${streamCap}, not ${streamsPerSession}`);
  }
  const loadBefore = loadavg()[0]!;
  const storage = watchOnly ? undefined : await benchStorage({ runs, writes: 1000, concurrency, budgetMs: 20_000 });
  const dataDir = await mkdtemp(join(tmpdir(), 'ocm-ts-bench-'));
  const server = await startEmbeddedApiServer({ dataDir, listen: { host: '127.0.0.1', port: 0 }, log: nullLogger() });
  const writers = connect(server, concurrency);
  try {
    // the first namespace is a warm-up (JIT, TLS sessions) and is not counted
    const rates = watchOnly ? [] : (await createsInChild(server, ['bench-warm', ...Array.from({ length: runs }, (_, r) => `bench-${r}`)], creates, concurrency, 5000)).slice(1);
    const phase = { server, writers, watchers, watchWrites, watcherProcesses };
    const watchHttp1 = await measureWatch({ ...phase, transport: { protocol: 'http1' } });
    const watchHttp2 = await measureWatch({ ...phase, transport: { protocol: 'http2', streamsPerSession } });
    const http2Floor = await measureHttp2Floor({
      key: server.pki.servingKeyPem,
      cert: server.pki.servingCertPem,
      watchers,
      writes: watchWrites,
      maxStreamsPerConnection: streamCap,
      startWatchers: (target, n) => startWatcherProcesses({ ...target, kubeconfig: server.adminKubeconfigPath }, n, watcherProcesses, { protocol: 'http2', streamsPerSession }),
    });
    const result: ApiserverBenchResult = {
      createsPerSec: Math.round(median(rates)),
      concurrency,
      storage,
      watchers,
      watchHttp1,
      watchHttp2,
      http2Floor,
      loadAverage1m: round2(loadavg()[0]!),
    };
    const skipped = 'skipped (BENCH_APISERVER_WATCH_ONLY=1)\n';
    process.stdout.write(
      `machine: ${availableCores()} cores, 1-minute load average ${loadBefore.toFixed(2)} at start, ${result.loadAverage1m.toFixed(2)} at end (may be shared: figures are noisy)\n` +
      (storage ? formatStorage(storage) : `storage layer ${skipped}`) +
      (storage
        ? `apiserver over HTTPS (median of ${runs} runs, up to ${creates} creates or 5 s each, ${concurrency} requests in flight on kept-alive connections, client in a separate process)\n` +
          `  creates/s             ${result.createsPerSec} (target >= 2000)\n` +
          `  HTTPS / group store   ${Math.round((result.createsPerSec / storage.group.store) * 100) / 100}\n`
        : `apiserver over HTTPS creates ${skipped}`) +
      formatWatch(watchHttp1, watchers, watcherProcesses, streamsPerSession) +
      formatWatch(watchHttp2, watchers, watcherProcesses, streamsPerSession) +
      formatFloor(http2Floor, watchHttp2, watchers),
    );
    return result;
  } finally {
    writers.agent.destroy();
    await server.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

function availableCores(): number {
  return os.availableParallelism();
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await benchApiserver();
}
