// One HTTPS (or HTTP) transport per client: HTTP/2 when the server offers it (one session per
// loaded config, see ./http2-transport.ts), else a keep-alive agent; TLS material taken from the
// ConfigSource for each request (so a rotated certificate is used by the next new connection: the
// agent pools connections by TLS options), bearer tokens, timeouts and abort signals.
//
// The TLS context (CA, certificate and key, parsed and checked against each other) is built once
// per loaded config and handed to every connection: building it costs milliseconds of CPU, and a
// client opens a connection per watch, so doing it per connection dominated the agent's join. Clients
// of the same material share it (secure-contexts.ts).

import * as http from 'node:http';
import * as https from 'node:https';
import { isIP } from 'node:net';
import type { ConnectionOptions, SecureContext } from 'node:tls';
import type { OutgoingHttpHeaders } from 'node:http';
import type { ClientConfig, ConfigSource } from './kubeconfig.js';
import { ApiStatusError, NetworkError, statusFromCode } from './errors.js';
import { requestSignal, type RequestSignal } from './request-signal.js';
import type { Status } from '../api/meta.js';
import { errorMessage } from '../util/errors.js';
import { setIoTimeout, type IoTimeout } from '../util/io-timeout.js';
import { http1Response, type HttpResponse } from './http-response.js';
import { createHttp2Sessions, type Http2Options, type TlsTarget } from './http2-transport.js';
import { sharedSecureContext } from './secure-contexts.js';

export interface TransportOptions {
  source: ConfigSource;
  userAgent: string;
  /** Default timeout for non-streaming requests (0 = none). */
  timeoutMs: number;
  /** HTTP/2 health-check durations; false = HTTP/1.1 only. */
  http2?: Http2Options | false;
}

interface SendOptions {
  method: string;
  path: string;
  body?: string | undefined;
  contentType?: string | undefined;
  signal?: AbortSignal | undefined;
  /** Overrides the default timeout; 0 = none (watches). */
  timeoutMs?: number | undefined;
}

export interface Transport {
  readonly server: string;
  /** Sends a request and resolves with the response once headers arrive (the body is unread). */
  send(opts: SendOptions): Promise<HttpResponse>;
  /**
   * Opens the connection the next request will use (HTTPS servers speaking HTTP/2), so that its
   * handshake overlaps the caller's other work. Never fails: a connection that cannot be made is
   * left for that request to meet.
   */
  preconnect(): void;
  close(): void;
}

export function createTransport(opts: TransportOptions): Transport {
  const httpsAgent = new https.Agent({ keepAlive: true, maxSockets: Infinity, maxFreeSockets: 16, timeout: 60_000 });
  const httpAgent = new http.Agent({ keepAlive: true, maxSockets: Infinity, maxFreeSockets: 16, timeout: 60_000 });
  const h2 = opts.http2 === false ? undefined : createHttp2Sessions({ ...opts.http2, connectTimeoutMs: opts.timeoutMs > 0 ? opts.timeoutMs : 30_000 });
  // A reload gives a new config object, hence a new context.
  const contexts = new WeakMap<ClientConfig, SecureContext>();
  /**
   * Undefined when the material does not make a context (a key not matching its certificate in the
   * middle of a rotation): then TLS builds it per connection as before, so only new connections
   * fail and kept-alive ones go on.
   */
  const contextOf = (cfg: ClientConfig): SecureContext | undefined => {
    let c = contexts.get(cfg);
    if (c === undefined) {
      try {
        c = sharedSecureContext(cfg);
      } catch {
        return undefined;
      }
      contexts.set(cfg, c);
    }
    return c;
  };
  const tlsTarget = (cfg: ClientConfig, url: URL): TlsTarget => {
    const hostname = url.hostname.replace(/^\[|\]$/g, '');
    const context = contextOf(cfg);
    return {
      origin: url.origin,
      host: hostname,
      port: Number(url.port || 443),
      rejectUnauthorized: !cfg.insecureSkipTlsVerify,
      // As the https agent does: SNI names the host unless it is an address.
      ...(cfg.tlsServerName ? { servername: cfg.tlsServerName } : isIP(hostname) === 0 ? { servername: hostname } : {}),
      ...(context ? { secureContext: context } : { ca: cfg.caPem, cert: cfg.certPem, key: cfg.keyPem }),
    };
  };
  return {
    get server(): string {
      return opts.source.current().server;
    },
    preconnect(): void {
      if (!h2) return;
      try {
        const cfg = opts.source.current();
        const url = new URL(cfg.server);
        if (url.protocol === 'https:') h2.preconnect(cfg, tlsTarget(cfg, url));
      } catch {
        // an unreadable config or server URL: the next request reports it
      }
    },
    async send(s: SendOptions): Promise<HttpResponse> {
      const cfg = opts.source.current();
      const url = new URL(cfg.server + s.path);
      const headers: Record<string, string | string[]> = { 'User-Agent': opts.userAgent, Accept: 'application/json' };
      if (cfg.token) headers.Authorization = `Bearer ${cfg.token}`;
      if (cfg.impersonate) {
        headers['Impersonate-User'] = cfg.impersonate.user;
        if (cfg.impersonate.groups?.length) headers['Impersonate-Group'] = [...cfg.impersonate.groups];
      }
      if (s.body !== undefined) {
        headers['Content-Type'] = s.contentType ?? 'application/json';
        headers['Content-Length'] = String(Buffer.byteLength(s.body));
      }
      const timeoutMs = s.timeoutMs ?? opts.timeoutMs;
      const rs = requestSignal(s.signal, timeoutMs);
      const signal = rs.signal;
      const isHttps = url.protocol === 'https:';
      const reqOpts: https.RequestOptions & Pick<ConnectionOptions, 'secureContext'> = {
        method: s.method,
        hostname: url.hostname.replace(/^\[|\]$/g, ''),
        port: url.port || (isHttps ? 443 : 80),
        path: url.pathname + url.search,
        headers,
        agent: isHttps ? httpsAgent : httpAgent,
        ...(signal ? { signal } : {}),
      };
      if (isHttps) {
        if (cfg.caPem) reqOpts.ca = cfg.caPem;
        if (cfg.certPem) reqOpts.cert = cfg.certPem;
        if (cfg.keyPem) reqOpts.key = cfg.keyPem;
        if (cfg.tlsServerName) reqOpts.servername = cfg.tlsServerName;
        reqOpts.rejectUnauthorized = !cfg.insecureSkipTlsVerify;
      }
      // Streams have no overall timeout, but their response headers must still arrive in time.
      const headersTimeoutMs = timeoutMs > 0 ? 0 : opts.timeoutMs;
      if (isHttps && h2) {
        let res: HttpResponse | 'http/1.1';
        try {
          res = await h2.send(cfg, tlsTarget(cfg, url), { headers: http2Headers(s.method, url, headers), body: s.body, signal, headersTimeoutMs });
        } catch (err) {
          rs.release();
          throw s.signal?.aborted ? (s.signal.reason ?? err) : new NetworkError(`${s.method} ${s.path}: ${errorMessage(err)}`, { cause: err });
        }
        if (res !== 'http/1.1') return releasedWhenDone(res, rs);
      }
      return new Promise<HttpResponse>((resolvePromise, reject) => {
        let req: http.ClientRequest;
        let headersTimer: IoTimeout | undefined;
        try {
          if (isHttps) {
            // ca/cert/key above still name the agent's connection pool; the context is what TLS uses.
            const context = contextOf(cfg);
            if (context) reqOpts.secureContext = context;
          }
          req = (isHttps ? https : http).request(reqOpts, (res) => {
            headersTimer?.clear();
            resolvePromise(releasedWhenDone(http1Response(res, req.reusedSocket), rs));
          });
          if (headersTimeoutMs > 0) headersTimer = setIoTimeout(() => req.destroy(new Error(`no response headers within ${headersTimeoutMs} ms`)), headersTimeoutMs);
        } catch (err) {
          rs.release();
          reject(new NetworkError(`${s.method} ${s.path}: ${errorMessage(err)}`, { cause: err }));
          return;
        }
        req.on('error', (err) => {
          headersTimer?.clear();
          rs.release();
          if (s.signal?.aborted) reject(s.signal.reason ?? err);
          else reject(new NetworkError(`${s.method} ${s.path}: ${err.message}`, { cause: err }));
        });
        req.end(s.body);
      });
    },
    close(): void {
      h2?.close();
      httpsAgent.destroy();
      httpAgent.destroy();
    },
  };
}

