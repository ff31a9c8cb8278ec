// OCM's CloudEvents type strings: `<group>.<version>.<resource>` names the kind of object carried
// (the data type, also what a subscription asks for), and `<data type>.<spec|status>.<action>` the
// event. The registration data types and extension names are those OCM's agent and server exchange.
// Pure.

export interface DataType {
  group: string;
  version: string;
  resource: string;
}

export type SubResource = 'spec' | 'status';
export type EventAction = 'create_request' | 'update_request' | 'delete_request' | 'resync_request' | 'resync_response' | 'watch_request';

const ACTIONS: readonly string[] = ['create_request', 'update_request', 'delete_request', 'resync_request', 'resync_response', 'watch_request'];

export interface EventType {
  dataType: DataType;
  subResource: SubResource;
  action: EventAction;
}

export const dataTypes = Object.freeze({
  managedClusters: Object.freeze({ group: 'cluster.open-cluster-management.io', version: 'v1', resource: 'managedclusters' }),
  csrs: Object.freeze({ group: 'certificates.k8s.io', version: 'v1', resource: 'certificatesigningrequests' }),
  leases: Object.freeze({ group: 'coordination.k8s.io', version: 'v1', resource: 'leases' }),
  events: Object.freeze({ group: 'events.k8s.io', version: 'v1', resource: 'events' }),
  managedClusterAddOns: Object.freeze({ group: 'addon.open-cluster-management.io', version: 'v1alpha1', resource: 'managedclusteraddons' }),
  tokenRequests: Object.freeze({ group: 'authentication.k8s.io', version: 'v1', resource: 'tokenrequests' }),
} satisfies Record<string, DataType>);

export type RegistrationKind = keyof typeof dataTypes;

/** Extension attribute names (without the `ce-` prefix). */
export const extensions = Object.freeze({
  resourceId: 'resourceid',
  resourceVersion: 'resourceversion',
  clusterName: 'clustername',
  originalSource: 'originalsource',
  deletionTimestamp: 'deletiontimestamp',
  time: 'time',
});

/** The type of the keep-alive events a server sends on every subscription stream. */
export const HEARTBEAT_EVENT_TYPE = 'io.open-cluster-management.cloudevents.heartbeat';

/** The `source` of events our hub sends, as OCM's server names the Kubernetes-backed services. */
export const HUB_EVENT_SOURCE = 'kube';

export class EventTypeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EventTypeError';
  }
}

export function formatDataType(t: DataType): string {
  return `${t.group}.${t.version}.${t.resource}`;
}

export function formatEventType(t: EventType): string {
  return `${formatDataType(t.dataType)}.${t.subResource}.${t.action}`;
}

export function sameDataType(a: DataType, b: DataType): boolean {
  return a.group === b.group && a.version === b.version && a.resource === b.resource;
}

/** `<group...>.<version>.<resource>`: the group is everything before the last two dot-separated parts. */
export function parseDataType(s: string): DataType {
  const parts = s.split('.');
  if (parts.length < 3 || parts.some((p) => p === '')) throw new EventTypeError(`unsupported cloudevents data type format: ${JSON.stringify(s)}`);
  return { group: parts.slice(0, -2).join('.'), version: parts[parts.length - 2]!, resource: parts[parts.length - 1]! };
}

export function parseEventType(s: string): EventType {
  const parts = s.split('.');
  if (parts.length < 5 || parts.some((p) => p === '')) throw new EventTypeError(`unsupported cloudevents type format: ${JSON.stringify(s)}`);
  const sub = parts[parts.length - 2]!;
  if (sub !== 'spec' && sub !== 'status') throw new EventTypeError(`unsupported subresource ${JSON.stringify(sub)}`);
  const action = parts[parts.length - 1]!;
  if (!ACTIONS.includes(action)) throw new EventTypeError(`unsupported action ${JSON.stringify(action)}`);
  return { dataType: parseDataType(parts.slice(0, -2).join('.')), subResource: sub, action: action as EventAction };
}

/** Which registration kind a data type is; undefined for others (work, unknown). */
export function registrationKind(t: DataType): RegistrationKind | undefined {
  for (const [k, v] of Object.entries(dataTypes)) if (sameDataType(v, t)) return k as RegistrationKind;
  return undefined;
}

/** The payload of a resync request: the versions the sender holds, by resource id. */
interface ResourceVersionList {
  resourceVersions: { resourceID: string; resourceVersion: number }[];
}

/** Parses a resync request's data; garbage is an EventTypeError. */
export function parseResyncRequest(data: Buffer | undefined): ResourceVersionList {
  let v: unknown;
  try {
    v = JSON.parse((data ?? Buffer.from('{}')).toString('utf8'));
  } catch {
    throw new EventTypeError('resync request data is not JSON');
  }
  const list = (v as { resourceVersions?: unknown } | null)?.resourceVersions ?? [];
  if (!Array.isArray(list)) throw new EventTypeError('resync request resourceVersions is not a list');
  const out: ResourceVersionList['resourceVersions'] = [];
  for (const item of list) {
    const id = (item as { resourceID?: unknown } | null)?.resourceID;
    const rv = (item as { resourceVersion?: unknown } | null)?.resourceVersion;
    if (typeof id !== 'string') throw new EventTypeError('resync request entry without resourceID');
    out.push({ resourceID: id, resourceVersion: typeof rv === 'number' && Number.isFinite(rv) ? rv : 0 });
  }
  return { resourceVersions: out };
}
