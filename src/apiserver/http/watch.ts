// WATCH: initial events, resume from a revision, selector transitions, bookmarks, timeouts,
// ERROR-then-close, newline-delimited JSON with headers flushed at once.
//
// Fan-out cost per event and watcher is kept to one socket write of a Buffer shared by every
// watcher of the same representation: the encoder caches each event's line already framed as an
// HTTP/1.1 chunk, and on a chunked response the frame goes straight to the socket (after the
// headers, which flushHeaders() has written; res.end() later writes the terminating chunk), which
// skips OutgoingMessage's per-write framing, its cork and next-tick uncork, and a three-buffer
// writev per event. Over HTTP/2 the connection is shared with other streams, so the line goes
// through the response's stream, which frames it as DATA. Backpressure: when the socket's (or
// stream's) buffer is full the store's next event waits for 'drain'; beyond maxBufferedBytes the
// watcher is dropped, and the store drops a watcher that falls too far behind.
// Durability: the store publishes events only once durable (group commit); the initial ADDED
// events of a watch without resourceVersion likewise wait until the listed revision is durable.

import type { ServerResponse } from 'node:http';
import type { KubeObject, WatchEventType } from '../../api/meta.js';
import type { Logger } from '../../util/logger.js';
import { StoreCompactedError, type SelectorHints, type Store, type StoreEvent, type WatchSubscription } from '../storage/types.js';
import { errors, type ApiError } from './errors.js';
import { abandonResponse, isHttp2 } from './http-version.js';
import { toApiError } from './respond.js';

const MAX_TIMER_MS = 2 ** 31 - 1;

/** One encoded event: the line (newline included) and the same bytes framed as an HTTP/1.1 chunk. */
export interface EncodedLine {
  line: Buffer;
  chunk: Buffer;
}

export interface WatchEncoder {
  /** Encodes one event line. `first` = first event of this stream. Results may be shared: read-only. */
  line(type: WatchEventType, obj: KubeObject, first: boolean): EncodedLine;
  /** The BOOKMARK object for a revision. */
  bookmark(revision: number): KubeObject;
}

export interface WatchRequest {
  store: Store;
  prefix: string;
  filter: (obj: KubeObject) => boolean;
  /** What `filter` pins down, for the store's fan-out and initial list. */
  hints?: SelectorHints;
  resourceVersion: number | undefined;
  allowBookmarks: boolean;
  timeoutMs: number;
  bookmarkIntervalMs: number;
  futureWaitMs: number;
  encoder: WatchEncoder;
  log: Logger;
  /** Bytes buffered on the socket above which the watcher is dropped as slow. */
  maxBufferedBytes: number;
  /** Called when the stream ends (any reason), for the server's bookkeeping. */
  onEnd(reason: string, events: number): void;
}

export interface ActiveWatch {
  /** End the stream now (server shutdown). */
  close(): void;
}

/** The Status a watch ends with when starting it fails: a compacted revision is a 410 Expired. */
function setupError(err: unknown): ApiError {
  if (err instanceof StoreCompactedError) return errors.tooOldResourceVersion(err.requested, err.compacted);
  return toApiError(err);
}

