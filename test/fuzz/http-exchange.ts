// Sending one generated request and collecting the answer, with deadlines: over node:https as an
// identity (`sendRequest`), or as raw bytes over TLS for malformed HTTP (`sendRaw`). Never throws:
// transport failures come back as `error`, a missing answer as `timedOut`.

import { request } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:tls';
import type { Identity } from './identities.js';

export interface FuzzRequest {
  method: string;
  /** Path as sent (already percent-encoded). */
  path: string;
  /** Query string as sent, without `?` ('' for none). */
  query: string;
  headers: Record<string, string>;
  body?: Buffer;
}

export interface FuzzResponse {
  /** Undefined when no response arrived. */
  status?: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The body was read for a short while only (a watch stream), then the connection was dropped. */
  truncated: boolean;
  /** Transport failure before a complete response (reset, TLS alert, ...). */
  error?: string;
  timedOut: boolean;
  /** Node's HTTP client refused to send the request (invalid header value, ...): nothing reached the server. */
  notSent?: string;
}

export interface ExchangeLimits {
  /** A complete response must arrive within this time. */
  deadlineMs: number;
  /** For a successful streaming answer (watch): read this long, then hang up. */
  streamPeekMs?: number;
}

const MAX_KEPT_BYTES = 64 * 1024 * 1024;

export function sendRequest(target: { host: string; port: number }, id: Identity, req: FuzzRequest, limits: ExchangeLimits): Promise<FuzzResponse> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let kept = 0;
    let settled = false;
    let status: number | undefined;
    let headers: IncomingHttpHeaders = {};
    const finish = (extra: Partial<FuzzResponse>): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(peek);
      resolve({ status, headers, body: Buffer.concat(chunks), truncated: false, timedOut: false, ...extra });
    };
    let peek: NodeJS.Timeout | undefined;
    const timer = setTimeout(() => {
      finish({ timedOut: true });
      creq?.destroy();
    }, limits.deadlineMs);
    const hdrs: Record<string, string> = { ...id.headers, ...req.headers };
    if (req.body !== undefined) hdrs['content-length'] = String(req.body.length);
    let creq: ReturnType<typeof request> | undefined;
    try {
      creq = request({
        host: target.host, port: target.port, method: req.method, agent: id.agent, headers: hdrs,
        path: req.query ? `${req.path}?${req.query}` : req.path,
        // Headers above the server's limit are part of the fuzzing.
        maxHeaderSize: 1024 * 1024,
      }, (res) => {
        status = res.statusCode;
        headers = res.headers;
        // A watch answers 200 with a body of unknown length that never ends by itself: after the
        // peek, a body still empty or made of watch events is a stream; anything else (a list being
        // streamed) is read to its end.
        const peekFor = (ms: number): void => {
          peek = setTimeout(() => {
            const sofar = Buffer.concat(chunks).subarray(0, 9).toString('latin1');
            if (sofar === '' || sofar.startsWith('{"type":')) {
              finish({ truncated: true });
              res.destroy();
            }
          }, ms);
        };
        if (limits.streamPeekMs !== undefined && status === 200 && res.headers['content-length'] === undefined) peekFor(limits.streamPeekMs);
        res.on('data', (c: Buffer) => {
          if (kept < MAX_KEPT_BYTES) chunks.push(c);
          kept += c.length;
        });
        res.on('end', () => finish({}));
        res.on('error', (e) => finish({ error: `${(e as NodeJS.ErrnoException).code ?? ''} ${e.message}`.trim() }));
        res.on('close', () => finish(res.complete ? {} : { error: 'connection closed before the response was complete' }));
      });
    } catch (e) {
      finish({ notSent: e instanceof Error ? e.message : String(e) });
      return;
    }
    creq.on('error', (e) => finish({ error: `${(e as NodeJS.ErrnoException).code ?? ''} ${e.message}`.trim() }));
    creq.end(req.body);
  });
}

export interface RawResponse {
  /** Everything the server sent before closing, finishing one response, or the deadline. */
  bytes: Buffer;
  /** Parsed first response, when complete. */
  status?: number;
  headers: Record<string, string>;
  body: Buffer;
  closed: boolean;
  timedOut: boolean;
  error?: string;
}

/** Parses the first HTTP/1.x response in `buf`; undefined while incomplete. */
export function parseFirstResponse(buf: Buffer, closed: boolean): { status: number; headers: Record<string, string>; body: Buffer } | undefined {
  const end = buf.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const head = buf.subarray(0, end).toString('latin1').split('\r\n');
  const m = /^HTTP\/\d\.\d (\d{3})/.exec(head[0] ?? '');
  if (!m) return undefined;
  const headers: Record<string, string> = {};
  for (const line of head.slice(1)) {
    const i = line.indexOf(':');
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  const rest = buf.subarray(end + 4);
  const status = Number(m[1]);
  if (headers['content-length'] !== undefined) {
    const n = Number(headers['content-length']);
    if (rest.length < n) return undefined;
    return { status, headers, body: rest.subarray(0, n) };
  }
  if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
    const parts: Buffer[] = [];
    let i = 0;
    for (;;) {
      const eol = rest.indexOf('\r\n', i);
      if (eol < 0) return undefined;
      const size = parseInt(rest.subarray(i, eol).toString('latin1'), 16);
      if (!Number.isFinite(size)) return undefined;
      if (size === 0) return { status, headers, body: Buffer.concat(parts) };
      if (rest.length < eol + 2 + size + 2) return undefined;
      parts.push(rest.subarray(eol + 2, eol + 2 + size));
      i = eol + 2 + size + 2;
    }
  }
  if (status === 204 || status === 304 || (status >= 100 && status < 200)) return { status, headers, body: Buffer.alloc(0) };
  return closed ? { status, headers, body: rest } : undefined;
}

/** Writes `bytes` on a fresh TLS connection as `id` and reads the first response. */
export function sendRaw(target: { host: string; port: number }, id: Identity, bytes: Buffer, deadlineMs: number): Promise<RawResponse> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let settled = false;
    const socket = connect({ host: target.host, port: target.port, ...id.tls, servername: 'localhost' });
    const finish = (extra: { closed?: boolean; timedOut?: boolean; error?: string }): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      const buf = Buffer.concat(chunks);
      const parsed = parseFirstResponse(buf, extra.closed ?? false);
      resolve({ bytes: buf, headers: parsed?.headers ?? {}, body: parsed?.body ?? Buffer.alloc(0), closed: false, timedOut: false, ...(parsed ? { status: parsed.status } : {}), ...extra });
    };
    const timer = setTimeout(() => finish({ timedOut: true }), deadlineMs);
    socket.on('secureConnect', () => socket.write(bytes));
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      if (parseFirstResponse(Buffer.concat(chunks), false)) finish({});
    });
    socket.on('end', () => finish({ closed: true }));
    socket.on('close', () => finish({ closed: true }));
    socket.on('error', (e) => finish({ closed: true, error: `${(e as NodeJS.ErrnoException).code ?? ''} ${e.message}`.trim() }));
  });
}
