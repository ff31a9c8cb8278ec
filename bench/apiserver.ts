// API server benchmark: HTTPS creates/s (several kept-alive connections), the storage layer's own
// figures side by side, and watch delivery latency with 1,000 concurrent watchers. Medians of
// several runs; bounded to well under a minute.

import 'reflect-metadata';
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, request } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import { startEmbeddedApiServer, type EmbeddedApiServer } from '../src/apiserver/embedded.js';
import { nullLogger } from '../src/util/logger.js';
import { benchStorage } from './apiserver-storage.js';

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

/** Creates per second over `count` creates, or over what fits in `budgetMs` on a slow disk. */
async function createsPerSecond(c: Conn, ns: string, count: number, concurrency: number, budgetMs: number): Promise<number> {
  let next = 0;
  let done = 0;
  const started = performance.now();
  const worker = async (): Promise<void> => {
    while (next < count && performance.now() - started < budgetMs) {
      const i = next++;
      const code = await send(c, 'POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: `cm-${i}` }, data: { i: String(i) } });
      if (code !== 201) throw new Error(`create answered ${code}`);
      done++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return done / ((performance.now() - started) / 1000);
}

/** Opens `n` watches on one collection; returns per-watcher arrival callbacks. */
async function openWatchers(c: Conn, path: string, n: number, onLine: (line: string, at: number) => void): Promise<IncomingMessage[]> {
  const open = (): Promise<IncomingMessage> => new Promise((resolve, reject) => {
    const req = request({ host: c.host, port: c.port, method: 'GET', path, agent: c.agent }, resolve);
    req.on('error', reject);
    req.end();
  });
  const out: IncomingMessage[] = [];
  for (let i = 0; i < n; i += 50) {
    const batch = await Promise.all(Array.from({ length: Math.min(50, n - i) }, open));
    for (const res of batch) {
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const at = performance.now();
        buf += chunk;
        let k: number;
        while ((k = buf.indexOf('\n')) >= 0) {
          onLine(buf.slice(0, k), at);
          buf = buf.slice(k + 1);
        }
      });
      res.on('error', () => undefined);
      out.push(res);
    }
  }
  return out;
}

export interface ApiserverBenchResult {
  createsPerSec: number;
  storage: Record<string, number>;
  watchP50Ms: number;
  watchP99Ms: number;
  watchers: number;
}

export async function benchApiserver(opts: { runs?: number; creates?: number; watchers?: number; watchWrites?: number } = {}): Promise<ApiserverBenchResult> {
  const runs = opts.runs ?? 3;
  const creates = opts.creates ?? 1500;
  const watchers = opts.watchers ?? 1000;
  const watchWrites = opts.watchWrites ?? 30;
  const dataDir = await mkdtemp(join(tmpdir(), 'ocm-ts-bench-'));
  const server = await startEmbeddedApiServer({ dataDir, listen: { host: '127.0.0.1', port: 0 }, log: nullLogger() });
  try {
    const writers = connect(server, 8);
    const rates: number[] = [];
    for (let r = 0; r < runs; r++) {
      const ns = `bench-${r}`;
      await send(writers, 'POST', '/api/v1/namespaces', { metadata: { name: ns } });
      rates.push(await createsPerSecond(writers, ns, creates, 8, 5000));
    }
    const storage = await benchStorage({ runs, writes: 1000, budgetMs: 10_000 });

    await send(writers, 'POST', '/api/v1/namespaces', { metadata: { name: 'watched' } });
    const sent = new Map<string, number>();
    const latencies: number[] = [];
    const watchConn = connect(server, Infinity);
    const streams = await openWatchers(watchConn, `/api/v1/namespaces/watched/configmaps?watch=true&resourceVersion=${server.store.currentRevision()}`, watchers, (line, at) => {
      const m = /"name":"(w-\d+)"/.exec(line);
      const t0 = m ? sent.get(m[1] as string) : undefined;
      if (t0 !== undefined) latencies.push(at - t0);
    });
    await new Promise((r) => setTimeout(r, 200));
    const watchStarted = Date.now();
    for (let i = 0; i < watchWrites && Date.now() - watchStarted < 10_000; i++) {
      const name = `w-${i}`;
      const expected = latencies.length + watchers;
      sent.set(name, performance.now());
      await send(writers, 'POST', '/api/v1/namespaces/watched/configmaps', { metadata: { name } });
      const deadline = Date.now() + 5000;
      while (latencies.length < expected && Date.now() < deadline) await new Promise((r) => setImmediate(r));
    }
    for (const s of streams) s.destroy();
    writers.agent.destroy();
    watchConn.agent.destroy();
    const result: ApiserverBenchResult = {
      createsPerSec: Math.round(median(rates)),
      storage,
      watchP50Ms: Math.round(percentile(latencies, 50) * 100) / 100,
      watchP99Ms: Math.round(percentile(latencies, 99) * 100) / 100,
      watchers,
    };
    process.stdout.write(
      `apiserver over HTTPS (median of ${runs} runs, up to ${creates} creates or 5 s each, 8 kept-alive connections)\n` +
      `  creates/s             ${result.createsPerSec} (target >= 2000)\n` +
      `  storage writes/s      ${storage.storeWritesPerSec} (store alone; raw SQLite ${storage.rawInsertsPerSec}/s, ratio ${storage.ratio})\n` +
      `  HTTPS/storage ratio   ${Math.round((result.createsPerSec / (storage.storeWritesPerSec ?? NaN)) * 100) / 100}\n` +
      `watch delivery with ${watchers} watchers, ${watchWrites} writes (${latencies.length} deliveries)\n` +
      `  p50 ms                ${result.watchP50Ms}\n` +
      `  p99 ms                ${result.watchP99Ms} (target <= 10)\n`,
    );
    return result;
  } finally {
    await server.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await benchApiserver();
}
