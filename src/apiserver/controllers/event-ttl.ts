// Event expiry (kube-apiserver's --event-ttl): Events older than the TTL are deleted periodically.

import type { KubeObject } from '../../api/meta.js';
import { setTimeoutUntilAborted, type Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import type { Store } from '../storage/types.js';

export interface EventTtlOptions {
  store: Store;
  ttlMs: number;
  intervalMs: number;
  clock: Clock;
  log: Logger;
  signal: AbortSignal;
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
  const sweep = (): void => {
    if (o.signal.aborted) return;
    const cutoff = o.clock.now() - o.ttlMs;
    let removed = 0;
    try {
      for (const it of o.store.list('/core/events/').items) {
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
      if (removed > 0) o.log.debug('expired events', { removed });
    } catch (err) {
      o.log.warn('event expiry failed', { err });
    }
    setTimeoutUntilAborted(o.clock, o.intervalMs, o.signal, sweep);
  };
  setTimeoutUntilAborted(o.clock, o.intervalMs, o.signal, sweep);
}
