// Event recorder: writes Events about objects, best-effort. The default API is events.k8s.io/v1
// (what OCM's recorders write, and what the agent's hub RBAC allows); core/v1
// is available through `api: 'v1'`. Repeats of the same (object, type, reason, message) within the
// aggregation window patch the existing Event's count instead of creating a new one.
// event() never throws and never blocks; failures are logged at debug/warn.

import type { KubeObject } from '../api/meta.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { isNotFound } from './errors.js';
import { resourceTypes } from './resource-types.js';
import type { EventRecorder, EventType, KubeClient } from './types.js';
import { rfc3339, rfc3339Micro } from '../api/conditions.js';

export interface EventRecorderOptions {
  /** reportingController / source.component, e.g. `klusterlet-agent`. */
  component: string;
  /** Host for reportingInstance (`<component>-<host>`) and source.host. */
  host?: string;
  log: Logger;
  clock: Clock;
  /** Which Event API to write (default events.k8s.io/v1). */
  api?: 'events.k8s.io/v1' | 'v1';
  /** Repeats within this window update the existing Event (default 10 minutes). */
  aggregateWindowMs?: number;
  /** Remembered Events for aggregation (default 512). */
  maxTracked?: number;
}

export interface FlushableEventRecorder extends EventRecorder {
  /** Resolves once every Event write started so far has finished (tests, shutdown). */
  flush(): Promise<void>;
}

interface Tracked {
  name: string;
  namespace: string;
  count: number;
  firstMs: number;
  lastMs: number;
}

export function createEventRecorder(client: KubeClient, opts: EventRecorderOptions): FlushableEventRecorder {
  const api = opts.api ?? 'events.k8s.io/v1';
  const window = opts.aggregateWindowMs ?? 600_000;
  const maxTracked = opts.maxTracked ?? 512;
  const instance = opts.host ? `${opts.component}-${opts.host}` : opts.component;
  const log = opts.log.child({ component: opts.component });
  const tracked = new Map<string, Tracked>();
  const chains = new Map<string, Promise<void>>();
  const pending = new Set<Promise<void>>();
  const type = api === 'v1' ? resourceTypes.events : resourceTypes.eventsV1;

  const buildEvent = (involved: KubeObject, evType: EventType, reason: string, message: string, namespace: string, nowMs: number): KubeObject => {
    const name = `${involved.metadata.name ?? 'unknown'}.${(BigInt(nowMs) * 1_000_000n).toString(16)}`;
    const ref: Record<string, unknown> = {
      ...(involved.apiVersion ? { apiVersion: involved.apiVersion } : {}),
      ...(involved.kind ? { kind: involved.kind } : {}),
      name: involved.metadata.name ?? '',
      ...(involved.metadata.namespace || namespace !== 'default' ? { namespace: involved.metadata.namespace ?? namespace } : {}),
      ...(involved.metadata.uid ? { uid: involved.metadata.uid } : {}),
    };
    if (api === 'v1') {
      if (involved.metadata.resourceVersion) ref.resourceVersion = involved.metadata.resourceVersion;
      return {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name, namespace },
        involvedObject: ref,
        reason,
        message,
        type: evType,
        source: { component: opts.component, ...(opts.host ? { host: opts.host } : {}) },
        firstTimestamp: rfc3339(new Date(nowMs)),
        lastTimestamp: rfc3339(new Date(nowMs)),
        count: 1,
        reportingComponent: opts.component,
        reportingInstance: instance,
      };
    }
    return {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name, namespace },
      eventTime: rfc3339Micro(new Date(nowMs)),
      reportingController: opts.component,
      reportingInstance: instance,
      action: reason,
      reason,
      note: message.length > 1024 ? message.slice(0, 1024) : message,
      type: evType,
      regarding: ref,
    };
  };

  const write = async (aggKey: string, involved: KubeObject, evType: EventType, reason: string, message: string, namespace: string): Promise<void> => {
    const now = opts.clock.now();
    const prev = tracked.get(aggKey);
    const events = client.resource(type, namespace);
    if (prev && now - prev.firstMs <= window) {
      const count = prev.count + 1;
      const patch =
        api === 'v1' ? { count, lastTimestamp: rfc3339(new Date(now)) } : { series: { count, lastObservedTime: rfc3339Micro(new Date(now)) } };
      try {
        await events.patch(prev.name, 'merge', patch);
        prev.count = count;
        prev.lastMs = now;
        return;
      } catch (err) {
        if (!isNotFound(err)) throw err;
        tracked.delete(aggKey); // expired or deleted: start a new Event below
      }
    }
    const ev = buildEvent(involved, evType, reason, message, namespace, now);
    await events.create(ev);
    tracked.delete(aggKey);
    tracked.set(aggKey, { name: ev.metadata.name as string, namespace, count: 1, firstMs: now, lastMs: now });
    while (tracked.size > maxTracked) tracked.delete(tracked.keys().next().value as string);
  };

  return {
    event(involved, evType, reason, message, namespace) {
      try {
        const ns = namespace ?? involved.metadata.namespace ?? 'default';
        const who = involved.metadata.uid ?? `${involved.kind ?? ''}/${involved.metadata.namespace ?? ''}/${involved.metadata.name ?? ''}`;
        const aggKey = [ns, who, evType, reason, message].join('\u0000');
        const prev = chains.get(aggKey) ?? Promise.resolve();
        const p: Promise<void> = prev
          .then(() => write(aggKey, involved, evType, reason, message, ns))
          .catch((err: unknown) => log.warn('event not recorded', { reason, object: involved.metadata.name, namespace: ns, err }))
          .finally(() => {
            pending.delete(p);
            if (chains.get(aggKey) === p) chains.delete(aggKey);
          });
        chains.set(aggKey, p);
        pending.add(p);
        log.debug('event', { type: evType, reason, object: involved.metadata.name, namespace: ns });
      } catch (err) {
        log.warn('event not recorded', { reason, err });
      }
    },
    async flush() {
      while (pending.size > 0) await Promise.allSettled([...pending]);
    },
  };
}
