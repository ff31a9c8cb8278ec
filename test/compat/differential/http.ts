// Raw HTTPS to one server as one identity, for the differential test: status and body exactly as
// sent (typed clients would hide both), impersonation headers, and a bounded read of a watch stream.
import { Agent, request } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { loadKubeconfigFile, type ClientConfig } from '../../../src/client/kubeconfig.js';
import type { HttpAnswer } from './types.js';

export interface HttpTarget {
  config: ClientConfig;
  agent: Agent;
}

export function httpTarget(kubeconfigPath: string): HttpTarget {
  const { config } = loadKubeconfigFile(kubeconfigPath);
  const agent = new Agent({
    keepAlive: true,
    ...(config.caPem ? { ca: config.caPem } : {}),
    ...(config.certPem ? { cert: config.certPem } : {}),
    ...(config.keyPem ? { key: config.keyPem } : {}),
  });
  return { config, agent };
}

export interface HttpRequest {
  method: string;
  path: string;
  body?: unknown;
  contentType?: string;
  headers?: Record<string, string | string[]>;
  watch?: { ms: number; maxEvents: number };
}

function parse(text: string): unknown {
  if (text === '') return '';
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function open(target: HttpTarget, req: HttpRequest): Promise<IncomingMessage> {
  const url = new URL(req.path, target.config.server);
  const headers: Record<string, string | string[]> = { accept: 'application/json', 'user-agent': 'differential/1.0', ...req.headers };
  if (target.config.token) headers.authorization = `Bearer ${target.config.token}`;
  let payload: Buffer | undefined;
  if (req.body !== undefined) {
    payload = Buffer.from(typeof req.body === 'string' ? req.body : JSON.stringify(req.body));
    headers['content-type'] = req.contentType ?? 'application/json';
    headers['content-length'] = String(payload.length);
  }
  return new Promise((resolve, reject) => {
    const r = request(url, { method: req.method, headers, agent: target.agent, timeout: 30_000 }, resolve);
    r.on('timeout', () => r.destroy(new Error(`${req.method} ${req.path}: no answer within 30 s`)));
    r.on('error', reject);
    r.end(payload);
  });
}

/** Reads newline-delimited JSON events until the limit, the time or the end of the stream. */
async function readEvents(res: IncomingMessage, limit: { ms: number; maxEvents: number }): Promise<unknown[]> {
  const events: unknown[] = [];
  let buf = '';
  return new Promise((resolve) => {
    const finish = (): void => {
      clearTimeout(timer);
      res.removeAllListeners('data');
      res.destroy();
      resolve(events);
    };
    const timer = setTimeout(finish, limit.ms);
    res.on('data', (chunk: Buffer) => {
      buf += chunk.toString('utf8');
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl).trim();
        buf = buf.slice(nl + 1);
        if (line) events.push(parse(line));
        if (events.length >= limit.maxEvents) return finish();
      }
    });
    res.on('end', finish);
    res.on('error', finish);
  });
}

export async function send(target: HttpTarget, req: HttpRequest): Promise<HttpAnswer> {
  const res = await open(target, req);
  const status = res.statusCode ?? 0;
  if (req.watch && status === 200) return { status, body: '', events: await readEvents(res, req.watch) };
  const chunks: Buffer[] = [];
  for await (const c of res) chunks.push(c as Buffer);
  return { status, body: parse(Buffer.concat(chunks).toString('utf8')) };
}
