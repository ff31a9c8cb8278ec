import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as http2 from 'node:http2';
import * as https from 'node:https';
import * as net from 'node:net';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { IncomingMessage } from 'node:http';
import { createSelfSignedCa, generateKeyPair, issueCertificate } from '../util/x509.js';
import { createKubeClient } from './rest-client.js';
import { createTransport, readBody } from './http-transport.js';
import type { ClientConfig } from './kubeconfig.js';
import { resourceTypes } from './resource-types.js';
import { NetworkError } from './errors.js';
import type { KubeClient } from './types.js';
import type { KubeObject, WatchEvent } from '../api/meta.js';

interface Pki {
  caPem: string;
  serverCert: string;
  serverKey: string;
  client(cn: string): Promise<{ certPem: string; keyPem: string }>;
}

const day = 24 * 3600 * 1000;

async function makePki(): Promise<Pki> {
  const notBefore = new Date(Date.now() - 60_000);
  const notAfter = new Date(Date.now() + day);
  const ca = await createSelfSignedCa({ commonName: 'test-ca', notBefore, notAfter });
  const leaf = async (cn: string, server: boolean): Promise<{ certPem: string; keyPem: string }> => {
    const key = await generateKeyPair();
    const certPem = await issueCertificate({
      ca,
      subject: { commonName: cn },
      publicKey: key.publicKeyPem,
      notBefore,
      notAfter,
      keyUsages: ['digitalSignature'],
      extKeyUsages: [server ? 'serverAuth' : 'clientAuth'],
      ...(server ? { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] } : {}),
    });
    return { certPem, keyPem: key.privateKeyPem };
  };
  const server = await leaf('server', true);
  return { caPem: ca.certPem, serverCert: server.certPem, serverKey: server.keyPem, client: (cn) => leaf(cn, false) };
}

const pkiPromise = makePki();

type Req = IncomingMessage | http2.Http2ServerRequest;
/** What the handler uses of an HTTP/1.1 or HTTP/2 response. */
interface Res {
  writeHead(code: number, headers: Record<string, string>): unknown;
  write(chunk: string): unknown;
  end(chunk: string): unknown;
  once(event: 'close', f: () => void): unknown;
}

/** whoami answers who the client is; a watch sends one ADDED event and stays open. */
function handler(watches: Res[]) {
  return (req: Req, res: Res): void => {
    const url = new URL(req.url ?? '/', 'https://x');
    if (url.pathname === '/hang') return;
    if (url.pathname === '/half') {
      // Headers and part of a body, then nothing more.
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"half":');
      return;
    }
    if (url.pathname === '/stall') {
      // Answers, then, once the whole answer is sent, holds this (shared) event loop until the
      // time the client names (past its deadline), as a long synchronous job or a starved process
      // would: the answer is waiting in the client's socket when its deadline falls due. An
      // absolute time keeps the stall past the deadline however late a busy machine runs this.
      res.once('close', () => {
        const until = Number(url.searchParams.get('until'));
        while (Date.now() < until) {
          // busy on purpose
        }
      });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ stalled: true }));
      return;
    }
    if (url.searchParams.get('watch') === 'true') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'a' } } }) + '\n');
      watches.push(res);
      return;
    }
    const peer = (req.socket as TLSSocket).getPeerCertificate();
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ cn: peer.subject?.CN ?? '', auth: req.headers.authorization ?? '', user: req.headers['impersonate-user'] ?? '', httpVersion: req.httpVersion }));
  };
}

interface H2Server {
  url: string;
  port: number;
  sessions: http2.ServerHttp2Session[];
  watches: Res[];
}

async function startH2(t: { after(fn: () => void | Promise<void>): void }, pki: Pki, settings: http2.Settings = {}): Promise<H2Server> {
  const watches: Res[] = [];
  const sessions: http2.ServerHttp2Session[] = [];
  const server = http2.createSecureServer(
    { key: pki.serverKey, cert: pki.serverCert, ca: pki.caPem, requestCert: true, rejectUnauthorized: false, allowHTTP1: true, settings },
    handler(watches),
  );
  server.on('session', (s: http2.ServerHttp2Session) => sessions.push(s));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  t.after(async () => {
    for (const s of sessions) s.destroy();
    await new Promise((r) => server.close(r));
  });
  return { url: `https://127.0.0.1:${port}`, port, sessions, watches };
}

