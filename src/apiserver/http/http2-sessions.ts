// HTTP/2 connections of the API server, timed like HTTP/1.1 ones: Node closes an idle HTTP/1.1
// connection after the keep-alive timeout and a new one that sends no request after the header
// timeout, but an HTTP/2 session has no such clock (the server-wide timeout would also cut watches
// that are merely quiet). Here a session with no stream open is closed (GOAWAY) after the same
// timeouts, and on shutdown every session is told to go away while its streams finish.

import type { Http2SecureServer, ServerHttp2Session } from 'node:http2';
import type { Logger } from '../../util/logger.js';
import { setIoTimeout, type IoTimeout } from '../../util/io-timeout.js';

export interface SessionTimeouts {
  /** A new session must open its first stream within this many ms. */
  firstStreamMs: number;
  /** A session with no stream open is closed after this many ms. */
  idleMs: number;
}

export interface Http2Sessions {
  /** Sessions currently open. */
  size(): number;
  /** Sends GOAWAY on every session: no new streams, and each closes once its streams are done. */
  closeAll(): void;
}

export function trackHttp2Sessions(server: Http2SecureServer, timeouts: SessionTimeouts, log: Logger): Http2Sessions {
  const sessions = new Set<ServerHttp2Session>();
  server.on('session', (session: ServerHttp2Session) => {
    sessions.add(session);
    let open = 0;
    let timer: IoTimeout | undefined;
    // An I/O deadline: a stream that reached the socket while the server was stalled counts.
    const arm = (ms: number): void => {
      timer = setIoTimeout(() => {
        timer = undefined;
        if (open === 0 && !session.closed && !session.destroyed) session.close();
      }, ms);
    };
    arm(timeouts.firstStreamMs);
    session.on('stream', (stream) => {
      open++;
      timer?.clear();
      timer = undefined;
      stream.once('close', () => {
        if (--open === 0 && !session.closed && !session.destroyed) arm(timeouts.idleMs);
      });
    });
    session.once('close', () => {
      timer?.clear();
      sessions.delete(session);
    });
  });
  server.on('sessionError', (err: Error) => log.debug('http2 session failed', { err }));
  return {
    size: () => sessions.size,
    closeAll: () => {
      for (const s of sessions) if (!s.closed && !s.destroyed) s.close();
    },
  };
}
