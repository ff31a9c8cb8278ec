// The built-in resources (§3.2) as ServedResource descriptions.

import type { KubeObject } from '../../api/meta.js';
import type { ResourceDef } from '../pipeline.js';
import {
  configMapStrategy, leaseStrategy, namespaceStrategy, noStrategy, secretStrategy,
} from './builtin-strategies.js';
import { coreToEventsV1, eventsV1ToCore } from './event-conversion.js';
import type { FieldGetter, ResourceStrategy, ServedResource, SubresourceDef } from './types.js';

export const FULL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const SUB_VERBS = ['get', 'patch', 'update'];

function path(obj: KubeObject, dotted: string): string | undefined {
  let cur: unknown = obj;
  for (const p of dotted.split('.')) {
    if (typeof cur !== 'object' || cur === null) return undefined;
    cur = (cur as Record<string, unknown>)[p];
  }
  if (cur === undefined || cur === null) return undefined;
  return typeof cur === 'string' ? cur : JSON.stringify(cur);
}

function fields(names: string[], alias: Record<string, string> = {}): Record<string, FieldGetter> {
  const out: Record<string, FieldGetter> = {};
  for (const n of names) {
    const target = alias[n] ?? n;
    out[n] = (o) => path(o, target);
  }
  return out;
}

interface BuiltinSpec {
  group: string;
  version: string;
  resource: string;
  kind: string;
  singular?: string;
  namespaced: boolean;
  shortNames?: string[];
  subresources?: SubresourceDef[];
  verbs?: string[];
  hasStatus?: boolean;
  tracksGeneration?: boolean;
  nameRule?: 'subdomain' | 'label' | 'path';
  fieldSelectors?: Record<string, FieldGetter>;
  strategy?: ResourceStrategy;
  storage?: { group: string; resource: string };
  toVersion?: (o: KubeObject, v: string) => KubeObject;
  fromVersion?: (o: KubeObject, v: string) => KubeObject;
  categories?: string[];
}

function builtin(s: BuiltinSpec): ServedResource {
  const subresources = s.subresources ?? [];
  const def: ResourceDef = {
    group: s.group,
    versions: [s.version],
    storageVersion: s.version,
    resource: s.resource,
    kind: s.kind,
    listKind: `${s.kind}List`,
    singular: s.singular ?? s.kind.toLowerCase(),
    shortNames: s.shortNames ?? [],
    categories: s.categories ?? [],
    namespaced: s.namespaced,
    subresources: subresources.map((x) => x.name),
    verbs: s.verbs ?? FULL_VERBS,
  };
  return {
    def,
    storageGroup: s.storage?.group ?? s.group,
    storageResource: s.storage?.resource ?? s.resource,
    hasStatus: s.hasStatus ?? subresources.some((x) => x.name === 'status'),
    tracksGeneration: s.tracksGeneration ?? false,
    nameRule: s.nameRule ?? 'subdomain',
    custom: false,
    subresources,
    fieldSelectors: s.fieldSelectors ?? {},
    strategy: s.strategy ?? noStrategy,
    toVersion: s.toVersion,
    fromVersion: s.fromVersion,
    strategicMergePatch: true,
  };
}

const statusSub: SubresourceDef = { name: 'status', mode: 'status', verbs: SUB_VERBS };

const coreEventFields = fields(
  ['involvedObject.kind', 'involvedObject.namespace', 'involvedObject.name', 'involvedObject.uid', 'involvedObject.apiVersion',
    'involvedObject.resourceVersion', 'involvedObject.fieldPath', 'reason', 'reportingComponent', 'source', 'type'],
  { source: 'source.component' },
);
const eventsV1Fields = fields(
  ['regarding.kind', 'regarding.namespace', 'regarding.name', 'regarding.uid', 'regarding.apiVersion',
    'regarding.resourceVersion', 'regarding.fieldPath', 'reason', 'reportingController', 'type'],
  {
    'regarding.kind': 'involvedObject.kind', 'regarding.namespace': 'involvedObject.namespace', 'regarding.name': 'involvedObject.name',
    'regarding.uid': 'involvedObject.uid', 'regarding.apiVersion': 'involvedObject.apiVersion',
    'regarding.resourceVersion': 'involvedObject.resourceVersion', 'regarding.fieldPath': 'involvedObject.fieldPath',
    reportingController: 'reportingComponent',
  },
);

