// Child process of bench/apiserver.ts: the load generator, kept out of the server's process (on a
// small machine an in-process client takes half of what the server would get). Three roles:
// - 'creates': POSTs ConfigMaps with `concurrency` requests in flight on kept-alive connections;
//   parent sends {role, url, kubeconfig, namespaces, count, concurrency, budgetMs}, child answers
//   {rates: [...]} (creates/s per namespace) and exits.
// - 'watch': opens N watches on one collection, one TLS connection each (client certificate of the
//   admin kubeconfig), and records when each watched event arrives. The client is deliberately
//   bare (raw TLS socket, the GET written by hand, arrivals found by scanning bytes, TLS sessions
//   resumed) so that the figure measures the server rather than an HTTP client stack. Parent sends
//   {role, url, kubeconfig, path, watchers}; child answers {ready: true} once every watch is open,
//   then on {report: true} answers {arrivals: [[name, epochMs], ...]} and exits.
// - 'watch-h2': the same N watches as HTTP/2 streams multiplexed over a few node:http2 sessions
//   (ALPN h2, same client certificate), `streamsPerSession` streams each, as a Kubernetes client
//   multiplexes its watches over one connection; arrivals are found the same way, in DATA chunks.
//   Same messages as 'watch', with {streamsPerSession} added to the start message.
// Times are `performance.timeOrigin + performance.now()`, comparable across processes.

import { readFileSync } from 'node:fs';
import { connect as connectHttp2, type ClientHttp2Session, type ClientHttp2Stream } from 'node:http2';
import { Agent, request } from 'node:https';
import { connect, type TLSSocket } from 'node:tls';
import { parseYaml } from '../src/util/yaml.js';

interface Creates {
  role: 'creates';
  url: string;
  kubeconfig: string;
  namespaces: string[];
  count: number;
  concurrency: number;
  budgetMs: number;
}

interface Start {
  role: 'watch';
  url: string;
  kubeconfig: string;
  path: string;
  watchers: number;
}

interface StartHttp2 extends Omit<Start, 'role'> {
  role: 'watch-h2';
  /** Streams per HTTP/2 session; must stay within the server's maxConcurrentStreams. */
  streamsPerSession: number;
}

function credentials(kubeconfigPath: string): { ca: string; cert: string; key: string } {
  const kc = parseYaml(readFileSync(kubeconfigPath, 'utf8')) as {
    clusters: { cluster: { 'certificate-authority-data': string } }[];
    users: { user: { 'client-certificate-data': string; 'client-key-data': string } }[];
  };
  const dec = (v: string): string => Buffer.from(v, 'base64').toString('utf8');
  return {
    ca: dec(kc.clusters[0]!.cluster['certificate-authority-data']),
    cert: dec(kc.users[0]!.user['client-certificate-data']),
    key: dec(kc.users[0]!.user['client-key-data']),
  };
}

const MARKER = Buffer.from('"name":"w-');
/** Longest tail of a chunk that can hold the start of a marker and name completed by the next chunk. */
const CARRY = MARKER.length + 16;

/**
 * A chunk handler for one stream that records [name, epochMs] for every watched object's name it
 * reads. A chunk can end inside an event (a socket read ends mid-frame), so the tail of each chunk is
 * kept and searched again with the next one: a name is recorded once, when its closing quote arrives.
 */
function recordArrivals(arrivals: [string, number][]): (chunk: Buffer) => void {
  let carry: Buffer | undefined;
  return (chunk) => {
    const at = performance.timeOrigin + performance.now();
    const kept = carry?.length ?? 0;
    const buf = carry ? Buffer.concat([carry, chunk]) : chunk;
    let k = buf.indexOf(MARKER);
    while (k >= 0) {
      const from = k + MARKER.length;
      const to = buf.indexOf(0x22, from);
      if (to < 0) break;
      // a closing quote inside the carried tail was read, and recorded, with the previous chunk
      if (to >= kept && to > from) arrivals.push([`w-${buf.toString('latin1', from, to)}`, at]);
      k = buf.indexOf(MARKER, from);
    }
    carry = Buffer.from(buf.subarray(Math.max(0, buf.length - CARRY)));
  };
}

/** Tells the parent every watch is open; on its report request closes them and sends the arrivals. */
function readyThenReport(arrivals: [string, number][], close: () => void): void {
  process.send!({ ready: true });
  process.on('message', (msg: { report?: boolean }) => {
    if (!msg.report) return;
    close();
    process.send!({ arrivals }, () => process.exit(0));
  });
}

