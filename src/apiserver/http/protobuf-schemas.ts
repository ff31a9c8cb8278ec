// Protobuf field numbers of the built-in kinds whose bodies kubectl sends in protobuf, from
// Kubernetes' generated.proto files: field number → [JSON name, type, repeated].

/** `strings`: a message wrapping `repeated string items = 1` (ExtraValue), written in JSON as a plain list. */
export type FieldType = 'string' | 'bytes' | 'int' | 'bool' | 'time' | 'microtime' | 'strings' | { msg: MessageSchema } | { map: 'string' | 'bytes' | 'strings' };
export type MessageSchema = Record<number, [name: string, type: FieldType, repeated?: boolean]>;

const S = 'string';
const msg = (m: MessageSchema): { msg: MessageSchema } => ({ msg: m });

const ownerReference: MessageSchema = { 1: ['kind', S], 3: ['name', S], 4: ['uid', S], 5: ['apiVersion', S], 6: ['controller', 'bool'], 7: ['blockOwnerDeletion', 'bool'] };

const objectMeta: MessageSchema = {
  1: ['name', S], 2: ['generateName', S], 3: ['namespace', S], 5: ['uid', S], 6: ['resourceVersion', S], 7: ['generation', 'int'],
  8: ['creationTimestamp', 'time'], 9: ['deletionTimestamp', 'time'], 10: ['deletionGracePeriodSeconds', 'int'],
  11: ['labels', { map: S }], 12: ['annotations', { map: S }], 13: ['ownerReferences', msg(ownerReference), true], 14: ['finalizers', S, true],
};
const meta: MessageSchema[number] = ['metadata', msg(objectMeta)];

const resourceAttributes: MessageSchema = { 1: ['namespace', S], 2: ['verb', S], 3: ['group', S], 4: ['version', S], 5: ['resource', S], 6: ['subresource', S], 7: ['name', S] };
const nonResourceAttributes: MessageSchema = { 1: ['path', S], 2: ['verb', S] };
const policyRule: MessageSchema = { 1: ['verbs', S, true], 2: ['apiGroups', S, true], 3: ['resources', S, true], 4: ['resourceNames', S, true], 5: ['nonResourceURLs', S, true] };
const subject: MessageSchema = { 1: ['kind', S], 2: ['apiGroup', S], 3: ['name', S], 4: ['namespace', S] };
const roleRef: MessageSchema = { 1: ['apiGroup', S], 2: ['kind', S], 3: ['name', S] };
const objectReference: MessageSchema = { 1: ['kind', S], 2: ['namespace', S], 3: ['name', S], 4: ['uid', S], 5: ['apiVersion', S], 6: ['resourceVersion', S], 7: ['fieldPath', S] };
const csrCondition: MessageSchema = { 1: ['type', S], 6: ['status', S], 2: ['reason', S], 3: ['message', S], 4: ['lastUpdateTime', 'time'], 5: ['lastTransitionTime', 'time'] };

const role: MessageSchema = { 1: meta, 2: ['rules', msg(policyRule), true] };
const binding: MessageSchema = { 1: meta, 2: ['subjects', msg(subject), true], 3: ['roleRef', msg(roleRef)] };

const eventSeries: MessageSchema = { 1: ['count', 'int'], 2: ['lastObservedTime', 'microtime'] };
const eventSource: MessageSchema = { 1: ['component', S], 2: ['host', S] };

/** meta/v1 DeleteOptions: the body of a DELETE, sent under the group version of the resource. */
export const DELETE_OPTIONS: MessageSchema = {
  1: ['gracePeriodSeconds', 'int'],
  2: ['preconditions', msg({ 1: ['uid', S], 2: ['resourceVersion', S] })],
  3: ['orphanDependents', 'bool'],
  4: ['propagationPolicy', S],
  5: ['dryRun', S, true],
};

