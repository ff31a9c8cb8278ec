// HTTP/2 on the embedded API server (chosen by TLS ALPN, HTTP/1.1 still served): requests and
// watches sharing one session, client-certificate identity, refusals, a large list, idle sessions
// closed after the keep-alive timeout, GOAWAY on shutdown.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type ClientHttp2Session, type ClientHttp2Stream, type IncomingHttpHeaders } from 'node:http2';
import { connect as tlsConnect } from 'node:tls';
import { startTestApiServer, type TestApiServer } from '../helpers/embedded-server.js';
import { waitFor } from '../helpers/wait-for.js';

interface Credentials {
  ca: string;
  cert?: string;
  key?: string;
}

function adminCredentials(srv: TestApiServer): Credentials {
  const dec = (v: string | undefined): string => Buffer.from(v ?? '', 'base64').toString('utf8');
  const user = srv.kubeConfig.getCurrentUser();
  return { ca: dec(srv.kubeConfig.getCurrentCluster()?.caData), cert: dec(user?.certData), key: dec(user?.keyData) };
}

async function openSession(url: string, creds: Credentials): Promise<ClientHttp2Session> {
  const session = connect(url, { ...creds, servername: 'localhost' });
  session.on('error', () => undefined);
  // The server's SETTINGS (its stream cap among them) arrive after the TLS connection.
  await new Promise<void>((resolve, reject) => {
    session.once('remoteSettings', () => resolve());
    session.once('error', reject);
  });
  return session;
}

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  json: any;
}

function request(session: ClientHttp2Session, method: string, path: string, o: { body?: unknown; headers?: Record<string, string | string[]> } = {}): Promise<Reply> {
  const body = o.body === undefined ? undefined : Buffer.isBuffer(o.body) ? o.body : Buffer.from(JSON.stringify(o.body));
  const stream = session.request({ ':method': method, ':path': path, ...(body ? { 'content-type': 'application/json' } : {}), ...o.headers });
  return new Promise((resolve, reject) => {
    let headers: IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    stream.on('response', (h) => (headers = h));
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      resolve({ status: Number(headers[':status']), headers, json });
    });
    stream.on('error', reject);
    stream.end(body);
  });
}

interface Watch {
  stream: ClientHttp2Stream;
  status: Promise<number>;
  /** Next event; rejects after `timeoutMs`. */
  next(timeoutMs?: number): Promise<{ type: string; object: any }>;
  closed: Promise<void>;
}

function watch(session: ClientHttp2Session, path: string): Watch {
  const stream = session.request({ ':path': path });
  stream.end();
  const lines: string[] = [];
  let buf = '';
  let wake: (() => void) | undefined;
  stream.setEncoding('utf8');
  stream.on('data', (c: string) => {
    buf += c;
    let i: number;
    while ((i = buf.indexOf('\n')) >= 0) {
      lines.push(buf.slice(0, i));
      buf = buf.slice(i + 1);
    }
    wake?.();
  });
  stream.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => stream.once('close', () => resolve()));
  return {
    stream,
    closed,
    status: new Promise((resolve) => stream.once('response', (h) => resolve(Number(h[':status'])))),
    async next(timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      while (lines.length === 0) {
        if (stream.closed) throw new Error('watch closed');
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no watch event within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, left);
          wake = () => {
            clearTimeout(t);
            resolve();
          };
        });
      }
      return JSON.parse(lines.shift() as string) as { type: string; object: any };
    },
  };
}

const configMap = (ns: string, name: string, data: Record<string, string> = {}): object => ({
  apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns }, data,
});

async function createNamespace(session: ClientHttp2Session, name: string): Promise<void> {
  const r = await request(session, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } } });
  assert.equal(r.status, 201);
}

const closeSession = (s: ClientHttp2Session): Promise<void> => new Promise((resolve) => {
  if (s.closed || s.destroyed) return resolve();
  s.close(() => resolve());
});

