// Child process of bench/apiserver.ts: the load generator, kept out of the server's process (on a
// small machine an in-process client takes half of what the server would get). Two roles:
// - 'creates': POSTs ConfigMaps with `concurrency` requests in flight on kept-alive connections;
//   parent sends {role, url, kubeconfig, namespaces, count, concurrency, budgetMs}, child answers
//   {rates: [...]} (creates/s per namespace) and exits.
// - 'watch': opens N watches on one collection, one TLS connection each (client certificate of the
//   admin kubeconfig), and records when each watched event arrives. The client is deliberately
//   bare (raw TLS socket, the GET written by hand, arrivals found by scanning bytes, TLS sessions
//   resumed) so that the figure measures the server rather than an HTTP client stack. Parent sends
//   {role, url, kubeconfig, path, watchers}; child answers {ready: true} once every watch is open,
//   then on {report: true} answers {arrivals: [[name, epochMs], ...]} and exits.
// Times are `performance.timeOrigin + performance.now()`, comparable across processes.

import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { connect, type TLSSocket } from 'node:tls';
import { parse as parseYaml } from 'yaml';

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

async function run(start: Start): Promise<void> {
  const url = new URL(start.url);
  const creds = credentials(start.kubeconfig);
  const arrivals: [string, number][] = [];
  const marker = Buffer.from('"name":"w-');
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
      // An event's marker is never split in practice (one small event per chunk); a split one is ignored.
      sock.on('data', (chunk: Buffer) => {
        const at = performance.timeOrigin + performance.now();
        let k = chunk.indexOf(marker);
        while (k >= 0) {
          const from = k + marker.length;
          const to = chunk.indexOf(0x22, from);
          if (to > from) arrivals.push([`w-${chunk.toString('latin1', from, to)}`, at]);
          k = chunk.indexOf(marker, from);
        }
      });
      sock.on('error', () => undefined);
      streams.push(sock);
    }
  }
  process.send!({ ready: true });
  process.on('message', (msg: { report?: boolean }) => {
    if (!msg.report) return;
    for (const s of streams) s.destroy();
    process.send!({ arrivals }, () => process.exit(0));
  });
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

process.once('message', (msg: Start | Creates) => {
  (msg.role === 'creates' ? creates(msg) : run(msg)).catch((err: unknown) => {
    process.stderr.write(`watchers failed: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
    process.exit(1);
  });
});