/**
 * The response, releasing the request's signal once its body has been read to the end, failed or
 * been given up (the REST client always does one of these).
 */
function releasedWhenDone(res: HttpResponse, rs: RequestSignal): HttpResponse {
  return {
    get statusCode() {
      return res.statusCode;
    },
    get headers() {
      return res.headers;
    },
    get reusedConnection() {
      return res.reusedConnection;
    },
    get complete() {
      return res.complete;
    },
    destroy(err) {
      rs.release();
      res.destroy(err);
    },
    async *[Symbol.asyncIterator]() {
      try {
        yield* res;
      } catch (err) {
        // A body cut by the request's deadline fails as a bare abort ('aborted' over HTTP/1.1):
        // the deadline says what happened.
        const reason: unknown = rs.signal?.aborted ? rs.signal.reason : undefined;
        throw reason instanceof Error && reason.name === 'TimeoutError' ? reason : err;
      } finally {
        rs.release();
      }
    },
  };
}

/** HTTP/2 request headers: pseudo-headers first, names in lower case as the protocol requires. */
function http2Headers(method: string, url: URL, headers: Record<string, string | string[]>): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = { ':method': method, ':path': url.pathname + url.search };
  for (const [k, v] of Object.entries(headers)) out[k.toLowerCase()] = v;
  return out;
}

/** Reads a whole response body as text. */
export async function readBody(res: HttpResponse, what: string): Promise<string> {
  const chunks: Buffer[] = [];
  try {
    for await (const c of res) chunks.push(c);
  } catch (err) {
    throw new NetworkError(`${what}: reading the response failed: ${errorMessage(err)}`, { cause: err });
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The error for a non-2xx answer whose body has been read. */
export function statusErrorFrom(res: HttpResponse, text: string): ApiStatusError {
  const code = res.statusCode;
  let status: Status | undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && (parsed as { kind?: unknown }).kind === 'Status') {
      const p = parsed as Status;
      status = { ...p, code: typeof p.code === 'number' && p.code > 0 ? p.code : code };
    }
  } catch {
    // not JSON: synthesised below
  }
  status ??= statusFromCode(code, text.trim().slice(0, 512));
  const raNum = retryAfterSecondsOf(res);
  return new ApiStatusError(status, raNum !== undefined ? { retryAfterSeconds: raNum } : {});
}

/** The Retry-After header in whole seconds (its HTTP-date form is not used by Kubernetes servers). */
export function retryAfterSecondsOf(res: HttpResponse): number | undefined {
  const ra = res.headers['retry-after'];
  return typeof ra === 'string' && /^\d+$/.test(ra.trim()) ? Number(ra.trim()) : undefined;
}