describe('apiserver over HTTP/2', () => {
  let srv: TestApiServer;
  let admin: Credentials;
  let session: ClientHttp2Session;
  before(async () => {
    srv = await startTestApiServer();
    admin = adminCredentials(srv);
    session = await openSession(srv.url, admin);
  });
  after(async () => {
    await closeSession(session);
    await srv.stop();
  });

  it('should negotiate h2 and serve get, create and list on one session', async () => {
    assert.equal(session.alpnProtocol, 'h2');
    assert.equal(session.remoteSettings.maxConcurrentStreams, 1000);
    const version = await request(session, 'GET', '/version');
    assert.equal(version.status, 200);
    assert.equal(typeof version.json.gitVersion, 'string');
    await createNamespace(session, 'h2-crud');
    const created = await request(session, 'POST', '/api/v1/namespaces/h2-crud/configmaps', { body: configMap('h2-crud', 'one', { a: '1' }) });
    assert.equal(created.status, 201);
    assert.ok(created.headers['audit-id']);
    const got = await request(session, 'GET', '/api/v1/namespaces/h2-crud/configmaps/one');
    assert.equal(got.status, 200);
    assert.equal(got.json.data.a, '1');
    const list = await request(session, 'GET', '/api/v1/namespaces/h2-crud/configmaps');
    assert.equal(list.status, 200);
    assert.ok(list.json.items.some((i: any) => i.metadata.name === 'one'));
    const missing = await request(session, 'GET', '/api/v1/namespaces/h2-crud/configmaps/nope');
    assert.equal(missing.status, 404);
    assert.equal(missing.json.kind, 'Status');
    assert.equal(missing.json.reason, 'NotFound');
    const health = await request(session, 'GET', '/readyz');
    assert.equal(health.status, 200);
  });

  it('should deliver watch events on a stream while other requests run on the same session', async () => {
    await createNamespace(session, 'h2-watch');
    const list = await request(session, 'GET', '/api/v1/namespaces/h2-watch/configmaps');
    const w = watch(session, `/api/v1/namespaces/h2-watch/configmaps?watch=1&resourceVersion=${String(list.json.metadata.resourceVersion)}`);
    assert.equal(await w.status, 200);
    for (const name of ['a', 'b', 'c']) {
      assert.equal((await request(session, 'POST', '/api/v1/namespaces/h2-watch/configmaps', { body: configMap('h2-watch', name) })).status, 201);
      const ev = await w.next();
      assert.equal(ev.type, 'ADDED');
      assert.equal(ev.object.metadata.name, name);
    }
    assert.equal((await request(session, 'DELETE', '/api/v1/namespaces/h2-watch/configmaps/b')).status, 200);
    const del = await w.next();
    assert.equal(del.type, 'DELETED');
    assert.equal(del.object.metadata.name, 'b');
    w.stream.close();
    await w.closed;
  });

  it('should carry many concurrent watches on one session, each receiving the events', async () => {
    await createNamespace(session, 'h2-many');
    const list = await request(session, 'GET', '/api/v1/namespaces/h2-many/configmaps');
    const rv = String(list.json.metadata.resourceVersion);
    const watches = Array.from({ length: 200 }, () => watch(session, `/api/v1/namespaces/h2-many/configmaps?watch=1&resourceVersion=${rv}`));
    assert.deepEqual(new Set(await Promise.all(watches.map((w) => w.status))), new Set([200]));
    assert.equal((await request(session, 'POST', '/api/v1/namespaces/h2-many/configmaps', { body: configMap('h2-many', 'x') })).status, 201);
    const events = await Promise.all(watches.map((w) => w.next()));
    assert.ok(events.every((e) => e.type === 'ADDED' && e.object.metadata.name === 'x'));
    for (const w of watches) w.stream.close();
    await Promise.all(watches.map((w) => w.closed));
  });

  it('should take the identity of an x509 client certificate over h2', async () => {
    const cert = await srv.server.pki.issueClientCertificate({ commonName: 'h2-x509-user', organizations: ['h2-group'] });
    const s = await openSession(srv.url, { ca: admin.ca, cert: cert.certPem, key: cert.keyPem });
    try {
      assert.equal(s.alpnProtocol, 'h2');
      const review = await request(s, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
        body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
      });
      assert.equal(review.status, 201);
      assert.equal(review.json.status.userInfo.username, 'h2-x509-user');
      assert.ok(review.json.status.userInfo.groups.includes('h2-group'));
      const denied = await request(s, 'GET', '/api/v1/namespaces');
      assert.equal(denied.status, 403);
      assert.match(denied.json.message, /h2-x509-user/);
    } finally {
      await closeSession(s);
    }
  });

  it('should impersonate over h2, each impersonated group its own header field', async () => {
    const review = await request(session, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
      headers: { 'impersonate-user': 'h2-someone', 'impersonate-group': ['g-one', 'g-two'] },
    });
    assert.equal(review.status, 201);
    assert.equal(review.json.status.userInfo.username, 'h2-someone');
    assert.deepEqual(review.json.status.userInfo.groups, ['g-one', 'g-two', 'system:authenticated']);
  });

  it('should answer a bad bearer token with 401 and a Status', async () => {
    const s = await openSession(srv.url, { ca: admin.ca });
    try {
      const r = await request(s, 'GET', '/api/v1/namespaces', { headers: { authorization: 'Bearer not-a-token' } });
      assert.equal(r.status, 401);
      assert.equal(r.json.kind, 'Status');
      assert.equal(r.json.reason, 'Unauthorized');
    } finally {
      await closeSession(s);
    }
  });

  it('should stream a large list over h2 (beyond the flow-control window) and refuse an oversized body with 413', async () => {
    await createNamespace(session, 'h2-large');
    const filler = 'x'.repeat(8 * 1024);
    const created = await Promise.all(Array.from({ length: 120 }, (_, i) =>
      request(session, 'POST', '/api/v1/namespaces/h2-large/configmaps', { body: configMap('h2-large', `cm-${String(i).padStart(3, '0')}`, { filler }) })));
    assert.ok(created.every((r) => r.status === 201));
    const list = await request(session, 'GET', '/api/v1/namespaces/h2-large/configmaps');
    assert.equal(list.status, 200);
    const ours = list.json.items.filter((i: any) => i.metadata.name.startsWith('cm-'));
    assert.equal(ours.length, 120);
    assert.ok(ours.every((i: any) => i.data.filler === filler));
    const page = await request(session, 'GET', '/api/v1/namespaces/h2-large/configmaps?limit=50');
    assert.equal(page.json.items.length, 50);
    assert.ok(page.json.metadata.continue);
    const tooLarge = await request(session, 'POST', '/api/v1/namespaces/h2-large/configmaps', { body: Buffer.alloc(4 * 1024 * 1024, 0x20) });
    assert.equal(tooLarge.status, 413);
    assert.equal(tooLarge.json.kind, 'Status');
    // The session outlives the refused stream.
    assert.equal((await request(session, 'GET', '/version')).status, 200);
  });
});

