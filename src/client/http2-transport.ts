// HTTP/2 for the REST client: one session per (server origin, loaded config), i.e. per identity,
// so every request and watch of a client shares one TLS connection, as client-go does (a further
// one only while the others are at the server's concurrent-stream limit, so that long watches never
// hold requests in a queue).
//
// The first request for a config opens a TLS connection offering h2 then http/1.1. When the server
// picks h2 the socket becomes the session; otherwise the answer is remembered for that config and
// the caller uses its HTTP/1.1 path (servers without h2 behave exactly as before).
//
// Lifecycle: a session that errs, closes or receives GOAWAY is forgotten, so the next request
// reconnects; its in-flight streams fail. A session from an older config (a rotated certificate)
// is closed gracefully once the new config's session is up: it ends when its last stream does.
// A session read from for no `readIdleMs` is pinged and destroyed when the answer takes longer than
// `pingTimeoutMs`, so a hub that vanished without a TCP reset is noticed. A session without active
// streams is unreferenced, like the keep-alive agent's idle sockets: it never keeps a process alive.

import * as http2 from 'node:http2';
import * as tls from 'node:tls';
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import type { ClientConfig } from './kubeconfig.js';
import type { HttpResponse } from './http-response.js';
import { setIoTimeout, type IoTimeout } from '../util/io-timeout.js';

export interface Http2Options {
  /** Ping a session after this long without reading from it (client-go's ReadIdleTimeout; default 30 s). */
  readIdleMs?: number;
  /** Destroy a session whose ping is not answered within this (client-go's PingTimeout; default 15 s). */
  pingTimeoutMs?: number;
}

/** Where and how to open the TLS connection for one config. */
export interface TlsTarget {
  /** `https://host:port`, the session's authority. */
  origin: string;
  host: string;
  port: number;
  servername?: string;
  secureContext?: tls.SecureContext;
  ca?: string;
  cert?: string;
  key?: string;
  rejectUnauthorized: boolean;
}

interface StreamRequest {
  /** Lower-case names, pseudo-headers included. */
  headers: OutgoingHttpHeaders;
  body?: string | undefined;
  signal?: AbortSignal | undefined;
  /** Fails the request when no response headers arrive in time (0 = no limit); connecting counts. */
  headersTimeoutMs: number;
  /** How many times the server refused this request's stream so far (after its settings had arrived). */
  refusals?: number;
  /** How many times a stream sent before the server's settings was refused. */
  blindRefusals?: number;
}

export interface Http2Sessions {
  /** Sends over the config's session; `'http/1.1'` when the server does not speak h2 (nothing was sent). */
  send(cfg: ClientConfig, target: TlsTarget, req: StreamRequest): Promise<HttpResponse | 'http/1.1'>;
  /** Opens a session for the config unless one is open or opening; a failure is left for the next request. */
  preconnect(cfg: ClientConfig, target: TlsTarget): void;
  /** Number of sessions open or closing (for tests and traces). */
  readonly sessionCount: number;
  /** Destroys every session; later requests open new ones. */
  close(): void;
}

/** One session and what its health check and reference counting need. */
class Conn {
  active = 0;
  lastRead = Date.now();
  /** Whether the server's settings (its stream limit) have arrived; until then the session reports defaults. */
  settingsKnown = false;
  constructor(
    readonly session: http2.ClientHttp2Session,
    readonly cfg: ClientConfig,
  ) {
    session.once('remoteSettings', () => (this.settingsKnown = true));
  }
  get usable(): boolean {
    return !this.session.closed && !this.session.destroyed;
  }
  /**
   * Whether one more stream fits under the server's limit (else it would queue behind long watches);
   * 100 until the server's settings say.
   */
  get hasRoom(): boolean {
    const limit = this.settingsKnown ? this.session.remoteSettings.maxConcurrentStreams : undefined;
    return this.active < (limit ?? 100);
  }
  touch(): void {
    this.lastRead = Date.now();
  }
  streamOpened(): void {
    if (this.active++ === 0) this.session.ref();
  }
  /** Called when the last active stream has closed. */
  onIdle: () => void = () => {};
  streamClosed(): void {
    if (--this.active === 0 && !this.session.destroyed) {
      this.session.unref();
      this.onIdle();
    }
  }
}

/** What is known of one origin for one config: its protocol once probed, its sessions, a connection under way. */
interface Origin {
  http1: boolean;
  conns: Conn[];
  connecting: Promise<Conn | 'http/1.1'> | undefined;
}

