// WATCH (§10): initial events, resume from a revision, selector transitions, bookmarks, timeouts,
// ERROR-then-close, newline-delimited JSON with headers flushed at once.

import type { ServerResponse } from 'node:http';
import type { KubeObject, WatchEventType } from '../../api/meta.js';
import type { Logger } from '../../util/logger.js';
import { StoreCompactedError, type Store, type StoreEvent, type WatchSubscription } from '../storage/types.js';
import { ApiError, errors } from './errors.js';

export interface WatchEncoder {
  /** Encodes one event line (newline included). `first` = first event of this stream. */
  line(type: WatchEventType, obj: KubeObject, first: boolean): Buffer;
  /** The BOOKMARK object for a revision. */
  bookmark(revision: number): KubeObject;
}

export interface WatchRequest {
  store: Store;
  prefix: string;
  filter: (obj: KubeObject) => boolean;
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

export function serveWatch(res: ServerResponse, w: WatchRequest): ActiveWatch {
  let sub: WatchSubscription | undefined;
  let ended = false;
  let events = 0;
  let lastRevision = 0;
  const timers: NodeJS.Timeout[] = [];

  const end = (reason: string): void => {
    if (ended) return;
    ended = true;
    sub?.close();
    for (const t of timers) clearTimeout(t);
    if (!res.writableEnded) res.end();
    w.onEnd(reason, events);
  };

  const write = (type: WatchEventType, obj: KubeObject): Promise<void> | void => {
    if (ended) return;
    const line = w.encoder.line(type, obj, events === 0);
    events++;
    const ok = res.write(line);
    if (!ok) {
      if (res.writableLength > w.maxBufferedBytes) {
        end('slow');
        return;
      }
      return new Promise<void>((resolve) => {
        const done = (): void => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      });
    }
  };

  const sendError = (err: ApiError): void => {
    write('ERROR', err.status as unknown as KubeObject);
    end('error');
  };

  res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
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
      onEvent,
      onClose: (reason) => end(reason === 'slow' ? 'slow consumer' : 'store closed'),
    });
  };

  try {
    const rv = w.resourceVersion;
    if (rv === undefined) {
      const listed = w.store.list(w.prefix, { filter: w.filter });
      lastRevision = listed.revision;
      subscribe(listed.revision);
      for (const it of listed.items) void write('ADDED', it.object);
    } else {
      const current = w.store.currentRevision();
      if (rv < w.store.compactedRevision()) {
        sendError(errors.tooOldResourceVersion(rv, w.store.compactedRevision()));
        return { close: () => end('server shutdown') };
      }
      if (rv > current) {
        lastRevision = current;
        subscribe(current);
        timers.push(setTimeout(() => {
          if (w.store.currentRevision() < rv) sendError(errors.tooLargeResourceVersion(rv, w.store.currentRevision()));
        }, w.futureWaitMs));
      } else {
        lastRevision = rv;
        subscribe(rv);
      }
    }
  } catch (err) {
    if (err instanceof StoreCompactedError) sendError(errors.tooOldResourceVersion(err.requested, err.compacted));
    else sendError(err instanceof ApiError ? err : errors.internal(err instanceof Error ? err.message : String(err), err));
    return { close: () => end('server shutdown') };
  }

  timers.push(setTimeout(() => end('timeout'), w.timeoutMs));
  if (w.allowBookmarks) {
    const tick = (): void => {
      if (ended) return;
      const rev = Math.max(lastRevision, w.resourceVersion ?? 0);
      void write('BOOKMARK', w.encoder.bookmark(rev));
      timers.push(setTimeout(tick, w.bookmarkIntervalMs));
    };
    timers.push(setTimeout(tick, w.bookmarkIntervalMs));
  }
  return { close: () => end('server shutdown') };
}
