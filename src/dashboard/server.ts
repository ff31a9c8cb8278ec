// The dashboard's HTTPS server: the login page, the page and its assets, the live fleet as
// server-sent events, and the Accept action. It holds no API identity of its own for reads or
// writes: every call runs as the signed-in user (./user-client.ts); see ./auth.ts for who that is.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { Status } from '../api/meta.js';
import { isDns1123Subdomain } from '../api/name-rules.js';
import { ApiStatusError, statusFromCode } from '../client/errors.js';
import type { ClientConfig } from '../client/kubeconfig.js';
import { acceptCluster, AcceptError } from '../cli/accept.js';
import type { Clock } from '../util/clock.js';
import { errorMessage } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import { identify, isSameOriginWrite, parseCookies, routeAccess, SESSION_COOKIE, sessionCookie, SessionStore, tokenDisplayName, type Identity, type PeerCertificate } from './auth.js';
import { loadAssets, type DashboardAssets } from './bundle.js';
import { startFleetStream } from './fleet-stream.js';
import type { AcceptAnswer } from './model.js';
import { appPage, loginPage } from './pages.js';
import { makeServingPair } from './serving-cert.js';
import { checkToken, userClients, type ApiTarget } from './user-client.js';

export interface DashboardOptions {
  /** host and port; port 0 picks a free one. Loopback unless the operator says otherwise. */
  listen: { host: string; port: number };
  /** The hub's API server, as the users' clients reach it. */
  target: ApiTarget;
  /** Serving certificate and key (PEM); omitted = made in memory. */
  serving?: { certPem: string; keyPem: string };
  /** CA whose client certificates sign users in (impersonated through `impersonator`). */
  clientCaPem?: string;
  /** The identity that impersonates certificate users; without it only tokens sign in. */
  impersonator?: ClientConfig;
  clock: Clock;
  log: Logger;
  sessionTtlMs?: number;
  /** Debounce of the live state (default 50 ms). */
  debounceMs?: number;
}

export interface Dashboard {
  url: string;
  /** PEM that verifies the serving certificate. */
  caPem: string;
  close(): Promise<void>;
}

const MAX_FORM_BYTES = 16 * 1024;
const HEARTBEAT_MS = 20_000;
const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

function sendStatus(res: ServerResponse, status: Status): void {
  res.writeHead(status.code ?? 500, { ...SECURITY_HEADERS, 'content-type': 'application/json' });
  res.end(JSON.stringify(status));
}

function sendHtml(res: ServerResponse, code: number, html: string, extra: Record<string, string> = {}): void {
  res.writeHead(code, { ...SECURITY_HEADERS, 'content-type': 'text/html; charset=utf-8', 'content-security-policy': "default-src 'self'; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'", ...extra });
  res.end(html);
}

function redirect(res: ServerResponse, to: string, extra: Record<string, string> = {}): void {
  res.writeHead(303, { ...SECURITY_HEADERS, location: to, ...extra });
  res.end();
}

async function readBody(req: IncomingMessage, limit: number): Promise<string | undefined> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function peerOf(req: IncomingMessage): PeerCertificate | undefined {
  const socket = req.socket as TLSSocket;
  if (typeof socket.getPeerCertificate !== 'function') return undefined;
  const cert = socket.getPeerCertificate();
  if (!cert || Object.keys(cert).length === 0) return undefined;
  const cn = cert.subject?.CN;
  const o = cert.subject?.O;
  return {
    authorized: socket.authorized,
    ...(typeof cn === 'string' ? { commonName: cn } : {}),
    organizations: o === undefined ? [] : Array.isArray(o) ? o : [o],
  };
}

