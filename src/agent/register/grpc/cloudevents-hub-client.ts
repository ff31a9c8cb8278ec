// The hub client of an agent registered with the gRPC driver: the same KubeClient interface the
// agent's controllers use against a hub API server, carried as CloudEvents to the hub's gRPC
// server, as OCM's agent does with its CloudEvents clients. It serves exactly what the agent
// needs: ManagedCluster (get/list/watch, create, status), CSRs (get/list/watch, create), the
// cluster Lease (get, update), ManagedClusterAddOns (get/list/watch, status) and Events (create,
// series patch) in the cluster's namespace, and ServiceAccount token requests. Anything else is
// refused with 405, as OCM's clients refuse it.

import { randomUUID } from 'node:crypto';
import type { KubeObject } from '../../../api/meta.js';
import type { ManagedClusterAddOn } from '../../../api/addon.js';
import { resourceTypes } from '../../../client/resource-types.js';
import type { CallOptions, KubeClient, ResourceClient, ResourceType } from '../../../client/types.js';
import type { CloudEvent } from '../../../grpc/cloudevent.js';
import { decodeObject, encodeObject } from '../../../grpc/codecs.js';
import { dataTypes, type EventAction, type RegistrationKind, type SubResource } from '../../../grpc/event-types.js';
import type { Clock } from '../../../util/clock.js';
import type { Logger } from '../../../util/logger.js';
import { fromV1alpha1Addon, toV1alpha1Addon } from './addon-versions.js';
import type { HubConnection } from './hub-connection.js';
import { createKindSubscription, type KindSubscription } from './kind-subscription.js';
import { createObjectStore, type ObjectStore } from './object-store.js';
import { apiError, createStoredResourceClient, mergePatch, methodNotSupported, type KindWrites } from './stored-resource-client.js';
import { requestToken, TOKEN_REQUEST_PATH } from './token-request.js';

type StoredKind = 'managedClusters' | 'csrs' | 'leases' | 'managedClusterAddOns';

export interface CloudEventsHubClientOptions {
  connection: HubConnection;
  clusterName: string;
  log: Logger;
  clock: Clock;
  random: () => number;
  /** How many store changes a watch can resume across (default 512). */
  historyLimit?: number;
  /** First delay before subscribing again after a subscription ended (default 1 s). */
  reconnectInitialMs?: number;
  /** How long a token request waits for the hub's answer (default 10 s, as OCM's agent). */
  tokenRequestTimeoutMs?: number;
}

const KIND_OF_TYPE: ReadonlyArray<{ type: ResourceType; kind: StoredKind; namespaced: boolean }> = [
  { type: resourceTypes.managedClusters, kind: 'managedClusters', namespaced: false },
  { type: resourceTypes.certificateSigningRequests, kind: 'csrs', namespaced: false },
  { type: resourceTypes.leases, kind: 'leases', namespaced: true },
  { type: resourceTypes.managedClusterAddOns, kind: 'managedClusterAddOns', namespaced: true },
];

function sameType(a: ResourceType, b: ResourceType): boolean {
  return a.group === b.group && a.version === b.version && a.resource === b.resource;
}

const NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

interface KindState {
  store: ObjectStore<KubeObject>;
  subscription: KindSubscription;
  started: boolean;
}