async function clientConfig(pki: Pki, server: string, cn = 'agent'): Promise<ClientConfig> {
  const c = await pki.client(cn);
  return { server, caPem: pki.caPem, certPem: c.certPem, keyPem: c.keyPem, token: 'secret-token', contextName: 'test' };
}

interface WhoAmI {
  cn: string;
  auth: string;
  user: string;
  httpVersion: string;
}

/** Reads one event, then returns the iterator so the stream stays open. */
async function firstEvent(iter: AsyncIterator<WatchEvent<KubeObject>>): Promise<WatchEvent<KubeObject>> {
  const r = await iter.next();
  assert.equal(r.done, false);
  return r.value as WatchEvent<KubeObject>;
}

/** A server, a client of it and one watch of secrets already past its first event. */
async function watchingClient(t: { after(fn: () => void | Promise<void>): void }, signal?: AbortSignal): Promise<{ s: H2Server; client: KubeClient; it: AsyncIterator<WatchEvent<KubeObject>> }> {
  const pki = await pkiPromise;
  const s = await startH2(t, pki);
  const client = createKubeClient(await clientConfig(pki, s.url));
  t.after(() => client.close());
  const it = client.resource(resourceTypes.secrets, 'ns').watch(signal ? { signal } : {})[Symbol.asyncIterator]();
  await firstEvent(it);
  return { s, client, it };
}

test('should share one HTTP/2 session for many requests and several watches, presenting the client certificate and token', async (t) => {
  const pki = await pkiPromise;
  const s = await startH2(t, pki);
  const client = createKubeClient({ ...(await clientConfig(pki, s.url)), impersonate: { user: 'someone', groups: ['g1', 'g2'] } });
  t.after(() => client.close());
  const answers = await Promise.all(Array.from({ length: 20 }, () => client.request<WhoAmI>('GET', '/whoami')));
  for (const a of answers) assert.deepEqual(a, { cn: 'agent', auth: 'Bearer secret-token', user: 'someone', httpVersion: '2.0' });
  const ac = new AbortController();
  const iters = [0, 1, 2].map(() => client.resource(resourceTypes.secrets, 'ns').watch({ signal: ac.signal })[Symbol.asyncIterator]());
  for (const it of iters) assert.equal((await firstEvent(it)).object.metadata.name, 'a');
  await client.request('GET', '/whoami');
  assert.equal(s.sessions.length, 1);
  assert.equal(s.watches.length, 3);
  ac.abort();
});

test('should open the session on preconnect, without a request, and send the next request over it', async (t) => {
  const pki = await pkiPromise;
  const s = await startH2(t, pki);
  const client = createKubeClient(await clientConfig(pki, s.url));
  t.after(() => client.close());
  let streams = 0;
  const opened = new Promise<void>((resolve) => {
    const check = (): void => {
      const session = s.sessions[0];
      if (!session) return void setTimeout(check, 5);
      session.on('stream', () => streams++);
      resolve();
    };
    check();
  });
  client.preconnect?.();
  client.preconnect?.();
  await opened;
  assert.equal(streams, 0);
  assert.equal((await client.request<WhoAmI>('GET', '/whoami')).cn, 'agent');
  assert.equal(s.sessions.length, 1);
  assert.equal(streams, 1);
});

test('should leave a failed preconnect to the next request, which reports it', async (t) => {
  // A port nothing listens on: the preconnect fails quietly, the request fails with a NetworkError.
  const probe = net.createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const port = (probe.address() as AddressInfo).port;
  await new Promise((r) => probe.close(r));
  const client = createKubeClient(await clientConfig(await pkiPromise, `https://127.0.0.1:${port}`));
  t.after(() => client.close());
  client.preconnect?.();
  await assert.rejects(client.request('GET', '/whoami'), NetworkError);
});

