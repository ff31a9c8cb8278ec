// Structural schemas of the built-in kinds, used only to prune unknown fields from incoming objects
// (as kube-apiserver's typed decoding drops them). Each kind is modelled at the top level and in
// its well-known parts (spec, status, conditions, references); deeper parts that the server does
// not interpret, such as a Pod's containers or a CRD's openAPIV3Schema, are kept as they come.
// The field names are those of the Kubernetes API (checked against the published OpenAPI models in
// builtin-schemas.test.ts).

import type { JSONSchemaProps } from './schema/types.js';

/** A field whose content is kept whole (scalars, maps, and parts not modelled here). */
const ANY: JSONSchemaProps = { 'x-kubernetes-preserve-unknown-fields': true };

/** An object keeping the space-separated `names` (content kept whole) plus the modelled `nested` fields. */
function fields(names: string, nested: Record<string, JSONSchemaProps> = {}): JSONSchemaProps {
  const properties: Record<string, JSONSchemaProps> = {};
  for (const n of names.split(/\s+/)) if (n) properties[n] = ANY;
  return { type: 'object', properties: { ...properties, ...nested } };
}

function listOf(items: JSONSchemaProps): JSONSchemaProps {
  return { type: 'array', items };
}

/** A top-level kind: apiVersion, kind and metadata (pruned to ObjectMeta by the pruner) plus `names`/`nested`. */
function kind(names: string, nested: Record<string, JSONSchemaProps> = {}): JSONSchemaProps {
  return fields(`apiVersion kind metadata ${names}`, nested);
}

const condition = fields('lastTransitionTime message reason status type');
const conditionWithGeneration = fields('lastTransitionTime message observedGeneration reason status type');
const objectReference = fields('apiVersion fieldPath kind name namespace resourceVersion uid');
const eventSource = fields('component host');
const eventSeries = fields('count lastObservedTime');
const policyRule = fields('apiGroups nonResourceURLs resourceNames resources verbs');
const roleRef = fields('apiGroup kind name');
const subject = fields('apiGroup kind name namespace');
const resourceAttributes = fields('fieldSelector group labelSelector name namespace resource subresource verb version');
const nonResourceAttributes = fields('path verb');
const accessReviewStatus = fields('allowed denied evaluationError reason');

const namespace = kind('', {
  spec: fields('finalizers'),
  status: fields('phase', { conditions: listOf(condition) }),
});

const node = kind('', {
  spec: fields('configSource externalID podCIDR podCIDRs providerID unschedulable', {
    taints: listOf(fields('effect key timeAdded value')),
  }),
  status: fields('allocatable capacity config daemonEndpoints features images phase runtimeHandlers volumesAttached volumesInUse', {
    addresses: listOf(fields('address type')),
    conditions: listOf(fields('lastHeartbeatTime lastTransitionTime message reason status type')),
    nodeInfo: fields('architecture bootID containerRuntimeVersion kernelVersion kubeProxyVersion kubeletVersion machineID operatingSystem osImage swap systemUUID'),
  }),
});

const podSpec = fields(
  'activeDeadlineSeconds affinity automountServiceAccountToken containers dnsConfig dnsPolicy enableServiceLinks '
  + 'ephemeralContainers hostAliases hostIPC hostNetwork hostPID hostUsers hostname hostnameOverride imagePullSecrets '
  + 'initContainers nodeName nodeSelector os overhead preemptionPolicy priority priorityClassName readinessGates '
  + 'resourceClaims resources restartPolicy runtimeClassName schedulerName schedulingGates securityContext '
  + 'serviceAccount serviceAccountName setHostnameAsFQDN shareProcessNamespace subdomain '
  + 'terminationGracePeriodSeconds tolerations topologySpreadConstraints volumes',
);

const pod = kind('', {
  spec: podSpec,
  status: fields(
    'containerStatuses ephemeralContainerStatuses extendedResourceClaimStatus hostIP hostIPs initContainerStatuses '
    + 'message nominatedNodeName observedGeneration phase podIP podIPs qosClass reason resize resourceClaimStatuses startTime',
    { conditions: listOf(fields('lastProbeTime lastTransitionTime message observedGeneration reason status type')) },
  ),
});

const service = kind('', {
  spec: fields(
    'allocateLoadBalancerNodePorts clusterIP clusterIPs externalIPs externalName externalTrafficPolicy '
    + 'healthCheckNodePort internalTrafficPolicy ipFamilies ipFamilyPolicy loadBalancerClass loadBalancerIP '
    + 'loadBalancerSourceRanges publishNotReadyAddresses selector sessionAffinity sessionAffinityConfig trafficDistribution type',
    { ports: listOf(fields('appProtocol name nodePort port protocol targetPort')) },
  ),
  status: fields('loadBalancer', { conditions: listOf(conditionWithGeneration) }),
});

const endpointAddress = fields('hostname ip nodeName', { targetRef: objectReference });

