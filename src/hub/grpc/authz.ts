// What a gRPC caller must be allowed on the hub's API to publish or subscribe, as OCM's server asks
// kube-apiserver with a SubjectAccessReview: the namespace is the cluster the event names, the verb
// follows the action (create, update, delete, list for a resync, watch for a subscription) and the
// resource the data type. So a bootstrap identity gets what OCM's bootstrap ClusterRole grants and a
// cluster's agent what its cluster's RBAC grants, exactly as on the API path. Besides, the object an
// event carries must belong to the cluster the event names, or the review would be about another
// object than the one written. Pure.

import { labels } from '../../api/constants.js';
import type { KubeObject } from '../../api/meta.js';
import type { SubjectAccessReview } from '../../api/core.js';
import type { EventAction, EventType, RegistrationKind, SubResource } from '../../grpc/event-types.js';

export interface GrpcUser {
  name: string;
  groups: readonly string[];
}

type ResourceAttributes = NonNullable<SubjectAccessReview['spec']['resourceAttributes']>;

const VERBS: Partial<Record<EventAction, string>> = {
  create_request: 'create',
  update_request: 'update',
  delete_request: 'delete',
  watch_request: 'watch',
  resync_request: 'list',
};

export class GrpcAuthzError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GrpcAuthzError';
  }
}

/**
 * The resource attributes to review for `action` on `kind` in `cluster`; `objectName` names the
 * service account of a token request.
 */
export function accessAttributes(kind: RegistrationKind, cluster: string, t: Pick<EventType, 'action' | 'subResource'> & { dataType: { group: string; resource: string } }, objectName = ''): ResourceAttributes {
  const verb = VERBS[t.action];
  if (verb === undefined) throw new GrpcAuthzError(`unsupported action ${t.action}`);
  const attrs: ResourceAttributes = { verb, namespace: cluster, group: t.dataType.group, resource: t.dataType.resource };
  if (t.subResource === 'status') attrs.subresource = 'status';
  if (kind === 'managedClusters') attrs.name = cluster;
  if (kind === 'tokenRequests') {
    attrs.group = '';
    attrs.resource = 'serviceaccounts';
    attrs.subresource = 'token';
    if (verb === 'create') attrs.name = objectName;
    else if (verb === 'watch') attrs.verb = 'subscribe';
    else throw new GrpcAuthzError(`unsupported action ${t.action} for token requests`);
  }
  return attrs;
}

export function subjectAccessReview(user: GrpcUser, attrs: ResourceAttributes): SubjectAccessReview {
  return {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SubjectAccessReview',
    metadata: {},
    spec: { user: user.name, groups: [...user.groups], resourceAttributes: attrs },
  };
}

/** Why `obj` is not an object of `cluster` for `kind`; undefined when it is. */
export function clusterMismatch(kind: RegistrationKind, cluster: string, obj: KubeObject): string | undefined {
  if (cluster === '') return 'the event names no cluster (clustername extension)';
  const m = obj.metadata;
  if (kind === 'managedClusters') return m.name === cluster ? undefined : `ManagedCluster ${String(m.name)} is not cluster ${cluster}`;
  if (kind === 'csrs') {
    const label = m.labels?.[labels.clusterName];
    return label === cluster ? undefined : `the CSR's ${labels.clusterName} label ${String(label)} is not cluster ${cluster}`;
  }
  return m.namespace === cluster ? undefined : `namespace ${String(m.namespace)} is not cluster ${cluster}'s`;
}

/** The actions the hub accepts from agents per kind and subresource (what OCM's services handle). */
const ACCEPTED: Readonly<Record<RegistrationKind, readonly string[]>> = {
  managedClusters: ['spec.create_request', 'spec.update_request', 'status.update_request'],
  csrs: ['spec.create_request'],
  leases: ['spec.update_request', 'status.update_request'],
  events: ['spec.create_request', 'spec.update_request', 'status.create_request', 'status.update_request'],
  managedClusterAddOns: ['status.update_request'],
  tokenRequests: ['spec.create_request', 'status.create_request'],
};

export function acceptedAction(kind: RegistrationKind, sub: SubResource, action: EventAction): boolean {
  return ACCEPTED[kind].includes(`${sub}.${action}`);
}