test('should open a second session only when watches fill the server stream limit', async (t) => {
  const pki = await pkiPromise;
  const s = await startH2(t, pki, { maxConcurrentStreams: 2 });
  const client = createKubeClient(await clientConfig(pki, s.url));
  t.after(() => client.close());
  await client.request('GET', '/whoami');
  const ac = new AbortController();
  for (let i = 0; i < 2; i++) await firstEvent(client.resource(resourceTypes.secrets, 'ns').watch({ signal: ac.signal })[Symbol.asyncIterator]());
  assert.equal(s.sessions.length, 1);
  // Both streams of the first session are taken by watches: requests go over a second one.
  await Promise.all(Array.from({ length: 2 }, () => client.request('GET', '/whoami')));
  for (let i = 0; i < 3; i++) await client.request('GET', '/whoami');
  assert.equal(s.sessions.length, 2);
  // More concurrent requests than a session admits open further sessions rather than being refused.
  await Promise.all(Array.from({ length: 6 }, () => client.request('GET', '/whoami')));
  ac.abort();
});

test('should send the first session\'s requests before the server\'s settings, and again those its lower stream limit refused', async (t) => {
  const pki = await pkiPromise;
  const s = await startH2(t, pki, { maxConcurrentStreams: 2 });
  const client = createKubeClient(await clientConfig(pki, s.url));
  t.after(() => client.close());
  const answers = await Promise.all(Array.from({ length: 30 }, () => client.request<WhoAmI>('GET', '/whoami')));
  assert.deepEqual(answers.map((a) => a.cn), Array.from({ length: 30 }, () => 'agent'));
});

test('should fall back to HTTP/1.1 against a server without h2', async (t) => {
  const pki = await pkiPromise;
  const watches: Res[] = [];
  const server = https.createServer({ key: pki.serverKey, cert: pki.serverCert, ca: pki.caPem, requestCert: true, rejectUnauthorized: false }, handler(watches));
  let connections = 0;
  server.on('connection', () => connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  const client = createKubeClient(await clientConfig(pki, `https://127.0.0.1:${(server.address() as AddressInfo).port}`));
  t.after(() => client.close());
  const a = await client.request<WhoAmI>('GET', '/whoami');
  assert.deepEqual(a, { cn: 'agent', auth: 'Bearer secret-token', user: '', httpVersion: '1.1' });
  const ac = new AbortController();
  const it = client.resource(resourceTypes.secrets, 'ns').watch({ signal: ac.signal })[Symbol.asyncIterator]();
  assert.equal((await firstEvent(it)).type, 'ADDED');
  for (let i = 0; i < 5; i++) assert.equal((await client.request<WhoAmI>('GET', '/whoami')).httpVersion, '1.1');
  // The protocol probe, the kept-alive request connection and the watch's own connection.
  assert.equal(connections, 3);
  ac.abort();
});

test('should end an in-flight watch with a NetworkError when the server drops the session, and reconnect for the next request', async (t) => {
  const { s, client, it } = await watchingClient(t);
  s.sessions[0]?.destroy();
  await assert.rejects(it.next(), NetworkError);
  assert.equal((await client.request<WhoAmI>('GET', '/whoami')).httpVersion, '2.0');
  assert.equal(s.sessions.length, 2);
});

test('should send new requests over a new session after a GOAWAY while the old session finishes its watch', async (t) => {
  const { s, client, it } = await watchingClient(t);
  const first = s.sessions[0];
  assert.ok(first);
  const goaway = new Promise((r) => first.once('close', r));
  first.close();
  assert.equal((await client.request<WhoAmI>('GET', '/whoami')).httpVersion, '2.0');
  assert.equal(s.sessions.length, 2);
  // The watch opened before the GOAWAY goes on until the server ends it.
  s.watches[0]?.end(JSON.stringify({ type: 'DELETED', object: { metadata: { name: 'a' } } }) + '\n');
  assert.equal((await firstEvent(it)).type, 'DELETED');
  assert.equal((await it.next()).done, true);
  await goaway;
});

test('should open a new session for a rotated certificate and close the old one once its streams end', async (t) => {
  const pki = await pkiPromise;
  const s = await startH2(t, pki);
  let cfg = await clientConfig(pki, s.url, 'first');
  const transport = createTransport({ source: { current: () => cfg }, userAgent: 'test', timeoutMs: 5000 });
  t.after(() => transport.close());
  const who = async (): Promise<WhoAmI> => JSON.parse(await readBody(await transport.send({ method: 'GET', path: '/whoami' }), 'whoami')) as WhoAmI;
  assert.equal((await who()).cn, 'first');
  const watch = await transport.send({ method: 'GET', path: '/w?watch=true', timeoutMs: 0 });
  cfg = await clientConfig(pki, s.url, 'second');
  assert.equal((await who()).cn, 'second');
  assert.equal(s.sessions.length, 2);
  const oldSession = s.sessions[0];
  assert.ok(oldSession);
  const oldClosed = new Promise((r) => oldSession.once('close', r));
  // The old session still carries its watch until the watch ends.
  const event = JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'a' } } }) + '\n';
  s.watches[0]?.end(event);
  assert.equal(await readBody(watch, 'watch'), event + event);
  await oldClosed;
  assert.equal((await who()).cn, 'second');
  assert.equal(s.sessions.length, 2);
});