export function serveWatch(res: ServerResponse, w: WatchRequest): ActiveWatch {
  let sub: WatchSubscription | undefined;
  let ended = false;
  let events = 0;
  let lastRevision = 0;
  // At most three timers at a time (the watch timeout, a future resourceVersion's deadline, the next
  // bookmark): the bookmark timer is replaced at each tick, so a watch open for hours holds one.
  let timeoutTimer: NodeJS.Timeout | undefined;
  let futureTimer: NodeJS.Timeout | undefined;
  let bookmarkTimer: NodeJS.Timeout | undefined;

  const http2 = isHttp2(res);
  const end = (reason: string): void => {
    if (ended) return;
    ended = true;
    sub?.close();
    clearTimeout(timeoutTimer);
    clearTimeout(futureTimer);
    clearTimeout(bookmarkTimer);
    if (reason === 'slow' || reason === 'slow consumer') abandonResponse(res);
    else if (!res.writableEnded) res.end();
    w.onEnd(reason, events);
  };

  // Set once nothing is held in `res` any more: frames then go straight to the socket (see the file
  // comment). On TLS the headers stay in the socket's buffer until a later tick, so this is checked
  // at each write until it holds rather than once after flushHeaders(). Never over HTTP/2, whose
  // socket carries other streams.
  let socket: NodeJS.WritableStream & { writableLength: number } | undefined;
  const raw = http2 ? null : res.socket;
  const directSocket = (): typeof socket => {
    if (socket === undefined && res.chunkedEncoding && raw && !raw.destroyed && res.writableLength === 0) socket = raw;
    return socket;
  };

  const waitDrain = (target: NodeJS.EventEmitter): Promise<void> => new Promise<void>((resolve) => {
    const done = (): void => {
      target.off('drain', done);
      res.off('close', done);
      resolve();
    };
    target.on('drain', done);
    res.on('close', done);
  });

  const write = (type: WatchEventType, obj: KubeObject): Promise<void> | void => {
    if (ended) return;
    const enc = w.encoder.line(type, obj, events === 0);
    events++;
    const direct = directSocket();
    if (direct !== undefined) {
      if (direct.write(enc.chunk)) return;
      if (direct.writableLength > w.maxBufferedBytes) {
        end('slow');
        return;
      }
      return waitDrain(direct);
    }
    if (res.write(enc.line)) return;
    if (res.writableLength > w.maxBufferedBytes) {
      end('slow');
      return;
    }
    return waitDrain(res);
  };

  const sendError = (err: ApiError): void => {
    // The stream ends right after, so a full socket buffer is not waited for.
    void write('ERROR', err.status as unknown as KubeObject);
    end('error');
  };

  // HTTP/2 frames the body itself and refuses HTTP/1.1's connection-specific headers.
  const headers: Record<string, string> = { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' };
  if (!http2) headers['Transfer-Encoding'] = 'chunked';
  res.writeHead(200, headers);
  res.flushHeaders();
  // res 'close' fires when the client goes away (or after our own end(), which is then a no-op).
  res.on('close', () => end('client closed'));
  res.on('error', () => end('socket error'));

  const onEvent = (ev: StoreEvent): Promise<void> | void => {
    lastRevision = ev.revision;
    if (w.resourceVersion !== undefined && ev.revision <= w.resourceVersion) return;
    const now = w.filter(ev.object);
    if (ev.type === 'ADDED') return now ? write('ADDED', ev.object) : undefined;
    if (ev.type === 'DELETED') return now ? write('DELETED', ev.object) : undefined;
    const before = ev.prevObject ? w.filter(ev.prevObject) : false;
    if (now && before) return write('MODIFIED', ev.object);
    if (now) return write('ADDED', ev.object);
    if (before && ev.prevObject) {
      const last = { ...ev.prevObject, metadata: { ...ev.prevObject.metadata, resourceVersion: String(ev.revision) } };
      return write('DELETED', last);
    }
  };

  const subscribe = (from: number): void => {
    sub = w.store.watch(w.prefix, {
      fromRevision: from,
      ...(w.hints ? { hints: w.hints } : {}),
      onEvent,
      onClose: (reason) => end(reason === 'slow' ? 'slow consumer' : 'store closed'),
    });
  };

  try {
    const rv = w.resourceVersion;
    if (rv === undefined) {
      const listed = w.store.list(w.prefix, { filter: w.filter, ...(w.hints ? { hints: w.hints } : {}) });
      lastRevision = listed.revision;
      const start = (): void => {
        subscribe(listed.revision);
        for (const it of listed.items) void write('ADDED', it.object);
      };
      if (listed.revision <= w.store.durableRevision()) {
        start();
      } else {
        // the list may include writes not yet durable: show it once they are (the subscription
        // then replays anything published meanwhile from the log, without gap or duplicate)
        w.store.whenDurable(listed.revision).then(() => {
          if (ended) return;
          try {
            start();
          } catch (err) {
            sendError(setupError(err));
          }
        }, (err: unknown) => sendError(setupError(err)));
      }
    } else {
      const current = w.store.currentRevision();
      if (rv < w.store.compactedRevision()) {
        sendError(errors.tooOldResourceVersion(rv, w.store.compactedRevision()));
        return { close: () => end('server shutdown') };
      }
      if (rv > current) {
        lastRevision = current;
        subscribe(current);
        futureTimer = setTimeout(() => {
          if (w.store.currentRevision() < rv) sendError(errors.tooLargeResourceVersion(rv, w.store.currentRevision()));
        }, w.futureWaitMs);
      } else {
        lastRevision = rv;
        subscribe(rv);
      }
    }
  } catch (err) {
    sendError(setupError(err));
    return { close: () => end('server shutdown') };
  }

  // Timers cannot wait longer than 2^31-1 ms (a longer delay would fire at once).
  timeoutTimer = setTimeout(() => end('timeout'), Math.max(0, Math.min(w.timeoutMs, MAX_TIMER_MS)));
  if (w.allowBookmarks) {
    const tick = (): void => {
      if (ended) return;
      // The subscription's progress counts the events this watch was never offered (other
      // objects, other labels): without it, a narrow watch's bookmark would stay at its last own
      // event and a resume from it would replay, or find compacted, everything since.
      const rev = Math.max(lastRevision, w.resourceVersion ?? 0, sub?.progress() ?? 0);
      void write('BOOKMARK', w.encoder.bookmark(rev));
      bookmarkTimer = setTimeout(tick, w.bookmarkIntervalMs);
    };
    bookmarkTimer = setTimeout(tick, w.bookmarkIntervalMs);
  }
  return { close: () => end('server shutdown') };
}