export async function startDashboard(o: DashboardOptions): Promise<Dashboard> {
  const assets: DashboardAssets = await loadAssets();
  const sessions = new SessionStore(o.sessionTtlMs ?? 12 * 3600_000, () => o.clock.now());
  const clients = userClients(o.target, o.impersonator);
  const streams = new AbortController();
  const pair = o.serving ? { ...o.serving, caPem: o.serving.certPem } : await makeServingPair(o.listen.host, o.clock.now());
  // Client certificates are asked for but optional: a browser without one signs in with a token.
  const acceptsCerts = o.clientCaPem !== undefined && clients.impersonates;

  async function login(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req, MAX_FORM_BYTES);
    if (body === undefined) return sendHtml(res, 413, loginPage('The token is too long.'));
    const token = (new URLSearchParams(body).get('token') ?? '').trim();
    if (token === '' || /\s/.test(token)) return sendHtml(res, 400, loginPage('Paste one bearer token.'));
    let verdict: 'valid' | 'invalid';
    try {
      verdict = await checkToken(o.target, token);
    } catch (err) {
      o.log.warn('dashboard: cannot check a token with the API server', { err: errorMessage(err) });
      return sendHtml(res, 503, loginPage(`The API server could not check the token: ${errorMessage(err)}`));
    }
    if (verdict === 'invalid') return sendHtml(res, 401, loginPage('The API server did not accept this token.'));
    const user = tokenDisplayName(token);
    const id = sessions.create({ kind: 'token', user, token });
    o.log.info('dashboard: signed in', { user });
    redirect(res, '/', { 'set-cookie': sessionCookie(id, Math.floor((o.sessionTtlMs ?? 12 * 3600_000) / 1000)) });
  }

  function events(req: IncomingMessage, res: ServerResponse, who: Identity): void {
    res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': 'text/event-stream', connection: 'keep-alive' });
    res.write(': live\n\n');
    const ac = new AbortController();
    const stop = (): void => ac.abort();
    req.on('close', stop);
    streams.signal.addEventListener('abort', stop, { once: true });
    const heartbeat = setInterval(() => res.write(': ping\n\n'), HEARTBEAT_MS);
    ac.signal.addEventListener('abort', () => {
      clearInterval(heartbeat);
      streams.signal.removeEventListener('abort', stop);
      res.end();
    }, { once: true });
    startFleetStream({
      client: clients.forIdentity(who),
      user: who.user,
      clock: o.clock,
      signal: ac.signal,
      ...(o.debounceMs !== undefined ? { debounceMs: o.debounceMs } : {}),
      onState: (state) => void res.write(`event: state\ndata: ${JSON.stringify(state)}\n\n`),
    });
  }

  async function accept(req: IncomingMessage, res: ServerResponse, who: Identity, name: string): Promise<void> {
    if (!isSameOriginWrite({ origin: req.headers.origin, host: req.headers.host, contentType: req.headers['content-type'] })) {
      return sendStatus(res, statusFromCode(403, 'the dashboard only takes actions from its own page (a JSON request from its origin)'));
    }
    await readBody(req, MAX_FORM_BYTES);
    if (!isDns1123Subdomain(name)) return sendStatus(res, { ...statusFromCode(400, `"${name}" is not a valid cluster name`), reason: 'BadRequest' });
    const lines: string[] = [];
    try {
      const r = await acceptCluster({ client: clients.forIdentity(who), clock: o.clock, wait: false, timeoutMs: 30_000, say: (l) => lines.push(l) }, name);
      o.log.info('dashboard: accepted cluster', { user: who.user, cluster: name, approvedCsrs: r.approvedCsrs });
      const answer: AcceptAnswer = { ...r, lines };
      res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': 'application/json' });
      res.end(JSON.stringify(answer));
    } catch (err) {
      if (err instanceof ApiStatusError) return sendStatus(res, err.status.code ? err.status : statusFromCode(err.code, err.message));
      if (err instanceof AcceptError) return sendStatus(res, { ...statusFromCode(404, err.message), details: { name, group: 'cluster.open-cluster-management.io', kind: 'managedclusters' } });
      return sendStatus(res, statusFromCode(503, `the API server could not be reached: ${errorMessage(err)}`));
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    const path = new URL(req.url ?? '/', 'https://dashboard.invalid').pathname;
    const access = routeAccess(method, path);
    const who = identify({ cookie: req.headers.cookie, peer: acceptsCerts ? peerOf(req) : undefined }, sessions);
    if (access === 'public') {
      if (method === 'POST') return login(req, res);
      return who ? redirect(res, '/') : sendHtml(res, 200, loginPage());
    }
    if (!who) {
      if (access === 'page') return redirect(res, '/login');
      return sendStatus(res, statusFromCode(401, 'sign in first: a session cookie from the login page or a client certificate of the hub'));
    }
    if (access === 'page') return sendHtml(res, 200, appPage());
    if (method === 'GET' && path === '/app.js') {
      res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': 'text/javascript; charset=utf-8' });
      return void res.end(assets.js);
    }
    if (method === 'GET' && path === '/app.css') {
      res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': 'text/css; charset=utf-8' });
      return void res.end(assets.css);
    }
    if (method === 'GET' && path === '/api/whoami') {
      res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ user: who.user, kind: who.kind }));
    }
    if (method === 'GET' && path === '/api/events') return events(req, res, who);
    if (method === 'POST' && path === '/logout') {
      if (!isSameOriginWrite({ origin: req.headers.origin, host: req.headers.host, contentType: req.headers['content-type'] })) return sendStatus(res, statusFromCode(403, 'sign out from the dashboard\'s own page'));
      sessions.delete(parseCookies(req.headers.cookie).get(SESSION_COOKIE));
      res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': 'application/json', 'set-cookie': sessionCookie('', 0) });
      return void res.end('{}');
    }
    const m = /^\/api\/clusters\/([^/]+)\/accept$/.exec(path);
    if (m) {
      if (method !== 'POST') return sendStatus(res, { ...statusFromCode(405, `${method} is not allowed on ${path}: use POST`), reason: 'MethodNotAllowed' });
      return accept(req, res, who, decodeURIComponent(m[1]!));
    }
    sendStatus(res, statusFromCode(404, `${path} is not a page or API of the dashboard`));
  }

  const server: Server = createServer(
    {
      cert: pair.certPem,
      key: pair.keyPem,
      minVersion: 'TLSv1.2',
      ...(acceptsCerts ? { requestCert: true, rejectUnauthorized: false, ca: o.clientCaPem } : {}),
      headersTimeout: 10_000,
      keepAliveTimeout: 5_000,
    },
    (req, res) => {
      handle(req, res).catch((err: unknown) => {
        o.log.error('dashboard: request failed', { path: req.url, err: errorMessage(err) });
        if (!res.headersSent) sendStatus(res, statusFromCode(500, 'internal error'));
        else res.end();
      });
    },
  );
  server.on('tlsClientError', (err) => o.log.debug('dashboard: TLS handshake failed', { err: errorMessage(err) }));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.listen.port, o.listen.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const addr = server.address() as AddressInfo;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  const url = `https://${host}:${addr.port}`;
  o.log.info('dashboard: serving', { url, clientCertificates: acceptsCerts });
  return {
    url,
    caPem: pair.caPem,
    async close() {
      streams.abort();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      clients.close();
    },
  };
}