test('should fail with a NetworkError when response headers do not come in time, for requests and streams alike', async (t) => {
  const pki = await pkiPromise;
  const s = await startH2(t, pki);
  const cfg = await clientConfig(pki, s.url);
  const transport = createTransport({ source: { current: () => cfg }, userAgent: 'test', timeoutMs: 200 });
  t.after(() => transport.close());
  await assert.rejects(transport.send({ method: 'GET', path: '/hang' }), NetworkError);
  await assert.rejects(transport.send({ method: 'GET', path: '/hang?watch=false', timeoutMs: 0 }), (err: unknown) => err instanceof NetworkError && /no response headers/.test(err.message));
  // The session survives its streams' timeouts.
  assert.equal(JSON.parse(await readBody(await transport.send({ method: 'GET', path: '/whoami' }), 'whoami')).httpVersion, '2.0');
  assert.equal(s.sessions.length, 1);
});

/** The request deadline of transportsWithDeadline: long enough for a first TLS handshake on a busy machine. */
const DEADLINE_MS = 1000;

/** A transport with a short request deadline to an HTTP/2 server, then one to an HTTP/1.1-only server. */
async function transportsWithDeadline(t: { after(fn: () => void | Promise<void>): void }): Promise<Array<ReturnType<typeof createTransport>>> {
  const pki = await pkiPromise;
  const h2 = await startH2(t, pki);
  const h1 = https.createServer({ key: pki.serverKey, cert: pki.serverCert, ca: pki.caPem, requestCert: true, rejectUnauthorized: false }, handler([]));
  await new Promise<void>((r) => h1.listen(0, '127.0.0.1', r));
  t.after(async () => {
    h1.closeAllConnections();
    await new Promise((r) => h1.close(r));
  });
  const out = [];
  for (const url of [h2.url, `https://127.0.0.1:${(h1.address() as AddressInfo).port}`]) {
    const cfg = await clientConfig(pki, url);
    const transport = createTransport({ source: { current: () => cfg }, userAgent: 'test', timeoutMs: DEADLINE_MS });
    t.after(() => transport.close());
    out.push(transport);
  }
  return out;
}