export function createHttp2Sessions(opts: Http2Options & { connectTimeoutMs: number }): Http2Sessions {
  const readIdleMs = opts.readIdleMs ?? 30_000;
  const pingTimeoutMs = opts.pingTimeoutMs ?? 15_000;
  // A reload gives a new config object, hence a new session (and a new protocol probe).
  let origins = new WeakMap<ClientConfig, Map<string, Origin>>();
  const live = new Set<Conn>();
  let generation = 0;

  const originOf = (cfg: ClientConfig, origin: string): Origin => {
    let m = origins.get(cfg);
    if (m === undefined) {
      m = new Map();
      origins.set(cfg, m);
    }
    let o = m.get(origin);
    if (o === undefined) {
      o = { http1: false, conns: [], connecting: undefined };
      m.set(origin, o);
    }
    return o;
  };

  /** Closes, once their streams end, the sessions of configs older than the one that just connected. */
  const retireOthers = (cfg: ClientConfig): void => {
    for (const c of live) if (c.cfg !== cfg && !c.session.closed) c.session.close();
  };

  const watchHealth = (conn: Conn): void => {
    let timer: NodeJS.Timeout | undefined;
    const arm = (ms: number): void => {
      timer = setTimeout(check, ms);
      timer.unref();
    };
    const check = (): void => {
      if (!conn.usable) return;
      const idle = Date.now() - conn.lastRead;
      if (idle < readIdleMs) return arm(readIdleMs - idle);
      // An I/O deadline: a ping answered while this process was stalled does not count as unanswered.
      const deadline = setIoTimeout(() => conn.session.destroy(new Error(`HTTP/2 ping not answered within ${pingTimeoutMs} ms`)), pingTimeoutMs);
      let sent = false;
      try {
        sent = conn.session.ping((err) => {
          deadline.clear();
          if (err) {
            if (!conn.session.destroyed) conn.session.destroy(err);
            return;
          }
          conn.touch();
          arm(readIdleMs);
        });
      } catch {
        // the session closed meanwhile: its 'close' handler cleans up
      }
      if (!sent) {
        deadline.clear();
        if (conn.usable) arm(readIdleMs);
      }
    };
    arm(readIdleMs);
    conn.session.once('close', () => clearTimeout(timer));
  };

  const openSession = (cfg: ClientConfig, origin: Origin, authority: string, socket: tls.TLSSocket): Conn => {
    const session = http2.connect(authority, { createConnection: () => socket });
    const conn = new Conn(session, cfg);
    live.add(conn);
    const forget = (): void => {
      origin.conns = origin.conns.filter((c) => c !== conn);
    };
    // Streams see the session's error themselves; without a listener it would crash the process.
    session.on('error', forget);
    session.once('goaway', forget);
    session.once('close', () => {
      forget();
      live.delete(conn);
    });
    // A session opened because the others were full goes once idle while another has room.
    conn.onIdle = () => {
      if (origin.conns.some((c) => c !== conn && c.usable && c.hasRoom)) {
        forget();
        session.close();
      }
    };
    watchHealth(conn);
    return conn;
  };

  const connect = async (cfg: ClientConfig, origin: Origin, target: TlsTarget): Promise<Conn | 'http/1.1'> => {
    const gen = generation;
    const socket = await negotiate(target, opts.connectTimeoutMs);
    if (socket.alpnProtocol !== 'h2') {
      socket.destroy();
      origin.http1 = true;
      return 'http/1.1';
    }
    // The first session of an origin sends its requests at once, before the server's SETTINGS
    // arrive (HTTP/2 allows it, and waiting cost a round trip on every first connection): until they
    // do it has room for 100 streams, the least a server should allow; a server with a lower limit
    // refuses the excess unprocessed, and it is sent again. A further session is opened because the
    // others are full, so the server's limit matters there: it waits for the settings.
    const conn = openSession(cfg, origin, target.origin, socket);
    if (origin.conns.some((c) => c.usable)) await settled(conn);
    if (gen !== generation) {
      conn.session.destroy();
      throw new Error('the client was closed');
    }
    origin.conns.push(conn);
    retireOthers(cfg);
    // Referenced while it connects (the caller waits for it); from now on only while streams are active.
    if (conn.active === 0) conn.session.unref();
    return conn;
  };

  /**
   * A session with room for one more stream: an existing one, else a new connection (one at a
   * time per origin; its waiters share it). More than one session exists only while every other
   * is full, as Go's HTTP/2 transport does.
   */
  const acquire = async (cfg: ClientConfig, target: TlsTarget): Promise<{ conn: Conn; reused: boolean } | 'http/1.1'> => {
    const origin = originOf(cfg, target.origin);
    for (;;) {
      if (origin.http1) return 'http/1.1';
      const open = origin.conns.find((c) => c.usable && c.hasRoom);
      if (open) return { conn: open, reused: true };
      if (origin.connecting === undefined) {
        const p = connect(cfg, origin, target);
        origin.connecting = p;
        const clear = (): void => {
          if (origin.connecting === p) origin.connecting = undefined;
        };
        p.then(clear, clear);
      }
      const r = await origin.connecting;
      if (r === 'http/1.1') return r;
      if (!r.usable) throw new Error('the HTTP/2 session closed as soon as it opened');
      if (r.hasRoom) return { conn: r, reused: false };
    }
  };

  return {
    async send(cfg, target, req) {
      const started = Date.now();
      let got = await bounded(acquire(cfg, target), req.signal, req.headersTimeoutMs);
      // Requests sent meanwhile may have filled the session: look again (the check and the stream's count are synchronous).
      while (got !== 'http/1.1' && !(got.conn.usable && got.conn.hasRoom)) got = await bounded(acquire(cfg, target), req.signal, req.headersTimeoutMs);
      if (got === 'http/1.1') return got;
      const left = req.headersTimeoutMs > 0 ? Math.max(1, req.headersTimeoutMs - (Date.now() - started)) : 0;
      try {
        return await request(got.conn, got.reused, { ...req, headersTimeoutMs: left });
      } catch (err) {
        // The server did not process a refused stream: sending it again is safe whatever the method.
        // One sent before the server's limit was known (a burst on a first session) was not the
        // client's doing: those are counted apart.
        if (!(err instanceof RefusedStreamError) || req.signal?.aborted) throw err;
        const refusals = (req.refusals ?? 0) + (err.beforeSettings ? 0 : 1);
        const blindRefusals = (req.blindRefusals ?? 0) + (err.beforeSettings ? 1 : 0);
        if (refusals > 3 || blindRefusals > MAX_BLIND_REFUSALS) throw err;
        return this.send(cfg, target, { ...req, refusals, blindRefusals });
      }
    },
    preconnect(cfg, target) {
      acquire(cfg, target).catch(() => undefined);
    },
    get sessionCount() {
      return live.size;
    },
    close() {
      generation++;
      origins = new WeakMap();
      for (const c of live) c.session.destroy();
    },
  };
}