const endpoints = kind('', {
  subsets: listOf(fields('', {
    addresses: listOf(endpointAddress),
    notReadyAddresses: listOf(endpointAddress),
    ports: listOf(fields('appProtocol name port protocol')),
  })),
});

const coreEvent = kind('action count eventTime firstTimestamp lastTimestamp message reason reportingComponent reportingInstance type', {
  involvedObject: objectReference,
  related: objectReference,
  series: eventSeries,
  source: eventSource,
});

const eventsV1Event = kind('action deprecatedCount deprecatedFirstTimestamp deprecatedLastTimestamp eventTime note reason reportingController reportingInstance type', {
  deprecatedSource: eventSource,
  regarding: objectReference,
  related: objectReference,
  series: eventSeries,
});

const lease = kind('', {
  spec: fields('acquireTime holderIdentity leaseDurationSeconds leaseTransitions preferredHolder renewTime strategy'),
});

const certificateSigningRequest = kind('', {
  spec: fields('expirationSeconds extra groups request signerName uid usages username'),
  status: fields('certificate', { conditions: listOf(fields('lastTransitionTime lastUpdateTime message reason status type')) }),
});

const deployment = kind('', {
  spec: fields('minReadySeconds paused progressDeadlineSeconds replicas revisionHistoryLimit selector strategy template'),
  status: fields('availableReplicas collisionCount observedGeneration readyReplicas replicas terminatingReplicas unavailableReplicas updatedReplicas', {
    conditions: listOf(fields('lastTransitionTime lastUpdateTime message reason status type')),
  }),
});

const crdNames = fields('categories kind listKind plural shortNames singular');

const customResourceDefinition = kind('', {
  spec: fields('group preserveUnknownFields scope', {
    conversion: fields('strategy webhook'),
    names: crdNames,
    versions: listOf(fields('additionalPrinterColumns deprecated deprecationWarning name selectableFields served storage', {
      schema: fields('openAPIV3Schema'),
      subresources: fields('scale status'),
    })),
  }),
  status: fields('storedVersions', { acceptedNames: crdNames, conditions: listOf(condition) }),
});

const subjectAccessReview = kind('', {
  spec: fields('extra groups uid user', { nonResourceAttributes, resourceAttributes }),
  status: accessReviewStatus,
});

const SCHEMAS: Record<string, JSONSchemaProps> = {
  'v1/Namespace': namespace,
  'v1/ConfigMap': kind('binaryData data immutable'),
  'v1/Secret': kind('data immutable stringData type'),
  'v1/ServiceAccount': kind('automountServiceAccountToken', {
    imagePullSecrets: listOf(fields('name')),
    secrets: listOf(objectReference),
  }),
  'v1/Event': coreEvent,
  'v1/Node': node,
  'v1/Pod': pod,
  'v1/Service': service,
  'v1/Endpoints': endpoints,
  'events.k8s.io/v1/Event': eventsV1Event,
  'coordination.k8s.io/v1/Lease': lease,
  'certificates.k8s.io/v1/CertificateSigningRequest': certificateSigningRequest,
  'rbac.authorization.k8s.io/v1/Role': kind('', { rules: listOf(policyRule) }),
  'rbac.authorization.k8s.io/v1/ClusterRole': kind('', { rules: listOf(policyRule), aggregationRule: fields('clusterRoleSelectors') }),
  'rbac.authorization.k8s.io/v1/RoleBinding': kind('', { roleRef, subjects: listOf(subject) }),
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': kind('', { roleRef, subjects: listOf(subject) }),
  'apps/v1/Deployment': deployment,
  'apiextensions.k8s.io/v1/CustomResourceDefinition': customResourceDefinition,
  'authorization.k8s.io/v1/SubjectAccessReview': subjectAccessReview,
  'authorization.k8s.io/v1/LocalSubjectAccessReview': subjectAccessReview,
  'authorization.k8s.io/v1/SelfSubjectAccessReview': kind('', {
    spec: fields('', { nonResourceAttributes, resourceAttributes }),
    status: accessReviewStatus,
  }),
  'authorization.k8s.io/v1/SelfSubjectRulesReview': kind('', {
    spec: fields('namespace'),
    status: fields('evaluationError incomplete nonResourceRules resourceRules'),
  }),
  'authentication.k8s.io/v1/SelfSubjectReview': kind('', { status: fields('userInfo') }),
  'authentication.k8s.io/v1/TokenRequest': kind('', {
    spec: fields('audiences expirationSeconds', { boundObjectRef: fields('apiVersion kind name uid') }),
    status: fields('expirationTimestamp token'),
  }),
};

/** The pruning schema of a built-in kind in one API version (`''` for the core group); undefined if not built in. */
export function builtinSchema(group: string, version: string, kindName: string): JSONSchemaProps | undefined {
  return SCHEMAS[`${group ? `${group}/` : ''}${version}/${kindName}`];
}

/** Every built-in schema, keyed `<group>/<version>/<kind>` (core: `v1/<kind>`); for tests. */
export function builtinSchemaKeys(): string[] {
  return Object.keys(SCHEMAS);
}
