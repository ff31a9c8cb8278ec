// Wires connection admission (connection-limits.ts) and transport-level refusals (client-error.ts)
// into the HTTPS server's socket events, for HTTP/1.1 and HTTP/2 connections alike: admission is
// per TCP connection whichever protocol it then speaks, and every HTTP/2 stream counts as one
// request in flight on its connection.
//
// Admission happens on the raw TCP connection, before any TLS work, so a flood costs one accept
// and one close per connection. Each connection is then followed through its TLS handshake and its
// requests, so that the table knows which ones have proven themselves.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Http2SecureServer } from 'node:http2';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { Logger } from '../../util/logger.js';
import { rejectionFor, rejectionResponse } from './client-error.js';
import { ConnectionTable, type ConnectionLimits } from './connection-limits.js';
import { peerChainOf } from './peer-certificate.js';

/** How long a refused request's connection stays half-closed so the client can read the answer. */
const REJECTION_LINGER_MS = 500;
/** At most one "connection limit reached" line per this many ms. */
const LIMIT_LOG_INTERVAL_MS = 10_000;

interface Connection {
  /** The raw TCP socket until the handshake completes, then the TLS socket. */
  socket: Socket;
}

const kConnection = Symbol('ocm-ts.connection');
type Tagged = Socket & { [kConnection]?: Connection };

export interface ConnectionGuard {
  /** Connections currently held. */
  size(): number;
  /** Closes every connection at once (the end of a shutdown's grace period). */
  destroyAll(): void;
}

export interface ConnectionGuardOptions {
  limits: Readonly<ConnectionLimits>;
  log: Logger;
  now?: () => number;
}

export function guardConnections(server: Http2SecureServer, opts: ConnectionGuardOptions): ConnectionGuard {
  const { limits, log } = opts;
  const now = opts.now ?? Date.now;
  const table = new ConnectionTable<Connection>(limits);
  // TLS sockets are matched to their TCP connection by the peer's address and port.
  const handshaking = new Map<string, Connection>();
  const open = new Set<Connection>();
  let refused = 0;
  let displaced = 0;
  let lastLimitLog = Number.NEGATIVE_INFINITY;

  const noteLimit = (): void => {
    const t = now();
    if (t - lastLimitLog < LIMIT_LOG_INTERVAL_MS) return;
    lastLimitLog = t;
    log.warn('connection limit reached: refusing or displacing connections', {
      refused, displaced, connections: table.size,
      maxConnections: limits.maxConnections, maxConnectionsPerAddress: limits.maxConnectionsPerAddress,
    });
    refused = 0;
    displaced = 0;
  };

  server.prependListener('connection', (raw: Socket) => {
    const address = raw.remoteAddress ?? 'unknown';
    const conn: Connection = { socket: raw };
    const verdict = table.open(conn, address);
    if (!verdict.admitted) {
      refused++;
      noteLimit();
      log.debug('connection refused', { address, limit: verdict.limit });
      raw.destroy();
      return;
    }
    if (verdict.displaced) {
      displaced++;
      noteLimit();
      verdict.displaced.socket.destroy();
    }
    const key = `${address}|${raw.remotePort ?? ''}`;
    handshaking.set(key, conn);
    open.add(conn);
    raw.once('close', () => {
      table.closed(conn);
      open.delete(conn);
      if (handshaking.get(key) === conn) handshaking.delete(key);
    });
  });

  server.prependListener('secureConnection', (tls: TLSSocket) => {
    peerChainOf(tls);
    const key = `${tls.remoteAddress ?? 'unknown'}|${tls.remotePort ?? ''}`;
    const conn = handshaking.get(key);
    if (!conn) return;
    handshaking.delete(key);
    conn.socket = tls;
    (tls as Tagged)[kConnection] = conn;
    table.secured(conn, tls.authorized === true);
    tls.once('close', () => table.closed(conn));
  });

  // Over HTTP/2, req.socket is a proxy that reads the tag from the connection's TLS socket.
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    const conn = (req.socket as Tagged)[kConnection];
    if (!conn) return;
    table.requestStarted(conn);
    res.once('close', () => table.requestFinished(conn));
  });

  server.on('clientError', (err: Error & { code?: string }, socket: Socket) => {
    const rejection = rejectionFor(err, limits);
    const conn = (socket as Tagged)[kConnection];
    if (!rejection || !socket.writable || (conn && table.busy(conn))) {
      socket.destroy();
      return;
    }
    log.debug('request refused by the HTTP parser', { code: rejection.code, err });
    socket.end(rejectionResponse(rejection));
    setTimeout(() => socket.destroy(), REJECTION_LINGER_MS).unref();
  });

  return {
    size: () => table.size,
    destroyAll: () => {
      for (const c of open) c.socket.destroy();
    },
  };
}
