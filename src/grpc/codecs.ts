// Kubernetes objects ↔ CloudEvents, for the registration kinds OCM's agent and server exchange. An
// event names its object by the `resourceid` extension (the name; the uid for token requests), its
// cluster by `clustername` (the cluster's own name, a CSR's cluster-name label, else the namespace)
// and carries the object as JSON with its apiVersion and kind. Pure apart from the event id and time.

import { randomUUID } from 'node:crypto';
import { labels } from '../api/constants.js';
import type { KubeObject } from '../api/meta.js';
import { CLOUDEVENT_SPEC_VERSION, type CloudEvent } from './cloudevent.js';
import { dataTypes, EventTypeError, extensions, formatEventType, registrationKind, type EventType, type RegistrationKind } from './event-types.js';

const TYPE_META: Readonly<Record<RegistrationKind, { apiVersion: string; kind: string }>> = {
  managedClusters: { apiVersion: 'cluster.open-cluster-management.io/v1', kind: 'ManagedCluster' },
  csrs: { apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest' },
  leases: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease' },
  events: { apiVersion: 'events.k8s.io/v1', kind: 'Event' },
  managedClusterAddOns: { apiVersion: 'addon.open-cluster-management.io/v1alpha1', kind: 'ManagedClusterAddOn' },
  tokenRequests: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest' },
};

const JSON_CONTENT_TYPE = 'application/json';

function kindOf(t: EventType): RegistrationKind {
  const k = registrationKind(t.dataType);
  if (k === undefined) throw new EventTypeError(`unsupported cloudevents data type ${t.dataType.group}.${t.dataType.version}.${t.dataType.resource}`);
  return k;
}

/** The cluster an object of `kind` belongs to, as OCM's codecs derive it; '' when it has none. */
export function clusterNameOf(kind: RegistrationKind, obj: KubeObject): string {
  if (kind === 'managedClusters') return obj.metadata.name ?? '';
  if (kind === 'csrs') return obj.metadata.labels?.[labels.clusterName] ?? '';
  return obj.metadata.namespace ?? '';
}

/** The id OCM's codecs give an object of `kind`. */
export function resourceIdOf(kind: RegistrationKind, obj: KubeObject): string {
  return (kind === 'tokenRequests' ? obj.metadata.uid : obj.metadata.name) ?? '';
}

interface EncodeOptions {
  /** The sender: the agent's id on the agent side, `kube` on the hub. */
  source: string;
  type: EventType;
  /** Overrides the cluster derived from the object. */
  clusterName?: string;
  now?: Date;
}

/** `obj` as the event of `opts.type`; a CSR without the cluster-name label is refused, as OCM's codec does. */
export function encodeObject(obj: KubeObject, opts: EncodeOptions): CloudEvent {
  const kind = kindOf(opts.type);
  const clusterName = opts.clusterName ?? clusterNameOf(kind, obj);
  if (kind === 'csrs' && clusterName === '') throw new EventTypeError('no cluster name found for CSR');
  const ext: CloudEvent['extensions'] = {
    [extensions.clusterName]: clusterName,
    [extensions.originalSource]: '',
    [extensions.time]: opts.now ?? new Date(),
  };
  const id = resourceIdOf(kind, obj);
  if (id !== '') ext[extensions.resourceId] = id;
  const rv = obj.metadata.resourceVersion;
  if (kind !== 'tokenRequests' && rv !== undefined && rv !== '') ext[extensions.resourceVersion] = rv;
  const body = { ...obj, ...TYPE_META[kind] };
  return {
    id: randomUUID(),
    source: opts.source,
    specVersion: CLOUDEVENT_SPEC_VERSION,
    type: formatEventType(opts.type),
    dataContentType: JSON_CONTENT_TYPE,
    extensions: ext,
    data: Buffer.from(JSON.stringify(body), 'utf8'),
  };
}

/** The object an event carries; anything but a JSON object with metadata is an EventTypeError. */
export function decodeObject<T extends KubeObject = KubeObject>(e: CloudEvent): T {
  let v: unknown;
  try {
    v = JSON.parse((e.data ?? Buffer.alloc(0)).toString('utf8'));
  } catch {
    throw new EventTypeError(`event ${e.id}: data is not JSON`);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new EventTypeError(`event ${e.id}: data is not an object`);
  const o = v as { metadata?: unknown };
  if (o.metadata === undefined) o.metadata = {};
  if (typeof o.metadata !== 'object' || o.metadata === null || Array.isArray(o.metadata)) throw new EventTypeError(`event ${e.id}: metadata is not an object`);
  return v as T;
}

/** The resync request an agent sends for `kind`: the versions of the objects it holds. */
export function encodeResyncRequest(opts: { source: string; clusterName: string; kind: RegistrationKind; versions: { resourceID: string; resourceVersion: number }[]; now?: Date }): CloudEvent {
  return {
    id: randomUUID(),
    source: opts.source,
    specVersion: CLOUDEVENT_SPEC_VERSION,
    type: formatEventType({ dataType: dataTypes[opts.kind], subResource: 'spec', action: 'resync_request' }),
    dataContentType: JSON_CONTENT_TYPE,
    extensions: { [extensions.clusterName]: opts.clusterName, [extensions.originalSource]: '', [extensions.time]: opts.now ?? new Date() },
    data: Buffer.from(JSON.stringify({ resourceVersions: opts.versions }), 'utf8'),
  };
}