export interface BuiltinStrategyOverrides {
  /** Strategies keyed by `<group>/<resource>` (core group = ''), merged over the built-in one. */
  [groupResource: string]: ResourceStrategy;
}

function merge(base: ResourceStrategy, extra: ResourceStrategy | undefined): ResourceStrategy {
  if (!extra) return base;
  return {
    prepareForCreate: (o, c) => { base.prepareForCreate?.(o, c); extra.prepareForCreate?.(o, c); },
    prepareForUpdate: (o, old, c) => { base.prepareForUpdate?.(o, old, c); extra.prepareForUpdate?.(o, old, c); },
    validate: (o, old, c) => [...(base.validate?.(o, old, c) ?? []), ...(extra.validate?.(o, old, c) ?? [])],
  };
}

/** All built-in resources; `overrides` add rules (CSR identity, approval checks) per group/resource. */
export function builtinResources(overrides: BuiltinStrategyOverrides = {}): ServedResource[] {
  const list: BuiltinSpec[] = [
    {
      group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', namespaced: false, shortNames: ['ns'], nameRule: 'label',
      verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
      subresources: [statusSub, { name: 'finalize', mode: 'strategy', verbs: ['update'] }],
      fieldSelectors: fields(['status.phase']), strategy: namespaceStrategy,
    },
    { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true, shortNames: ['cm'], strategy: configMapStrategy },
    { group: '', version: 'v1', resource: 'secrets', kind: 'Secret', namespaced: true, fieldSelectors: fields(['type']), strategy: secretStrategy },
    { group: '', version: 'v1', resource: 'serviceaccounts', kind: 'ServiceAccount', namespaced: true, shortNames: ['sa'] },
    { group: '', version: 'v1', resource: 'events', kind: 'Event', namespaced: true, shortNames: ['ev'], nameRule: 'path', fieldSelectors: coreEventFields },
    {
      group: '', version: 'v1', resource: 'nodes', kind: 'Node', namespaced: false, shortNames: ['no'],
      subresources: [statusSub], fieldSelectors: fields(['spec.unschedulable']),
    },
    { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true, shortNames: ['po'], subresources: [statusSub], categories: ['all'],
      fieldSelectors: fields(['spec.nodeName', 'spec.restartPolicy', 'spec.schedulerName', 'spec.serviceAccountName', 'status.phase', 'status.podIP']) },
    { group: '', version: 'v1', resource: 'services', kind: 'Service', namespaced: true, shortNames: ['svc'], subresources: [statusSub], categories: ['all'] },
    { group: '', version: 'v1', resource: 'endpoints', kind: 'Endpoints', namespaced: true, shortNames: ['ep'], singular: 'endpoints' },
    {
      group: 'events.k8s.io', version: 'v1', resource: 'events', kind: 'Event', namespaced: true, shortNames: ['ev'], nameRule: 'path',
      storage: { group: '', resource: 'events' }, fieldSelectors: eventsV1Fields,
      toVersion: (o) => coreToEventsV1(o), fromVersion: (o) => eventsV1ToCore(o),
    },
    { group: 'coordination.k8s.io', version: 'v1', resource: 'leases', kind: 'Lease', namespaced: true, strategy: leaseStrategy },
    {
      group: 'certificates.k8s.io', version: 'v1', resource: 'certificatesigningrequests', kind: 'CertificateSigningRequest',
      namespaced: false, shortNames: ['csr'], nameRule: 'path',
      subresources: [{ name: 'approval', mode: 'strategy', verbs: SUB_VERBS }, statusSub],
      fieldSelectors: fields(['spec.signerName']),
    },
    { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'roles', kind: 'Role', namespaced: true, nameRule: 'path' },
    { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'rolebindings', kind: 'RoleBinding', namespaced: true, nameRule: 'path' },
    { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterroles', kind: 'ClusterRole', namespaced: false, nameRule: 'path' },
    { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterrolebindings', kind: 'ClusterRoleBinding', namespaced: false, nameRule: 'path' },
    { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespaced: true, shortNames: ['deploy'], subresources: [statusSub], tracksGeneration: true, categories: ['all'] },
  ];
  return list.map((s) => {
    const r = builtin(s);
    r.strategy = merge(r.strategy, overrides[`${s.group}/${s.resource}`]);
    return r;
  });
}
