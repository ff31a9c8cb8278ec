// Event expiry (kube-apiserver's --event-ttl): Events older than the TTL are deleted periodically.
// A sweep reads the Events a page at a time and lets the event loop turn between pages: a hub with
// thousands of clusters holds thousands of Events, and reading them all in one go held every other
// request for as long as it took to parse them.

import type { KubeObject } from '../../api/meta.js';
import { setTimeoutUntilAborted, type Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { StoreClosedError } from '../storage/store-errors.js';
import type { Store } from '../storage/types.js';

export interface EventTtlOptions {
  store: Store;
  ttlMs: number;
  intervalMs: number;
  clock: Clock;
  log: Logger;
  signal: AbortSignal;
  /** Events read per turn of the event loop (default 500). */
  pageSize?: number;
}

/** The time an Event was last seen: lastTimestamp, series.lastObservedTime, eventTime, creationTimestamp. */
function eventLastSeen(ev: KubeObject): number | undefined {
  const series = ev.series as { lastObservedTime?: unknown } | undefined;
  for (const v of [ev.lastTimestamp, series?.lastObservedTime, ev.eventTime, ev.metadata.creationTimestamp]) {
    if (typeof v === 'string') {
      const t = Date.parse(v);
      if (Number.isFinite(t)) return t;
    }
  }
  return undefined;
}

export function startEventTtl(o: EventTtlOptions): void {
  const pageSize = o.pageSize ?? 500;
  const sweep = async (): Promise<void> => {
    const cutoff = o.clock.now() - o.ttlMs;
    let removed = 0;
    let after: string | undefined;
    do {
      const page = o.store.list('/core/events/', { limit: pageSize, ...(after !== undefined ? { startAfterKey: after } : {}) });
      for (const it of page.items) {
        const seen = eventLastSeen(it.object);
        if (seen !== undefined && seen < cutoff && (it.object.metadata.finalizers ?? []).length === 0) {
          try {
            o.store.delete(it.key, it.revision);
            removed++;
          } catch {
            // changed or gone meanwhile: the next sweep decides again
          }
        }
      }
      after = page.continueAfterKey;
      if (after !== undefined) await new Promise<void>((resolve) => setImmediate(resolve));
    } while (after !== undefined && !o.signal.aborted);
    if (removed > 0) o.log.debug('expired events', { removed });
  };
  const next = (): void => {
    if (o.signal.aborted) return;
    sweep().then(
      () => setTimeoutUntilAborted(o.clock, o.intervalMs, o.signal, next),
      (err: unknown) => {
        // a closed store ends the loop (the server is shutting down); anything else is retried
        if (err instanceof StoreClosedError) return;
        o.log.warn('event expiry failed', { err });
        setTimeoutUntilAborted(o.clock, o.intervalMs, o.signal, next);
      },
    );
  };
  setTimeoutUntilAborted(o.clock, o.intervalMs, o.signal, next);
}
