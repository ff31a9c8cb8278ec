// API server benchmark: HTTPS creates/s (32 requests in flight on kept-alive connections), the
// storage layer's own figures in both durability modes beside raw SQLite, and watch delivery
// latency with 1,000 concurrent watchers running in a child process (so their TLS and parsing work
// does not distort the server's figures). Medians of several runs; bounded to about a minute.
// The machine may be shared: the 1-minute load average is printed with the figures.

import 'reflect-metadata';
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, request } from 'node:https';
import os, { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import { startEmbeddedApiServer, type EmbeddedApiServer } from '../src/apiserver/embedded.js';
import type { Store } from '../src/apiserver/storage/types.js';
import { nullLogger } from '../src/util/logger.js';
import { benchStorage, formatStorage, type StorageBenchResult } from './apiserver-storage.js';

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : (s[Math.floor((s.length - 1) / 2)] as number);
}

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : (s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] as number);
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

/** Spreads `n` watches over `processes` child processes; resolves once all are open. */
async function startWatcherProcesses(server: EmbeddedApiServer, path: string, n: number, processes: number): Promise<WatcherChild> {
  const children: WatcherChild[] = [];
  try {
    for (let i = 0; i < processes; i++) {
      const share = Math.floor(n / processes) + (i < n % processes ? 1 : 0);
      children.push(await startWatchers(server, path, share));
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

/** Starts bench/apiserver-watchers.ts with `n` watches on `path`; resolves once all are open. */
function startWatchers(server: EmbeddedApiServer, path: string, n: number): Promise<WatcherChild> {
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
    child.send({ role: 'watch', url: server.url, kubeconfig: server.adminKubeconfigPath, path, watchers: n });
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

const epochNow = (): number => performance.timeOrigin + performance.now();

interface WatchPathTrace {
  /** Object name → when its create committed (epoch ms), for keys under the traced prefix. */
  commitAt: Map<string, number>;
  /** Object name → when its event reached the first watcher (fan-out start, after the fsync) and when the last watcher's write was out (epoch ms). */
  fanOut: Map<string, { first: number; last: number }>;
  stop(): void;
}

/**
 * Times the server's side of watch delivery in this process, without touching the server's code:
 * the store's create returns once the transaction has committed, and each watcher's onEvent hands
 * the event to the HTTP layer, which writes it to the socket before its tick ends (a corked write
 * is flushed on a tick queued during the call), so the tick after the last watcher's onEvent is
 * when the event's last socket write is done.
 */
function traceWatchPath(store: Store, keyPrefix: string): WatchPathTrace {
  const commitAt = new Map<string, number>();
  const fanOut = new Map<string, { first: number; last: number }>();
  const nameOf = (key: string): string => key.slice(key.lastIndexOf('/') + 1);
  const create = store.create.bind(store);
  const watch = store.watch.bind(store);
  store.create = (key, obj) => {
    const stored = create(key, obj);
    if (key.startsWith(keyPrefix)) commitAt.set(nameOf(key), epochNow());
    return stored;
  };
  store.watch = (prefix, opts) => watch(prefix, {
    ...opts,
    onEvent: (ev) => {
      if (!ev.key.startsWith(keyPrefix)) return opts.onEvent(ev);
      const name = nameOf(ev.key);
      if (!fanOut.has(name)) fanOut.set(name, { first: epochNow(), last: NaN });
      const r = opts.onEvent(ev);
      process.nextTick(() => (fanOut.get(name)!.last = epochNow()));
      return r;
    },
  });
  return {
    commitAt,
    fanOut,
    stop: () => {
      store.create = create;
      store.watch = watch;
    },
  };
}

export interface ApiserverBenchResult {
  createsPerSec: number;
  concurrency: number;
  storage: StorageBenchResult;
  /** Commit → event arriving at the watcher (client process), over every delivery. */
  watchP50Ms: number;
  watchP99Ms: number;
  /** Commit → the event's last socket write (server process), over events. */
  watchServerP50Ms: number;
  watchServerP99Ms: number;
  watchers: number;
  loadAverage1m: number;
}

const round2 = (x: number): number => Math.round(x * 100) / 100;

export async function benchApiserver(opts: { runs?: number; creates?: number; watchers?: number; watchWrites?: number; concurrency?: number; watcherProcesses?: number } = {}): Promise<ApiserverBenchResult> {
  const runs = opts.runs ?? 3;
  const creates = opts.creates ?? 3000;
  const watchers = opts.watchers ?? 1000;
  const watchWrites = opts.watchWrites ?? 40;
  const concurrency = opts.concurrency ?? 32;
  // one process: on a 2-core machine more receiving processes only contend with each other
  const watcherProcesses = opts.watcherProcesses ?? 1;
  const loadBefore = loadavg()[0]!;
  const storage = await benchStorage({ runs, writes: 1000, concurrency, budgetMs: 20_000 });
  const dataDir = await mkdtemp(join(tmpdir(), 'ocm-ts-bench-'));
  const server = await startEmbeddedApiServer({ dataDir, listen: { host: '127.0.0.1', port: 0 }, log: nullLogger() });
  let watcherChild: WatcherChild | undefined;
  const trace = traceWatchPath(server.store, '/core/configmaps/watched/w-');
  try {
    const writers = connect(server, concurrency);
    // the first namespace is a warm-up (JIT, TLS sessions) and is not counted
    const rates = (await createsInChild(server, ['bench-warm', ...Array.from({ length: runs }, (_, r) => `bench-${r}`)], creates, concurrency, 5000)).slice(1);

    await send(writers, 'POST', '/api/v1/namespaces', { metadata: { name: 'watched' } });
    const path = `/api/v1/namespaces/watched/configmaps?watch=true&resourceVersion=${server.store.currentRevision()}`;
    watcherChild = await startWatcherProcesses(server, path, watchers, watcherProcesses);
    await new Promise((r) => setTimeout(r, 300));
    const sent = new Map<string, number>();
    const watchStarted = Date.now();
    let written = 0;
    for (let i = 0; i < watchWrites && Date.now() - watchStarted < 15_000; i++, written++) {
      const name = `w-${i}`;
      sent.set(name, epochNow());
      await send(writers, 'POST', '/api/v1/namespaces/watched/configmaps', { metadata: { name } });
      await new Promise((r) => setTimeout(r, 50)); // one write at a time: latency, not throughput
    }
    await new Promise((r) => setTimeout(r, 500));
    const arrivals = await watcherChild.report();
    const since = (from: Map<string, number>, name: string, at: number): number => at - (from.get(name) ?? NaN);
    const finite = (xs: number[]): number[] => xs.filter((x) => Number.isFinite(x));
    const fromCommit = finite(arrivals.map(([name, at]) => since(trace.commitAt, name, at)));
    const fromPost = finite(arrivals.map(([name, at]) => since(sent, name, at)));
    const fanOutStart = finite([...trace.fanOut].map(([name, f]) => since(trace.commitAt, name, f.first)));
    const lastWrite = finite([...trace.fanOut].map(([name, f]) => since(trace.commitAt, name, f.last)));
    writers.agent.destroy();
    const result: ApiserverBenchResult = {
      createsPerSec: Math.round(median(rates)),
      concurrency,
      storage,
      watchP50Ms: round2(percentile(fromCommit, 50)),
      watchP99Ms: round2(percentile(fromCommit, 99)),
      watchServerP50Ms: round2(percentile(lastWrite, 50)),
      watchServerP99Ms: round2(percentile(lastWrite, 99)),
      watchers,
      loadAverage1m: round2(loadavg()[0]!),
    };
    process.stdout.write(
      `machine: ${availableCores()} cores, 1-minute load average ${loadBefore.toFixed(2)} at start, ${result.loadAverage1m.toFixed(2)} at end (may be shared: figures are noisy)\n` +
      formatStorage(storage) +
      `apiserver over HTTPS (median of ${runs} runs, up to ${creates} creates or 5 s each, ${concurrency} requests in flight on kept-alive connections, client in a separate process)\n` +
      `  creates/s             ${result.createsPerSec} (target >= 2000)\n` +
      `  HTTPS / group store   ${Math.round((result.createsPerSec / storage.group.store) * 100) / 100}\n` +
      `watch delivery with ${watchers} watchers in ${watcherProcesses} separate processes, ${written} writes (${fromCommit.length} deliveries of ${written * watchers})\n` +
      `  commit -> delivered   p50 ${result.watchP50Ms} ms, p99 ${result.watchP99Ms} ms (target p99 <= 10; includes the fsync, the fan-out and the receiving process)\n` +
      `  server side           commit -> last socket write p50 ${result.watchServerP50Ms} ms, p99 ${result.watchServerP99Ms} ms (per event, over ${lastWrite.length} events);\n` +
      `                        commit -> fan-out start p50 ${percentile(fanOutStart, 50).toFixed(2)} ms (the fsync; the fan-out then takes the rest)\n` +
      `  POST sent -> delivered p50 ${percentile(fromPost, 50).toFixed(2)} ms, p99 ${percentile(fromPost, 99).toFixed(2)} ms (adds the request's own path)\n`,
    );
    return result;
  } finally {
    trace.stop();
    watcherChild?.kill();
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
