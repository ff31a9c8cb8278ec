// The Kubernetes side of the hub's CloudEvents services: what an agent's event writes on the hub
// (through the hub's own API client, as OCM's server does) and what the hub has for a cluster
// (read from informer caches, which also announce every change). One table of kinds: clusters,
// CSRs, leases, events, add-ons (v1alpha1, the version OCM's agents speak) and token requests.

import { annotations, labels } from '../../api/constants.js';
import type { KubeObject } from '../../api/meta.js';
import { ApiStatusError, statusFromCode } from '../../client/errors.js';
import { createInformerFactory } from '../../client/informer-factory.js';
import { resourceTypes } from '../../client/resource-types.js';
import type { Informer, KubeClient, ResourceType } from '../../client/types.js';
import type { EventType, RegistrationKind } from '../../grpc/event-types.js';
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import type { GrpcUser } from './authz.js';

/** Kinds whose objects the hub streams to subscribers (events and token requests are write-only). */
type WatchedKind = 'managedClusters' | 'csrs' | 'leases' | 'managedClusterAddOns';
const WATCHED: readonly WatchedKind[] = ['managedClusters', 'csrs', 'leases', 'managedClusterAddOns'];

interface ObjectChange {
  kind: WatchedKind;
  action: 'create_request' | 'update_request' | 'delete_request';
  obj: KubeObject;
}

export interface RegistrationServices {
  /** Writes what `e` asks for on the hub; rejects with ApiStatusError (the hub's answer, or a refusal). */
  handle(kind: RegistrationKind, t: EventType, obj: KubeObject, user: GrpcUser, signal: AbortSignal): Promise<KubeObject | undefined>;
  /** The objects of `cluster` the hub holds, for a resync. */
  list(kind: RegistrationKind, cluster: string): KubeObject[];
  /** Starts the informers and resolves once those of clusters, CSRs and leases synced. */
  start(signal: AbortSignal): Promise<void>;
  onChange(fn: (c: ObjectChange) => void): void;
}

function forbidden(message: string): ApiStatusError {
  return new ApiStatusError(statusFromCode(403, message));
}

function badRequest(message: string): ApiStatusError {
  return new ApiStatusError(statusFromCode(400, message));
}