/** Refusals of streams sent before the server's settings arrived, per request, before it fails. */
const MAX_BLIND_REFUSALS = 3;

/** The server refused a stream before processing it (over its stream limit, or going away). */
class RefusedStreamError extends Error {
  constructor(
    cause: Error,
    /** The stream was opened before the server's settings (its stream limit) had arrived. */
    readonly beforeSettings: boolean,
  ) {
    super(cause.message, { cause });
    this.name = 'RefusedStreamError';
  }
}

/** Resolves once the server's first SETTINGS arrived (at once when they have). */
function settled(conn: Conn): Promise<Conn> {
  if (conn.settingsKnown) return Promise.resolve(conn);
  return new Promise((resolve, reject) => {
    const onSettings = (): void => {
      conn.session.off('close', onClose);
      resolve(conn);
    };
    const onClose = (): void => {
      conn.session.off('remoteSettings', onSettings);
      reject(new Error('the HTTP/2 session closed before the server sent its settings'));
    };
    conn.session.once('remoteSettings', onSettings);
    conn.session.once('close', onClose);
  });
}

/** TLS connection offering h2 then http/1.1; resolves once the handshake is done. */
function negotiate(t: TlsTarget, timeoutMs: number): Promise<tls.TLSSocket> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({
      host: t.host,
      port: t.port,
      ALPNProtocols: ['h2', 'http/1.1'],
      rejectUnauthorized: t.rejectUnauthorized,
      ...(t.servername !== undefined ? { servername: t.servername } : {}),
      ...(t.secureContext ? { secureContext: t.secureContext } : {}),
      ...(t.ca !== undefined ? { ca: t.ca } : {}),
      ...(t.cert !== undefined ? { cert: t.cert } : {}),
      ...(t.key !== undefined ? { key: t.key } : {}),
    });
    let deadline: IoTimeout | undefined;
    const fail = (err: Error): void => {
      deadline?.clear();
      socket.destroy();
      reject(err);
    };
    if (timeoutMs > 0) deadline = setIoTimeout(() => fail(new Error(`TLS handshake not done within ${timeoutMs} ms`)), timeoutMs);
    socket.once('error', fail);
    socket.once('secureConnect', () => {
      deadline?.clear();
      socket.off('error', fail);
      resolve(socket);
    });
  });
}

