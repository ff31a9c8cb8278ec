// Keeps one kind of the cluster's hub objects in a local store over CloudEvents, as OCM's agent
// clients do: subscribe to the kind's events for this cluster, ask the hub to resend them once the
// subscription is registered (a resync request listing the versions held), and apply every spec
// event the hub sends. A subscription that ends (server restart, network failure, missed
// heartbeats) is opened again after a backoff, followed by a new resync, so objects that changed
// meanwhile arrive again.

import type { KubeObject } from '../../../api/meta.js';
import { createBackoff } from '../../../client/backoff.js';
import { ApiStatusError, statusFromCode } from '../../../client/errors.js';
import { extensionString, type CloudEvent } from '../../../grpc/cloudevent.js';
import type { CloudEventsClient } from '../../../grpc/client.js';
import { encodeResyncRequest } from '../../../grpc/codecs.js';
import { dataTypes, extensions, parseEventType, sameDataType, type RegistrationKind } from '../../../grpc/event-types.js';
import type { Clock } from '../../../util/clock.js';
import { errorMessage } from '../../../util/errors.js';
import type { Logger } from '../../../util/logger.js';
import type { ObjectStore } from './object-store.js';

export interface KindSubscriptionOptions<T extends KubeObject> {
  /** The channel to use now (it is rebuilt when the credentials rotate). */
  client(): Pick<CloudEventsClient, 'subscribe' | 'publish'>;
  kind: RegistrationKind;
  clusterName: string;
  /** The agent's CloudEvents source (OCM's agents use the cluster name). */
  source: string;
  store: ObjectStore<T>;
  /** The object an event carries, as the agent works with it. */
  decode(e: CloudEvent): T;
  log: Logger;
  clock: Clock;
  random: () => number;
  /** First reconnect delay (doubling to 30 s); default 1 s. */
  reconnectInitialMs?: number;
  /** How long a read waits for the first registered subscription before failing (default 5 s). */
  readyTimeoutMs?: number;
}

export interface KindSubscription {
  /**
   * Resolves once a subscription has been registered by the hub; rejects when the signal aborts, or
   * with a 503 naming the last subscription failure when none was registered in time.
   */
  ready(signal?: AbortSignal): Promise<void>;
  /** Subscribes, and subscribes again whenever the subscription ends, until the signal aborts. */
  run(signal: AbortSignal): Promise<void>;
}

/** What one received event means for the store; pure. */
export type Received<T> = { kind: 'apply'; object: T } | { kind: 'remove'; namespace: string | undefined; name: string } | { kind: 'ignore'; why: string };

export function interpretEvent<T extends KubeObject>(e: CloudEvent, o: { kind: RegistrationKind; clusterName: string; decode(e: CloudEvent): T }): Received<T> {
  let type;
  try {
    type = parseEventType(e.type);
  } catch (err) {
    return { kind: 'ignore', why: errorMessage(err) };
  }
  if (!sameDataType(type.dataType, dataTypes[o.kind])) return { kind: 'ignore', why: `unexpected data type in ${e.type}` };
  if (type.subResource !== 'spec') return { kind: 'ignore', why: `unsupported event type ${e.type}` };
  if (extensionString(e, extensions.clusterName) !== o.clusterName) return { kind: 'ignore', why: 'event for another cluster' };
  if (type.action !== 'create_request' && type.action !== 'update_request' && type.action !== 'delete_request') return { kind: 'ignore', why: `unsupported action ${type.action}` };
  const obj = o.decode(e);
  if (type.action === 'delete_request' && !obj.metadata.deletionTimestamp) return { kind: 'remove', namespace: obj.metadata.namespace, name: obj.metadata.name ?? '' };
  return { kind: 'apply', object: obj };
}

export function createKindSubscription<T extends KubeObject>(o: KindSubscriptionOptions<T>): KindSubscription {
  const log = o.log.child({ kind: o.kind });
  let isReady = false;
  let lastFailure: Error | undefined;
  const readyWaiters = new Set<() => void>();
  const markReady = (): void => {
    isReady = true;
    for (const w of [...readyWaiters]) w();
  };

  const resync = async (signal: AbortSignal): Promise<void> => {
    const versions = o.store.list().items.map((obj) => ({ resourceID: obj.metadata.uid ?? '', resourceVersion: obj.metadata.generation ?? 0 }));
    const evt = encodeResyncRequest({ source: o.source, clusterName: o.clusterName, kind: o.kind, versions });
    try {
      await o.client().publish(evt, { signal });
    } catch (err) {
      if (!signal.aborted) log.warn('failed to send the resync request', { err: errorMessage(err) });
    }
  };

  const receive = (e: CloudEvent): void => {
    let r: Received<T>;
    try {
      r = interpretEvent(e, o);
    } catch (err) {
      log.warn('failed to decode an event from the hub', { eventType: e.type, err: errorMessage(err) });
      return;
    }
    if (r.kind === 'apply') o.store.apply(r.object);
    else if (r.kind === 'remove') o.store.remove(r.namespace, r.name);
    else log.debug('ignored an event from the hub', { eventType: e.type, why: r.why });
  };

  /** One subscription, until it ends; resolves with its end. */
  const subscribeOnce = (signal: AbortSignal, onRegistered: () => void): Promise<Error | undefined> =>
    new Promise((resolve) => {
      const sub = o.client().subscribe(
        { clusterName: o.clusterName, dataType: dataTypes[o.kind] },
        {
          onEvent: receive,
          onReady: () => {
            onRegistered();
            markReady();
            void resync(signal);
          },
          onEnd: (err) => {
            lastFailure = err;
            signal.removeEventListener('abort', onAbort);
            resolve(err);
          },
          onBadEvent: (err) => log.warn('skipped a malformed event from the hub', { err: errorMessage(err) }),
        },
      );
      const onAbort = (): void => {
        sub.close();
        resolve(undefined);
      };
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    });

  return {
    ready(signal) {
      if (isReady) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const settle = (err: Error | undefined): void => {
          readyWaiters.delete(done);
          timer.cancel();
          signal?.removeEventListener('abort', onAbort);
          if (err) reject(err);
          else resolve();
        };
        const done = (): void => settle(undefined);
        const onAbort = (): void => settle(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
        const timer = o.clock.setTimeout(() => {
          const why = lastFailure ? errorMessage(lastFailure) : 'no answer yet';
          settle(new ApiStatusError(statusFromCode(503, `not subscribed to ${o.kind} on the hub's gRPC server: ${why}`)));
        }, o.readyTimeoutMs ?? 5000);
        readyWaiters.add(done);
        if (signal?.aborted) onAbort();
        else signal?.addEventListener('abort', onAbort, { once: true });
      });
    },
    async run(signal) {
      const backoff = createBackoff({ initialMs: o.reconnectInitialMs ?? 1000, now: () => o.clock.now(), random: o.random });
      while (!signal.aborted) {
        const ended = await subscribeOnce(signal, () => backoff.reset());
        if (signal.aborted) return;
        const delay = backoff.next();
        log.info('the hub subscription ended; subscribing again', { err: ended ? errorMessage(ended) : undefined, retryInMs: delay });
        try {
          await o.clock.sleep(delay, signal);
        } catch {
          return;
        }
      }
    },
  };
}
