// Hostile connections over real TCP/TLS: a flood of idle connections from the clients' own address
// leaves authenticated clients served, slow or silent connections are closed after the (shortened)
// timeouts, transport-level refusals carry a Status body, and a client certificate with a bad
// signature gets 401 instead of a connection reset.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { CoreV1Api } from '@kubernetes/client-node';
import { startTestApiServer, type TestApiServer } from '../helpers/embedded-server.js';
import { rawClient } from '../helpers/raw-client.js';
import { identityClient } from './auth/identity-client.js';
import { createLogger } from '../../src/util/logger.js';

const LIMITS = {
  maxConnections: 60,
  maxConnectionsPerAddress: 50,
  handshakeTimeoutMs: 400,
  headersTimeoutMs: 400,
};

/** Resolves with the time (ms since `started`) at which the socket closed. */
function closedAt(socket: Socket, started: number): Promise<number> {
  return new Promise((resolve) => socket.once('close', () => resolve(Date.now() - started)));
}

function collect(socket: Socket): () => string {
  let text = '';
  socket.on('data', (d: Buffer) => (text += d.toString('utf8')));
  return () => text;
}

/** Status JSON from a raw HTTP/1.1 response text. */
function statusBody(response: string): { kind?: string; code?: number; reason?: string; message?: string } {
  const body = response.slice(response.indexOf('\r\n\r\n') + 4);
  return JSON.parse(body) as { kind?: string; code?: number; reason?: string; message?: string };
}