/** By `apiVersion/kind`. */
export const PROTOBUF_KINDS: Record<string, MessageSchema> = {
  'v1/Namespace': { 1: meta, 2: ['spec', msg({ 1: ['finalizers', S, true] })], 3: ['status', msg({ 1: ['phase', S] })] },
  'v1/ConfigMap': { 1: meta, 2: ['data', { map: S }], 3: ['binaryData', { map: 'bytes' }], 4: ['immutable', 'bool'] },
  'v1/Secret': { 1: meta, 2: ['data', { map: 'bytes' }], 3: ['type', S], 4: ['stringData', { map: S }], 5: ['immutable', 'bool'] },
  'v1/ServiceAccount': { 1: meta, 2: ['secrets', msg(objectReference), true], 3: ['imagePullSecrets', msg({ 1: ['name', S] }), true], 4: ['automountServiceAccountToken', 'bool'] },
  'coordination.k8s.io/v1/Lease': {
    1: meta,
    2: ['spec', msg({ 1: ['holderIdentity', S], 2: ['leaseDurationSeconds', 'int'], 3: ['acquireTime', 'microtime'], 4: ['renewTime', 'microtime'], 5: ['leaseTransitions', 'int'] })],
  },
  // Events as client-go's recorders send them from protobuf clients (library-go's, OCM's agents).
  'v1/Event': {
    1: meta, 2: ['involvedObject', msg(objectReference)], 3: ['reason', S], 4: ['message', S], 5: ['source', msg(eventSource)],
    6: ['firstTimestamp', 'time'], 7: ['lastTimestamp', 'time'], 8: ['count', 'int'], 9: ['type', S], 10: ['eventTime', 'microtime'],
    11: ['series', msg(eventSeries)], 12: ['action', S], 13: ['related', msg(objectReference)], 14: ['reportingComponent', S], 15: ['reportingInstance', S],
  },
  'events.k8s.io/v1/Event': {
    1: meta, 2: ['eventTime', 'microtime'], 3: ['series', msg(eventSeries)], 4: ['reportingController', S], 5: ['reportingInstance', S],
    6: ['action', S], 7: ['reason', S], 8: ['regarding', msg(objectReference)], 9: ['related', msg(objectReference)], 10: ['note', S], 11: ['type', S],
    12: ['deprecatedSource', msg(eventSource)], 13: ['deprecatedFirstTimestamp', 'time'], 14: ['deprecatedLastTimestamp', 'time'], 15: ['deprecatedCount', 'int'],
  },
  'rbac.authorization.k8s.io/v1/Role': role,
  'rbac.authorization.k8s.io/v1/ClusterRole': role,
  'rbac.authorization.k8s.io/v1/RoleBinding': binding,
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': binding,
  'authorization.k8s.io/v1/SelfSubjectAccessReview': {
    1: meta, 2: ['spec', msg({ 1: ['resourceAttributes', msg(resourceAttributes)], 2: ['nonResourceAttributes', msg(nonResourceAttributes)] })],
  },
  'authorization.k8s.io/v1/SubjectAccessReview': {
    1: meta,
    2: ['spec', msg({
      1: ['resourceAttributes', msg(resourceAttributes)], 2: ['nonResourceAttributes', msg(nonResourceAttributes)],
      3: ['user', S], 4: ['groups', S, true], 5: ['extra', { map: 'strings' }], 6: ['uid', S],
    })],
  },
  'authorization.k8s.io/v1/SelfSubjectRulesReview': { 1: meta, 2: ['spec', msg({ 1: ['namespace', S] })] },
  'authentication.k8s.io/v1/SelfSubjectReview': { 1: meta },
  'certificates.k8s.io/v1/CertificateSigningRequest': {
    1: meta,
    2: ['spec', msg({
      1: ['request', 'bytes'], 7: ['signerName', S], 8: ['expirationSeconds', 'int'], 5: ['usages', S, true],
      2: ['username', S], 3: ['uid', S], 4: ['groups', S, true], 6: ['extra', { map: 'strings' }],
    })],
    3: ['status', msg({ 1: ['conditions', msg(csrCondition), true], 2: ['certificate', 'bytes'] })],
  },
};
