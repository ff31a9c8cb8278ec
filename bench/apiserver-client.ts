// Child process of bench/apiserver.ts: opens N watches on one collection over HTTPS (kept-alive
// agent, client certificate of the admin kubeconfig) and records when each watched event arrives,
// so that the watchers' TLS decryption and parsing do not run in the server's event loop.
// Protocol (IPC): parent sends {url, kubeconfig, path, watchers}; child answers {ready: true} once
// every watch is open, then on {report: true} answers {arrivals: [[name, epochMs], ...]} and exits.
// Times are `performance.timeOrigin + performance.now()`, comparable across processes.

import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { parse as parseYaml } from 'yaml';

interface Start {
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
  const agent = new Agent({ keepAlive: true, maxSockets: Infinity, ...credentials(start.kubeconfig) });
  const arrivals: [string, number][] = [];
  const nameRe = /"name":"(w-\d+)"/;
  const open = (): Promise<IncomingMessage> => new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: Number(url.port), method: 'GET', path: start.path, agent }, resolve);
    req.on('error', reject);
    req.end();
  });
  const streams: IncomingMessage[] = [];
  for (let i = 0; i < start.watchers; i += 50) {
    const batch = await Promise.all(Array.from({ length: Math.min(50, start.watchers - i) }, open));
    for (const res of batch) {
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const at = performance.timeOrigin + performance.now();
        buf += chunk;
        let k: number;
        while ((k = buf.indexOf('\n')) >= 0) {
          const m = nameRe.exec(buf.slice(0, k));
          if (m) arrivals.push([m[1]!, at]);
          buf = buf.slice(k + 1);
        }
      });
      res.on('error', () => undefined);
      streams.push(res);
    }
  }
  process.send!({ ready: true });
  process.on('message', (msg: { report?: boolean }) => {
    if (!msg.report) return;
    for (const s of streams) s.destroy();
    agent.destroy();
    process.send!({ arrivals }, () => process.exit(0));
  });
}

process.once('message', (msg: Start) => {
  run(msg).catch((err: unknown) => {
    process.stderr.write(`watchers failed: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
    process.exit(1);
  });
});