describe('apiserver hostile connections', () => {
  let srv: TestApiServer;
  const logLines: string[] = [];
  let port: number;

  const tls = (opts: { cert?: string; key?: string; maxVersion?: 'TLSv1.2' | 'TLSv1.3' } = {}): Promise<TLSSocket> =>
    new Promise((resolve, reject) => {
      const s = tlsConnect({ host: '127.0.0.1', port, ca: srv.server.pki.caPem, servername: 'localhost', ...opts }, () => resolve(s));
      s.once('error', reject);
    });

  before(async () => {
    srv = await startTestApiServer({
      connectionLimits: LIMITS,
      log: createLogger({ level: 'debug', write: (l) => logLines.push(l) }),
    });
    port = srv.port;
  });
  after(async () => {
    await srv.stop();
  });

  it('should keep serving authenticated clients from the same address during a flood of idle connections', async () => {
    const keptAlive = rawClient(srv.kubeConfig);
    const flood: Socket[] = [];
    try {
      assert.equal((await keptAlive.request('GET', '/api/v1/namespaces')).status, 200);
      // Ten times the global cap, all from 127.0.0.1 like the real clients; opened in waves so the
      // listen backlog never drops SYNs.
      let closedByServer = 0;
      for (let wave = 0; wave < 10; wave++) {
        const opened = Array.from({ length: LIMITS.maxConnections }, () => {
          const s = netConnect({ host: '127.0.0.1', port });
          s.on('error', () => undefined);
          s.once('close', () => closedByServer++);
          flood.push(s);
          return new Promise<void>((resolve) => {
            s.once('connect', () => resolve());
            s.once('close', () => resolve());
          });
        });
        await Promise.all(opened);
      }
      const started = Date.now();
      // A keep-alive connection opened before the flood...
      assert.equal((await keptAlive.request('GET', '/api/v1/namespaces/default')).status, 200);
      // ...and a brand-new client on a fresh connection.
      const fresh = srv.kubeConfig.makeApiClient(CoreV1Api);
      const ns = await fresh.readNamespace({ name: 'default' });
      assert.equal(ns.metadata?.name, 'default');
      const tookMs = Date.now() - started;
      // Served at all, not fast: a starved client would wait out the 32 s header timeout; 10 s
      // leaves room for a loaded machine.
      assert.ok(tookMs < 10_000, `served in ${tookMs} ms`);
      // The flood did not hold more than the cap: the server closed the rest.
      assert.ok(closedByServer >= flood.length - LIMITS.maxConnections, `${closedByServer} of ${flood.length} closed`);
      assert.ok(logLines.some((l) => l.includes('connection limit reached')), 'the limit is logged');
    } finally {
      for (const s of flood) s.destroy();
      keptAlive.close();
    }
  });

  it('should refuse a new connection when the cap is full of connections with requests in flight', async () => {
    const small = await startTestApiServer({ connectionLimits: { maxConnections: 3, maxConnectionsPerAddress: 3 } });
    const clients = [0, 1, 2].map(() => rawClient(small.kubeConfig));
    try {
      const watches = await Promise.all(clients.map((c) => c.stream('/api/v1/namespaces?watch=true')));
      const refused = rawClient(small.kubeConfig);
      await assert.rejects(refused.request('GET', '/api/v1/namespaces'), /ECONNRESET|socket hang up|disconnected before secure TLS connection/);
      refused.close();
      watches[0]!.close();
      await watches[0]!.ended;
      const admitted = rawClient(small.kubeConfig);
      await waitForStatus(() => admitted.request('GET', '/api/v1/namespaces'), 200);
      admitted.close();
      for (const w of watches) w.close();
    } finally {
      for (const c of clients) c.close();
      await small.stop();
    }
  });

  it('should close a connection that never completes its TLS handshake after the handshake timeout', async () => {
    const started = Date.now();
    const s = netConnect({ host: '127.0.0.1', port });
    s.on('error', () => undefined);
    const ms = await closedAt(s, started);
    assert.ok(ms >= LIMITS.handshakeTimeoutMs - 50 && ms < LIMITS.handshakeTimeoutMs + 1500, `closed after ${ms} ms`);
  });

  it('should close a connection that sends no request after the header timeout', async () => {
    const s = await tls();
    collect(s);
    const started = Date.now();
    const ms = await closedAt(s, started);
    assert.ok(ms >= LIMITS.headersTimeoutMs - 50 && ms < LIMITS.headersTimeoutMs + 1500, `closed after ${ms} ms`);
  });

  it('should close a connection sending partial headers after the header timeout, with a Status', async () => {
    const s = await tls();
    const text = collect(s);
    const started = Date.now();
    s.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: ');
    const ms = await closedAt(s, started);
    assert.ok(ms >= LIMITS.headersTimeoutMs - 50 && ms < LIMITS.headersTimeoutMs + 1500, `closed after ${ms} ms`);
    assert.match(text(), /^HTTP\/1\.1 408 /);
    assert.deepEqual({ ...statusBody(text()), message: undefined }, { apiVersion: 'v1', kind: 'Status', metadata: {}, status: 'Failure', reason: 'Timeout', code: 408, message: undefined });
  });

  it('should keep an idle keep-alive connection open past the header timeout (Go clients reuse them for 90 s)', async () => {
    const s = await tls();
    const text = collect(s);
    let closed = false;
    s.once('close', () => (closed = true));
    const ask = async (): Promise<void> => {
      const before = (text().match(/HTTP\/1\.1 /g) ?? []).length;
      s.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
      const deadline = Date.now() + 3000;
      while ((text().match(/HTTP\/1\.1 200 /g) ?? []).length <= before) {
        if (Date.now() > deadline || closed) throw new Error(`no answer: ${text()}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    await ask();
    await new Promise((r) => setTimeout(r, LIMITS.headersTimeoutMs * 2.5));
    assert.equal(closed, false);
    await ask();
    s.destroy();
  });

  it('should keep a watch open well past the header timeout', async () => {
    const raw = rawClient(srv.kubeConfig);
    try {
      const rv = (await raw.request('GET', '/api/v1/namespaces/default/configmaps')).json.metadata.resourceVersion as string;
      const watch = await raw.stream(`/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${rv}`);
      await new Promise((r) => setTimeout(r, LIMITS.headersTimeoutMs * 3));
      assert.equal((await raw.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'late' } } })).status, 201);
      const ev = await watch.next(3000);
      assert.equal(ev.type, 'ADDED');
      assert.equal(ev.object.metadata.name, 'late');
      watch.close();
    } finally {
      raw.close();
    }
  });

  it('should answer oversized headers with 431 and a Status body', async () => {
    const s = await tls();
    const text = collect(s);
    const closed = closedAt(s, Date.now());
    s.write(`GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(64 * 1024)}\r\n\r\n`);
    await closed;
    assert.match(text(), /^HTTP\/1\.1 431 /);
    assert.match(text(), /\r\nContent-Type: application\/json\r\n/);
    const st = statusBody(text());
    assert.equal(st.kind, 'Status');
    assert.equal(st.code, 431);
    assert.match(st.message ?? '', /Request Header Fields Too Large/);
  });

  it('should answer malformed HTTP with 400 and a Status body', async () => {
    const s = await tls();
    const text = collect(s);
    const closed = closedAt(s, Date.now());
    s.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\nBad Header Line\r\n\r\n');
    await closed;
    assert.match(text(), /^HTTP\/1\.1 400 /);
    const st = statusBody(text());
    assert.equal(st.kind, 'Status');
    assert.equal(st.code, 400);
    assert.equal(st.reason, 'BadRequest');
  });

  it('should answer a client certificate with a bad signature with 401 and a log line, over TLS 1.2 and 1.3', async () => {
    const issued = await srv.server.pki.issueClientCertificate({ commonName: 'mallory', organizations: ['system:masters'] });
    const der = Buffer.from(issued.certPem.replace(/-----[^-]+-----|\s/g, ''), 'base64');
    der[der.length - 1]! ^= 0x01; // last byte of the signature: still well-formed, no longer valid
    const forged = `-----BEGIN CERTIFICATE-----\n${der.toString('base64').match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----\n`;
    for (const maxVersion of ['TLSv1.2', 'TLSv1.3'] as const) {
      const before = logLines.length;
      const s = await tls({ cert: forged, key: issued.keyPem, maxVersion });
      const text = collect(s);
      const closed = closedAt(s, Date.now());
      s.write('GET /api/v1/namespaces HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
      await closed;
      assert.match(text(), /^HTTP\/1\.1 401 /, `${maxVersion}: ${text()}`);
      const st = statusBody(text());
      assert.equal(st.kind, 'Status');
      assert.equal(st.reason, 'Unauthorized');
      const lines = logLines.slice(before);
      assert.ok(lines.some((l) => l.includes('authentication failed')), `${maxVersion}: no log line`);
      assert.ok(!lines.some((l) => l.includes('PRIVATE KEY')), 'never logs key material');
    }
    // The genuine certificate still authenticates.
    const genuine = identityClient(srv.url, srv.server.pki.caPem, { certPem: issued.certPem, keyPem: issued.keyPem });
    assert.equal((await genuine.request('GET', '/api/v1/namespaces')).status, 200);
    genuine.close();
  });
});

async function waitForStatus(req: () => Promise<{ status: number }>, want: number): Promise<void> {
  const deadline = Date.now() + 3000;
  for (;;) {
    try {
      if ((await req()).status === want) return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
    }
    if (Date.now() > deadline) throw new Error(`no ${want} within 3 s`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
