// A throwaway PKI and a loopback HTTPS server that asks for client certificates, records every
// request (method, path, headers, body, client CN) and lets each test answer as it likes.

import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { ensurePki, type Pki } from '../../src/apiserver/pki/index.js';

interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  clientCN: string | undefined;
}

type Handler = (req: RecordedRequest, res: ServerResponse) => void;

export interface FakeApi {
  url: string;
  pki: Pki;
  dir: string;
  requests: RecordedRequest[];
  /** TLS handshakes completed so far. */
  connections(): number;
  setHandler(h: Handler): void;
  close(): Promise<void>;
}

export async function startFakeApi(): Promise<FakeApi> {
  const dir = mkdtempSync(join(tmpdir(), 'ocm-client-'));
  const pki = await ensurePki(join(dir, 'pki'));
  const requests: RecordedRequest[] = [];
  let handshakes = 0;
  let handler: Handler = (_req, res) => {
    res.writeHead(404, { 'Content-Type': 'application/json' });
    res.end('{}');
  };
  const server: Server = createServer(
    { cert: pki.servingCertPem, key: pki.servingKeyPem, ca: pki.clientCaPem, requestCert: true, rejectUnauthorized: false, keepAliveTimeout: 30_000 },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const sock = req.socket as TLSSocket;
        const peer = sock.getPeerCertificate();
        const cn = peer && typeof peer.subject === 'object' ? (peer.subject.CN as string | undefined) : undefined;
        const rec: RecordedRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), clientCN: cn };
        requests.push(rec);
        handler(rec, res);
      });
    },
  );
  server.on('secureConnection', () => handshakes++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}`,
    pki,
    dir,
    requests,
    connections: () => handshakes,
    setHandler: (h) => (handler = h),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function json(res: ServerResponse, code: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(code, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}