test('should take an answer that arrived while the process was stalled past the request deadline, over HTTP/2 and HTTP/1.1', async (t) => {
  for (const transport of await transportsWithDeadline(t)) {
    // A first request settles the protocol and the connection, so the deadline only covers the stall.
    await readBody(await transport.send({ method: 'GET', path: '/whoami' }), 'whoami');
    // The request's own deadline, then the response-headers deadline of a request without one.
    const pastDeadline = (): number => Date.now() + DEADLINE_MS + 200;
    assert.deepEqual(JSON.parse(await readBody(await transport.send({ method: 'GET', path: `/stall?until=${pastDeadline()}` }), 'stall')), { stalled: true });
    assert.deepEqual(JSON.parse(await readBody(await transport.send({ method: 'GET', path: `/stall?until=${pastDeadline()}&watch=false`, timeoutMs: 0 }), 'stall')), { stalled: true });
  }
});

test('should say a body cut by the request deadline timed out, over HTTP/2 and HTTP/1.1', async (t) => {
  for (const transport of await transportsWithDeadline(t)) {
    const res = await transport.send({ method: 'GET', path: '/half' });
    await assert.rejects(readBody(res, 'half'), (err: unknown) => err instanceof NetworkError && err.message === 'half: reading the response failed: The operation was aborted due to timeout');
  }
});

test('should cancel only the aborted watch stream and keep the session', async (t) => {
  const ac = new AbortController();
  const { s, client, it } = await watchingClient(t, ac.signal);
  const serverSaw = new Promise<void>((r) => s.watches[0]?.once('close', () => r()));
  ac.abort();
  await assert.rejects(it.next(), { name: 'AbortError' });
  await serverSaw;
  assert.equal((await client.request<WhoAmI>('GET', '/whoami')).httpVersion, '2.0');
  assert.equal(s.sessions.length, 1);
});

test('should destroy a session whose ping is not answered, failing its watch', async (t) => {
  const pki = await pkiPromise;
  const s = await startH2(t, pki);
  // A TCP relay that can stop forwarding, like a hub gone without a reset.
  const relayed: net.Socket[] = [];
  let frozen = false;
  const relay = net.createServer((down) => {
    const up = net.connect(s.port, '127.0.0.1');
    relayed.push(down, up);
    down.on('data', (d: Buffer) => {
      if (!frozen) up.write(d);
    });
    up.on('data', (d: Buffer) => {
      if (!frozen) down.write(d);
    });
    down.on('error', () => up.destroy());
    up.on('error', () => down.destroy());
    down.on('close', () => up.destroy());
    up.on('close', () => down.destroy());
  });
  await new Promise<void>((r) => relay.listen(0, '127.0.0.1', r));
  t.after(async () => {
    for (const c of relayed) c.destroy();
    await new Promise((r) => relay.close(r));
  });
  const cfg = await clientConfig(pki, `https://127.0.0.1:${(relay.address() as AddressInfo).port}`);
  const client = createKubeClient(cfg, { http2: { readIdleMs: 50, pingTimeoutMs: 100 } });
  t.after(() => client.close());
  const it = client.resource(resourceTypes.secrets, 'ns').watch()[Symbol.asyncIterator]();
  await firstEvent(it);
  frozen = true;
  await assert.rejects(it.next(), (err: unknown) => err instanceof NetworkError && /ping/.test(err.message));
});

test('should keep a process alive while a request waits and let it exit once the client is idle', async (t) => {
  const pki = await pkiPromise;
  const s = await startH2(t, pki);
  const cfg = await clientConfig(pki, s.url);
  const restClient = fileURLToPath(new URL('./rest-client.ts', import.meta.url));
  // The child never closes its client: it must still print the answer and end by itself.
  const script = `import { createKubeClient } from ${JSON.stringify(restClient)};
const c = createKubeClient(JSON.parse(process.env.CFG));
console.log(JSON.stringify(await c.request('GET', '/whoami')));`;
  const out = await new Promise<string>((resolve, reject) => {
    execFile(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { env: { ...process.env, CFG: JSON.stringify(cfg) }, timeout: 20_000 }, (err, stdout) =>
      err ? reject(err) : resolve(stdout),
    );
  });
  assert.equal((JSON.parse(out) as WhoAmI).httpVersion, '2.0');
});