describe('apiserver HTTP/2 session lifetime', () => {
  const IDLE_MS = 300;
  let srv: TestApiServer;
  let admin: Credentials;
  before(async () => {
    srv = await startTestApiServer({ connectionLimits: { keepAliveTimeoutMs: IDLE_MS, headersTimeoutMs: IDLE_MS, maxHeaderBytes: 4096 } });
    admin = adminCredentials(srv);
  });
  after(async () => {
    await srv.stop();
  });

  const goneAway = (s: ClientHttp2Session): Promise<void> => new Promise((resolve) => {
    if (s.closed || s.destroyed) return resolve();
    s.once('goaway', () => resolve());
    s.once('close', () => resolve());
  });

  it('should close an idle session after the keep-alive timeout, and one that never opens a stream', async () => {
    const used = await openSession(srv.url, admin);
    const unused = await openSession(srv.url, admin);
    assert.equal((await request(used, 'GET', '/version')).status, 200);
    await Promise.all([goneAway(used), goneAway(unused)]);
    await Promise.all([closeSession(used), closeSession(unused)]);
  });

  it('should keep a session with a quiet watch open past the idle timeout', async () => {
    const s = await openSession(srv.url, admin);
    let away = false;
    s.once('goaway', () => (away = true));
    try {
      const list = await request(s, 'GET', '/api/v1/namespaces/default/configmaps');
      const w = watch(s, `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${String(list.json.metadata.resourceVersion)}`);
      assert.equal(await w.status, 200);
      await new Promise((r) => setTimeout(r, IDLE_MS * 3));
      assert.equal(away, false);
      assert.equal((await request(s, 'POST', '/api/v1/namespaces/default/configmaps', { body: configMap('default', 'quiet') })).status, 201);
      assert.equal((await w.next()).object.metadata.name, 'quiet');
      w.stream.close();
      await w.closed;
      // With its last stream gone the session is idle again.
      await goneAway(s);
    } finally {
      await closeSession(s);
    }
  });

  it('should close an idle HTTP/1.1 keep-alive connection after the keep-alive timeout', async () => {
    const socket = tlsConnect({ host: '127.0.0.1', port: srv.port, servername: 'localhost', ca: admin.ca, cert: admin.cert, key: admin.key, ALPNProtocols: ['http/1.1'] });
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (c: string) => (text += c));
    socket.on('error', () => undefined);
    await new Promise<void>((resolve) => socket.once('secureConnect', () => resolve()));
    assert.equal(socket.alpnProtocol, 'http/1.1');
    socket.write('GET /version HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await waitFor(() => text.startsWith('HTTP/1.1 200'));
    await closed;
  });

  it('should refuse oversized headers: 431 over HTTP/1.1, the stream over HTTP/2 (its session stays usable)', async () => {
    const big = 'a'.repeat(8192);
    const socket = tlsConnect({ host: '127.0.0.1', port: srv.port, servername: 'localhost', ca: admin.ca, cert: admin.cert, key: admin.key, ALPNProtocols: ['http/1.1'] });
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (c: string) => (text += c));
    socket.on('error', () => undefined);
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    await new Promise<void>((resolve) => socket.once('secureConnect', () => resolve()));
    socket.write(`GET /version HTTP/1.1\r\nHost: localhost\r\nX-Big: ${big}\r\n\r\n`);
    await closed;
    assert.match(text, /^HTTP\/1\.1 431 /);

    const s = await openSession(srv.url, admin);
    try {
      await assert.rejects(request(s, 'GET', '/version', { headers: { 'x-big': big } }), /NGHTTP2_ENHANCE_YOUR_CALM/);
      assert.equal((await request(s, 'GET', '/version')).status, 200);
    } finally {
      await closeSession(s);
    }
  });

  it('should send GOAWAY to sessions when the server closes, ending their watches', async () => {
    const s = await openSession(srv.url, admin);
    const w = watch(s, '/api/v1/namespaces/default/configmaps?watch=1');
    assert.equal(await w.status, 200);
    const away = goneAway(s);
    await srv.stop();
    await away;
    await w.closed;
    await closeSession(s);
  });
});