/** Server-owned fields an agent's new object must not carry. */
function forCreate(obj: KubeObject): KubeObject {
  const { resourceVersion: _rv, uid: _uid, creationTimestamp: _ct, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}

export function createRegistrationServices(o: { client: KubeClient; csrResource: ResourceType; log: Logger; clock?: Clock; resyncMs?: number }): RegistrationServices {
  const { client } = o;
  const factory = createInformerFactory(client, { log: o.log.child({ component: 'grpc-informer' }), ...(o.clock ? { clock: o.clock } : {}), ...(o.resyncMs !== undefined ? { resyncMs: o.resyncMs } : {}) });
  const clusterLabel = { labelSelector: labels.clusterName };
  const informers: Record<WatchedKind, Informer<KubeObject>> = {
    managedClusters: factory.informerFor(resourceTypes.managedClusters),
    csrs: factory.informerFor(o.csrResource, clusterLabel),
    leases: factory.informerFor(resourceTypes.leases, clusterLabel),
    managedClusterAddOns: factory.informerFor(resourceTypes.managedClusterAddOnsV1alpha1),
  };
  const listeners: ((c: ObjectChange) => void)[] = [];
  const emit = (c: ObjectChange): void => {
    for (const l of listeners) l(c);
  };
  for (const kind of WATCHED) {
    informers[kind].addHandlers({
      onAdd: (obj) => emit({ kind, action: 'create_request', obj }),
      onUpdate: (_old, obj) => emit({ kind, action: 'update_request', obj }),
      onDelete: (obj) => emit({ kind, action: 'delete_request', obj }),
    });
  }

  async function handleCluster(t: EventType, obj: KubeObject, signal: AbortSignal): Promise<KubeObject> {
    const res = client.resource(resourceTypes.managedClusters);
    const spec = (obj['spec'] ?? {}) as { hubAcceptsClient?: unknown };
    if (t.action === 'create_request') {
      // Acceptance is the hub admin's decision, never the agent's, whatever identity writes for it.
      if (spec.hubAcceptsClient === true) throw forbidden('an agent may not create its ManagedCluster already accepted (spec.hubAcceptsClient)');
      return res.create(forCreate(obj), { signal });
    }
    if (t.subResource === 'status') return res.updateStatus(obj, { signal });
    const current = await res.get(obj.metadata.name ?? '', { signal });
    const was = ((current['spec'] ?? {}) as { hubAcceptsClient?: unknown }).hubAcceptsClient === true;
    if ((spec.hubAcceptsClient === true) !== was) throw forbidden('an agent may not change spec.hubAcceptsClient of its ManagedCluster');
    return res.update(obj, { signal });
  }

  return {
    async handle(kind, t, obj, user, signal) {
      const ns = obj.metadata.namespace;
      switch (kind) {
        case 'managedClusters':
          return handleCluster(t, obj, signal);
        case 'csrs': {
          // The hub creates the CSR; the annotation records the agent it acts for (the approver's requester).
          const csr = forCreate(obj);
          csr.metadata = { ...csr.metadata, annotations: { [annotations.csrUser]: user.name } };
          return client.resource(o.csrResource).create(csr, { signal });
        }
        case 'leases':
          return client.resource(resourceTypes.leases, ns).update(obj, { signal });
        case 'events': {
          const res = client.resource(resourceTypes.eventsV1, ns);
          if (t.action === 'create_request') return res.create(forCreate(obj), { signal });
          // An update only moves the series on (count and last observed time), as OCM's service.
          let last: KubeObject;
          try {
            last = await res.get(obj.metadata.name ?? '', { signal });
          } catch (err) {
            if (err instanceof ApiStatusError && err.code === 404) return undefined;
            throw err;
          }
          return res.update({ ...last, series: obj['series'] }, { signal });
        }
        case 'managedClusterAddOns':
          return client.resource(resourceTypes.managedClusterAddOnsV1alpha1, ns).updateStatus(obj, { signal });
        case 'tokenRequests': {
          const name = obj.metadata.name ?? '';
          if (name === '' || ns === undefined || ns === '') throw badRequest('a token request names its service account (metadata.name and namespace)');
          const body = { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', metadata: {}, spec: obj['spec'] ?? {} };
          const path = `/api/v1/namespaces/${encodeURIComponent(ns)}/serviceaccounts/${encodeURIComponent(name)}/token`;
          const resp = await client.request<KubeObject>('POST', path, body, { signal });
          // The response answers the request by its uid (the agent's request id).
          return { ...resp, metadata: { ...resp.metadata, name, namespace: ns, ...(obj.metadata.uid !== undefined ? { uid: obj.metadata.uid } : {}) } };
        }
      }
    },
    list(kind, cluster) {
      switch (kind) {
        case 'managedClusters': {
          const c = informers.managedClusters.lister.get(cluster);
          return c ? [c] : [];
        }
        case 'csrs':
          return informers.csrs.lister.list({ labelSelector: `${labels.clusterName}=${cluster}` });
        case 'leases':
          return informers.leases.lister.list({ namespace: cluster, labelSelector: `${labels.clusterName}=${cluster}` });
        case 'managedClusterAddOns':
          return informers.managedClusterAddOns.lister.list({ namespace: cluster });
        default:
          return [];
      }
    },
    async start(signal) {
      factory.start(signal);
      // Add-ons are not waited for: a hub whose API cannot list v1alpha1 add-ons (no conversion
      // webhook) still serves registration; their events flow once that informer syncs.
      await Promise.all([informers.managedClusters, informers.csrs, informers.leases].map((i) => i.waitForSync(signal)));
    },
    onChange(fn) {
      listeners.push(fn);
    },
  };
}