export function createCloudEventsHubClient(o: CloudEventsHubClientOptions): KubeClient {
  const stopAll = new AbortController();
  const kinds = new Map<StoredKind, KindState>();
  const source = o.clusterName;

  const publish = async (kind: RegistrationKind, subResource: SubResource, action: EventAction, obj: KubeObject, signal?: AbortSignal): Promise<void> => {
    const body = kind === 'managedClusterAddOns' ? (toV1alpha1Addon(obj as ManagedClusterAddOn) as KubeObject) : obj;
    const evt: CloudEvent = encodeObject(body, { source, type: { dataType: dataTypes[kind], subResource, action } });
    await o.connection.current().publish(evt, signal ? { signal } : {});
  };

  const decoderFor = (kind: StoredKind) => (e: CloudEvent): KubeObject => {
    const obj = decodeObject(e);
    return kind === 'managedClusterAddOns' ? (fromV1alpha1Addon(obj) as KubeObject) : obj;
  };

  const stateOf = (kind: StoredKind): KindState => {
    let s = kinds.get(kind);
    if (s === undefined) {
      const store = createObjectStore<KubeObject>({ historyLimit: o.historyLimit ?? 512 });
      const subscription = createKindSubscription({
        client: () => o.connection.current(),
        kind,
        clusterName: o.clusterName,
        source,
        store,
        decode: decoderFor(kind),
        log: o.log,
        clock: o.clock,
        random: o.random,
        ...(o.reconnectInitialMs !== undefined ? { reconnectInitialMs: o.reconnectInitialMs } : {}),
      });
      s = { store, subscription, started: false };
      kinds.set(kind, s);
    }
    return s;
  };

  /** Subscribes on first use, so a phase only subscribes to the kinds its controllers read. */
  const ready = (kind: StoredKind) => (signal?: AbortSignal): Promise<void> => {
    const s = stateOf(kind);
    if (!s.started && !stopAll.signal.aborted) {
      s.started = true;
      void s.subscription.run(stopAll.signal);
    }
    const both = signal ? AbortSignal.any([signal, stopAll.signal]) : stopAll.signal;
    return s.subscription.ready(both);
  };

  const writesFor = (kind: StoredKind, store: ObjectStore<KubeObject>): KindWrites<KubeObject> => {
    switch (kind) {
      case 'managedClusters':
        return {
          create: (obj, signal) => publish(kind, 'spec', 'create_request', obj, signal),
          update: (obj, signal) => publish(kind, 'spec', 'update_request', obj, signal),
          updateStatus: (obj, signal) => publish(kind, 'status', 'update_request', obj, signal),
        };
      case 'csrs':
        return {
          async create(obj, signal) {
            await publish(kind, 'spec', 'create_request', obj, signal);
            // Known at once, so the driver finds its CSR before the hub echoes it back.
            store.apply(obj);
          },
        };
      case 'leases':
        return { update: (obj, signal) => publish(kind, 'spec', 'update_request', obj, signal) };
      case 'managedClusterAddOns':
        return { updateStatus: (obj, signal) => publish(kind, 'status', 'update_request', obj, signal) };
    }
  };

  const randomName = (prefix: string): string => {
    let s = prefix;
    for (let i = 0; i < 5; i++) s += NAME_ALPHABET[Math.floor(o.random() * NAME_ALPHABET.length)]!;
    return s;
  };

  const eventsClient = (type: ResourceType, namespace: string | undefined): ResourceClient<KubeObject> => ({
    ...refusingClient(type, namespace),
    async create(obj, opts) {
      const ev = structuredClone(obj);
      if (namespace !== undefined) ev.metadata.namespace = namespace;
      await publish('events', 'spec', 'create_request', ev, opts?.signal);
      return ev;
    },
    // Only a repeated event's series changes: the hub merges the series into the event it has.
    async patch(name, patchType, patch, opts) {
      if (patchType !== 'merge') throw apiError(415, `patch type ${patchType} is not supported over CloudEvents`);
      const ev = mergePatch({ metadata: { name, ...(namespace !== undefined ? { namespace } : {}) } }, patch) as KubeObject;
      await publish('events', 'spec', 'update_request', ev, opts?.signal);
      return ev;
    },
  });

  return {
    server: `grpc://${o.connection.url}`,
    resource<T extends KubeObject = KubeObject>(type: ResourceType, namespace?: string): ResourceClient<T> {
      if (sameType(type, resourceTypes.eventsV1)) return eventsClient(type, namespace) as unknown as ResourceClient<T>;
      const entry = KIND_OF_TYPE.find((k) => sameType(k.type, type));
      if (entry === undefined) return refusingClient(type, namespace) as unknown as ResourceClient<T>;
      const state = stateOf(entry.kind);
      return createStoredResourceClient<KubeObject>({
        type,
        namespace: entry.namespaced ? namespace : undefined,
        store: state.store,
        ready: ready(entry.kind),
        writes: writesFor(entry.kind, state.store),
        generateName: randomName,
        clock: o.clock,
      }) as unknown as ResourceClient<T>;
    },
    async request<R = unknown>(method: string, path: string, body?: unknown, opts?: CallOptions): Promise<R> {
      const m = TOKEN_REQUEST_PATH.exec(path);
      if (method === 'POST' && m) {
        const namespace = decodeURIComponent(m[1]!);
        const name = decodeURIComponent(m[2]!);
        const signal = opts?.signal ? AbortSignal.any([opts.signal, stopAll.signal]) : stopAll.signal;
        return (await requestToken({
          client: o.connection.current(),
          clusterName: o.clusterName,
          source,
          namespace,
          serviceAccount: name,
          body,
          uid: randomUUID(),
          timeoutMs: o.tokenRequestTimeoutMs ?? 10_000,
          clock: o.clock,
          signal,
        })) as R;
      }
      throw apiError(405, `${method} ${path} is not supported over CloudEvents`);
    },
    async probe() {
      throw apiError(405, 'health probes are not supported over CloudEvents');
    },
    close() {
      stopAll.abort();
      o.connection.close();
    },
  };
}

/** A client for a kind the hub does not serve over CloudEvents. */
function refusingClient(type: ResourceType, namespace: string | undefined): ResourceClient<KubeObject> {
  const refuse = (verb: string) => async (): Promise<never> => {
    throw methodNotSupported(type, verb);
  };
  return {
    type,
    namespace,
    get: refuse('get'),
    list: refuse('list'),
    create: refuse('create'),
    update: refuse('update'),
    updateStatus: refuse('update status'),
    updateSubresource: refuse('update subresource'),
    patch: refuse('patch'),
    delete: refuse('delete'),
    watch() {
      return {
        [Symbol.asyncIterator]() {
          return { next: () => Promise.reject(methodNotSupported(type, 'watch')) };
        },
      };
    },
  };
}
