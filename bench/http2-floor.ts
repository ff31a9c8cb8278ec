// The floor of watch delivery over HTTP/2 on this machine, measured in the same run as the API
// server's figure: node:http2 alone (the same compatibility API, TLS certificate and socket options
// as the API server), the same receiving process and the same number of streams per connection,
// and one prepared event line written to every stream from one immediate. No store, no fsync, no
// watch bookkeeping: what is left is Node's own cost per stream (a write through the stream, the
// session framing it, its completion callback), which any server written on node:http2 pays.

import { createSecureServer, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { epochNow, percentile, round2 } from './watch-figures.js';

/** Opens `n` watches on `url` + `path` in the receiving process(es), as the API server's phase does. */
export type StartWatchers = (target: { url: string; path: string }, n: number) => Promise<{
  report(): Promise<[string, number][]>;
  kill(): void;
}>;

export interface Http2FloorResult {
  writes: number;
  deliveries: number;
  /** First write -> the last stream's DATA sent (immediate after the sessions' sends), per event. */
  serverP50Ms: number;
  serverP99Ms: number;
  /** First write -> arrival in the receiving process, over every delivery. */
  deliveredP50Ms: number;
  deliveredP99Ms: number;
}

/** An ADDED ConfigMap line shaped (and sized) like the API server's for the same create. */
function eventLine(name: string, i: number): Buffer {
  const object = {
    kind: 'ConfigMap',
    apiVersion: 'v1',
    metadata: {
      name,
      namespace: 'watched-h2',
      uid: `0b7f1c1e-5f0e-4a43-9d5a-${String(i).padStart(12, '0')}`,
      resourceVersion: String(100_000 + i),
      creationTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      managedFields: [{ manager: 'node', operation: 'Update', apiVersion: 'v1', time: new Date().toISOString().replace(/\.\d+Z$/, 'Z'), fieldsType: 'FieldsV1', fieldsV1: {} }],
    },
  };
  return Buffer.from(`${JSON.stringify({ type: 'ADDED', object })}\n`);
}

export async function measureHttp2Floor(opts: {
  key: string;
  cert: string;
  watchers: number;
  writes: number;
  maxStreamsPerConnection: number;
  startWatchers: StartWatchers;
}): Promise<Http2FloorResult> {
  const responses: Http2ServerResponse[] = [];
  const server = createSecureServer({ key: opts.key, cert: opts.cert, noDelay: true, settings: { maxConcurrentStreams: opts.maxStreamsPerConnection } });
  server.on('request', (_req: Http2ServerRequest, res: Http2ServerResponse) => {
    // writeHead sends the HEADERS frame at once over HTTP/2 (the receiver counts a watch open on it)
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-cache, private' });
    responses.push(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const receiver = await opts.startWatchers({ url: `https://127.0.0.1:${port}`, path: '/api/v1/namespaces/watched-h2/configmaps?watch=true' }, opts.watchers);
  try {
    await new Promise((r) => setTimeout(r, 300));
    const started = new Map<string, number>();
    const lastSent: number[] = [];
    for (let i = 0; i < opts.writes; i++) {
      const name = `w-${i}`;
      const line = eventLine(name, i);
      await new Promise<void>((resolve) => setImmediate(() => {
        const t0 = epochNow();
        started.set(name, t0);
        for (const res of responses) res.write(line);
        // as the API server's phase: the immediate after the next turn's session sends
        setImmediate(() => setImmediate(() => {
          lastSent.push(epochNow() - t0);
          resolve();
        }));
      }));
      await new Promise((r) => setTimeout(r, 50));
    }
    await new Promise((r) => setTimeout(r, 500));
    const delivered = (await receiver.report())
      .map(([name, at]) => at - (started.get(name) ?? NaN))
      .filter((x) => Number.isFinite(x));
    return {
      writes: opts.writes,
      deliveries: delivered.length,
      serverP50Ms: round2(percentile(lastSent, 50)),
      serverP99Ms: round2(percentile(lastSent, 99)),
      deliveredP50Ms: round2(percentile(delivered, 50)),
      deliveredP99Ms: round2(percentile(delivered, 99)),
    };
  } finally {
    receiver.kill();
    for (const res of responses) res.stream.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