async function run(start: Start): Promise<void> {
  const url = new URL(start.url);
  const creds = credentials(start.kubeconfig);
  const arrivals: [string, number][] = [];
  const get = Buffer.from(`GET ${start.path} HTTP/1.1\r\nHost: ${url.host}\r\nAccept: application/json\r\n\r\n`, 'latin1');
  let session: Buffer | undefined;
  const open = (): Promise<TLSSocket> => new Promise((resolve, reject) => {
    const sock = connect({ host: url.hostname, port: Number(url.port), servername: 'localhost', ...creds, ...(session ? { session } : {}) });
    sock.once('session', (s: Buffer) => (session ??= s));
    sock.once('error', reject);
    sock.once('secureConnect', () => {
      sock.write(get);
      // the response headers arrive at once (the server flushes them): the watch is open
      sock.once('data', () => resolve(sock));
    });
  });
  const streams: TLSSocket[] = [];
  for (let i = 0; i < start.watchers; i += 50) {
    const batch = await Promise.all(Array.from({ length: Math.min(50, start.watchers - i) }, open));
    for (const sock of batch) {
      sock.on('data', recordArrivals(arrivals));
      sock.on('error', () => undefined);
      streams.push(sock);
    }
  }
  readyThenReport(arrivals, () => streams.forEach((s) => s.destroy()));
}

/** Opens one HTTP/2 session (TLS with ALPN h2 only) and resolves once it is connected. */
function openSession(url: URL, creds: { ca: string; cert: string; key: string }): Promise<ClientHttp2Session> {
  return new Promise((resolve, reject) => {
    const session = connectHttp2(url.origin, { ...creds, servername: 'localhost', ALPNProtocols: ['h2'] });
    session.once('error', reject);
    session.once('connect', () => {
      session.off('error', reject);
      session.on('error', () => undefined);
      // a wide connection window: 1,000 streams' events never wait for a WINDOW_UPDATE
      session.setLocalWindowSize(64 * 1024 * 1024);
      resolve(session);
    });
  });
}

/** Opens one watch as a stream of `session`; resolves once its response headers are in. */
function openStream(session: ClientHttp2Session, path: string, onData: (chunk: Buffer) => void): Promise<ClientHttp2Stream> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ':method': 'GET', ':path': path, accept: 'application/json' }, { endStream: true });
    stream.once('error', reject);
    stream.once('response', (headers) => {
      const status = headers[':status'];
      if (status !== 200) {
        reject(new Error(`watch answered ${String(status)}`));
        return;
      }
      stream.off('error', reject);
      stream.on('error', () => undefined);
      stream.on('data', onData);
      resolve(stream);
    });
  });
}

async function runHttp2(start: StartHttp2): Promise<void> {
  const url = new URL(start.url);
  const creds = credentials(start.kubeconfig);
  const arrivals: [string, number][] = [];
  const perSession = Math.max(1, start.streamsPerSession);
  const sessions: ClientHttp2Session[] = [];
  for (let i = 0; i < start.watchers; i += perSession) sessions.push(await openSession(url, creds));
  // opened in batches of 50, as the HTTP/1.1 role does; each session is filled in turn
  for (let i = 0; i < start.watchers; i += 50) {
    await Promise.all(Array.from({ length: Math.min(50, start.watchers - i) }, (_, j) =>
      openStream(sessions[Math.floor((i + j) / perSession)]!, start.path, recordArrivals(arrivals))));
  }
  readyThenReport(arrivals, () => sessions.forEach((s) => s.destroy()));
}

function post(agent: Agent, url: URL, path: string, body: unknown): Promise<number> {
  const data = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = request({
      host: url.hostname, port: Number(url.port), method: 'POST', path, agent,
      headers: { 'content-type': 'application/json', 'content-length': data.length },
    }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(data);
  });
}

/** Creates per second over `count` creates in each namespace, or what fits in `budgetMs`. */
async function creates(c: Creates): Promise<void> {
  const url = new URL(c.url);
  const agent = new Agent({ keepAlive: true, maxSockets: c.concurrency, ...credentials(c.kubeconfig) });
  const rates: number[] = [];
  for (const ns of c.namespaces) {
    const code = await post(agent, url, '/api/v1/namespaces', { metadata: { name: ns } });
    if (code !== 201) throw new Error(`namespace create answered ${code}`);
    let next = 0;
    let done = 0;
    const started = performance.now();
    const worker = async (): Promise<void> => {
      while (next < c.count && performance.now() - started < c.budgetMs) {
        const i = next++;
        const st = await post(agent, url, `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: `cm-${i}` }, data: { i: String(i) } });
        if (st !== 201) throw new Error(`create answered ${st}`);
        done++;
      }
    };
    await Promise.all(Array.from({ length: c.concurrency }, worker));
    rates.push(done / ((performance.now() - started) / 1000));
  }
  agent.destroy();
  process.send!({ rates }, () => process.exit(0));
}

process.once('message', (msg: Start | StartHttp2 | Creates) => {
  (msg.role === 'creates' ? creates(msg) : msg.role === 'watch-h2' ? runHttp2(msg) : run(msg)).catch((err: unknown) => {
    process.stderr.write(`watchers failed: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
    process.exit(1);
  });
});
