// Raw HTTPS requests against a test server with the admin client certificate (for status codes,
// headers and bodies that typed clients hide). Also: a line reader for watch streams.

import { request, Agent } from 'node:https';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { KubeConfig } from '@kubernetes/client-node';

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** Parsed JSON body (undefined when not JSON). */
  json: any;
}

export interface RawClientOptions {
  /** Use no client certificate (anonymous). */
  anonymous?: boolean;
}

export interface RawClient {
  request(method: string, path: string, opts?: { body?: string | Buffer | object; headers?: Record<string, string> }): Promise<RawResponse>;
  /** Opens a streaming GET; resolves when headers arrive. */
  stream(path: string, headers?: Record<string, string>): Promise<WatchStream>;
  close(): void;
}

interface WatchStream {
  status: number;
  headers: IncomingHttpHeaders;
  /** Next complete line parsed as JSON; rejects on timeout; undefined at end of stream. */
  next(timeoutMs?: number): Promise<any | undefined>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

function tlsOptions(kc: KubeConfig, anonymous: boolean): { ca?: string; cert?: string; key?: string } {
  const cluster = kc.getCurrentCluster();
  const user = kc.getCurrentUser();
  const dec = (v: string | undefined): string | undefined => (v ? Buffer.from(v, 'base64').toString('utf8') : undefined);
  const out: { ca?: string; cert?: string; key?: string } = {};
  const ca = dec(cluster?.caData);
  if (ca) out.ca = ca;
  if (!anonymous) {
    const cert = dec(user?.certData);
    const key = dec(user?.keyData);
    if (cert) out.cert = cert;
    if (key) out.key = key;
  }
  return out;
}

export function rawClient(kc: KubeConfig, opts: RawClientOptions = {}): RawClient {
  const server = kc.getCurrentCluster()?.server;
  if (!server) throw new Error('kubeconfig has no server');
  const base = new URL(server);
  const agent = new Agent({ keepAlive: true, ...tlsOptions(kc, opts.anonymous ?? false) });
  const open = (method: string, path: string, headers: Record<string, string>, body?: Buffer): Promise<IncomingMessage> =>
    new Promise((resolve, reject) => {
      const req = request({ hostname: base.hostname, port: base.port, method, path, headers, agent }, resolve);
      req.on('error', reject);
      if (body) req.end(body);
      else req.end();
    });
  return {
    async request(method, path, o = {}) {
      let body: Buffer | undefined;
      const headers: Record<string, string> = { ...(o.headers ?? {}) };
      if (o.body !== undefined) {
        body = Buffer.isBuffer(o.body) ? o.body : Buffer.from(typeof o.body === 'string' ? o.body : JSON.stringify(o.body));
        headers['content-type'] ??= 'application/json';
        headers['content-length'] = String(body.length);
      }
      const res = await open(method, path, headers, body);
      const chunks: Buffer[] = [];
      for await (const c of res) chunks.push(c as Buffer);
      const text = Buffer.concat(chunks).toString('utf8');
      let json: any;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      return { status: res.statusCode ?? 0, headers: res.headers, text, json };
    },
    async stream(path, headers = {}) {
      const res = await open('GET', path, headers);
      const lines: string[] = [];
      const waiters: (() => void)[] = [];
      let buf = '';
      let done = false;
      const wake = (): void => {
        for (const w of waiters.splice(0)) w();
      };
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        buf += c;
        let i: number;
        while ((i = buf.indexOf('\n')) >= 0) {
          lines.push(buf.slice(0, i));
          buf = buf.slice(i + 1);
        }
        wake();
      });
      const ended = new Promise<void>((resolve) => {
        const fin = (): void => {
          done = true;
          wake();
          resolve();
        };
        res.on('end', fin);
        res.on('close', fin);
        res.on('error', fin);
      });
      return {
        status: res.statusCode ?? 0,
        headers: res.headers,
        ended,
        async next(timeoutMs = 5000) {
          const deadline = Date.now() + timeoutMs;
          while (lines.length === 0) {
            if (done) return undefined;
            const left = deadline - Date.now();
            if (left <= 0) throw new Error(`no watch line within ${timeoutMs} ms`);
            await new Promise<void>((resolve) => {
              const t = setTimeout(resolve, left);
              waiters.push(() => {
                clearTimeout(t);
                resolve();
              });
            });
          }
          return JSON.parse(lines.shift() as string);
        },
        close() {
          res.destroy();
        },
      };
    },
    close() {
      agent.destroy();
    },
  };
}