/** Opens one stream and resolves with its response once the headers arrive. */
function request(conn: Conn, reused: boolean, req: StreamRequest): Promise<HttpResponse> {
  return new Promise<HttpResponse>((resolve, reject) => {
    const beforeSettings = !conn.settingsKnown;
    let answered = false;
    let stream: http2.ClientHttp2Stream;
    try {
      stream = conn.session.request(req.headers, { endStream: req.body === undefined, ...(req.signal ? { signal: req.signal } : {}) });
    } catch (err) {
      reject(err);
      return;
    }
    conn.streamOpened();
    stream.once('close', () => conn.streamClosed());
    const timer = req.headersTimeoutMs > 0 ? setIoTimeout(() => stream.destroy(new Error(`no response headers within ${req.headersTimeoutMs} ms`)), req.headersTimeoutMs) : undefined;
    const onError = (err: Error): void => {
      timer?.clear();
      reject(stream.rstCode === http2.constants.NGHTTP2_REFUSED_STREAM ? new RefusedStreamError(err, beforeSettings) : err);
    };
    stream.once('error', onError);
    // A stream reset without an error (e.g. REFUSED_STREAM after GOAWAY) must not leave the caller waiting.
    stream.once('close', () => {
      timer?.clear();
      // Every stream closes, most after their response: an Error (and its stack) only when none came.
      if (answered) return;
      const err = new Error(`HTTP/2 stream closed before a response (code ${stream.rstCode})`);
      reject(stream.rstCode === http2.constants.NGHTTP2_REFUSED_STREAM ? new RefusedStreamError(err, beforeSettings) : err);
    });
    stream.once('response', (headers) => {
      answered = true;
      timer?.clear();
      stream.off('error', onError);
      // Later errors reach the body's reader; this keeps them from being unhandled meanwhile.
      stream.on('error', () => {});
      conn.touch();
      resolve(http2Response(stream, headers, reused, conn));
    });
    if (req.body !== undefined) stream.end(req.body);
  });
}

function http2Response(stream: http2.ClientHttp2Stream, raw: IncomingHttpHeaders & http2.IncomingHttpStatusHeader, reused: boolean, conn: Conn): HttpResponse {
  let complete = false;
  stream.once('end', () => {
    complete = true;
    conn.touch();
  });
  const headers: IncomingHttpHeaders = {};
  for (const [k, v] of Object.entries(raw)) if (!k.startsWith(':')) headers[k] = v as string | string[] | undefined;
  return {
    statusCode: Number(raw[':status'] ?? 0),
    headers,
    reusedConnection: reused,
    get complete() {
      return complete;
    },
    destroy: (err) => {
      stream.destroy(err);
    },
    async *[Symbol.asyncIterator]() {
      for await (const chunk of stream) {
        conn.touch();
        yield chunk as Buffer;
      }
    },
  };
}

/** Waits for `p` unless the signal aborts or `timeoutMs` (0 = none) passes first. */
function bounded<T>(p: Promise<T>, signal: AbortSignal | undefined, timeoutMs: number): Promise<T> {
  if (!signal && timeoutMs <= 0) return p;
  return new Promise<T>((resolve, reject) => {
    let timer: IoTimeout | undefined;
    const onAbort = (): void => done(() => reject(signal?.reason ?? new Error('aborted')));
    const done = (f: () => void): void => {
      timer?.clear();
      signal?.removeEventListener('abort', onAbort);
      f();
    };
    // Attached first: a connection given up on still settles, and must not reject unhandled.
    p.then(
      (v) => done(() => resolve(v)),
      (err: unknown) => done(() => reject(err)),
    );
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    if (timeoutMs > 0) timer = setIoTimeout(() => done(() => reject(new Error(`no response headers within ${timeoutMs} ms`))), timeoutMs);
  });
}
