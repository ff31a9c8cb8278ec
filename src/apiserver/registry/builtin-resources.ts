// The built-in resources the OCM hub, the agent and kubectl use, as ServedResource descriptions.

import type { KubeObject } from '../../api/meta.js';
import type { ResourceDef } from '../pipeline.js';
import { builtinSchema } from './builtin-schemas.js';
import {
  configMapStrategy, leaseStrategy, namespaceStrategy, noStrategy, secretStrategy,
} from './builtin-strategies.js';
import { coreEventWire, coreToEventsV1, eventsV1ToCore } from './event-conversion.js';
import type { ResourceStrategy, ServedResource, SubresourceDef } from './types.js';

export const FULL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const SUB_VERBS = ['get', 'patch', 'update'];

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
  strategy?: ResourceStrategy;
  storage?: { group: string; resource: string };
  toVersion?: (o: KubeObject, v: string) => KubeObject;
  fromVersion?: (o: KubeObject, v: string) => KubeObject;
  categories?: string[];
  /** Largest stored object in bytes, where the kind is known to stay small. */
  maxObjectBytes?: number;
}

/** A CSR carries one PEM request of a few KiB; its status one certificate chain. */
const MAX_CSR_BYTES = 64 * 1024;
/** A Lease holds a holder identity and a few timestamps. */
const MAX_LEASE_BYTES = 32 * 1024;

function builtin(s: BuiltinSpec): ServedResource {
  const subresources = s.subresources ?? [];
  const schema = builtinSchema(s.group, s.version, s.kind);
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
    strategy: s.strategy ?? noStrategy,
    toVersion: s.toVersion,
    fromVersion: s.fromVersion,
    strategicMergePatch: true,
    ...(schema ? { pruningSchemas: { [s.version]: schema } } : {}),
    ...(s.maxObjectBytes !== undefined ? { maxObjectBytes: s.maxObjectBytes } : {}),
  };
}

const statusSub: SubresourceDef = { name: 'status', mode: 'status', verbs: SUB_VERBS };

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

/** Choices of served versions. */
export interface BuiltinVersionOptions {
  /**
   * The CertificateSigningRequest version served: `v1` (default), or `v1beta1` instead, as
   * kube-apiserver before 1.19 did, to exercise clients' fallback to it.
   */
  csrVersion?: 'v1' | 'v1beta1';
}

/**
 * All built-in resources; `overrides` add rules (CSR identity, approval checks) per group/resource;
 * `extraSubresources` adds subresources (serviceaccounts/token), keyed the same way.
 */
export function builtinResources(
  overrides: BuiltinStrategyOverrides = {},
  extraSubresources: Record<string, SubresourceDef[]> = {},
  versions: BuiltinVersionOptions = {},
): ServedResource[] {
  const list: BuiltinSpec[] = [
    {
      group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', namespaced: false, shortNames: ['ns'], nameRule: 'label',
      verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
      subresources: [statusSub, { name: 'finalize', mode: 'strategy', verbs: ['update'] }], strategy: namespaceStrategy,
    },
    { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true, shortNames: ['cm'], strategy: configMapStrategy },
    { group: '', version: 'v1', resource: 'secrets', kind: 'Secret', namespaced: true, strategy: secretStrategy },
    { group: '', version: 'v1', resource: 'serviceaccounts', kind: 'ServiceAccount', namespaced: true, shortNames: ['sa'] },
    { group: '', version: 'v1', resource: 'events', kind: 'Event', namespaced: true, shortNames: ['ev'], nameRule: 'path', toVersion: (o) => coreEventWire(o) },
    {
      group: '', version: 'v1', resource: 'nodes', kind: 'Node', namespaced: false, shortNames: ['no'],
      subresources: [statusSub],
    },
    { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true, shortNames: ['po'], subresources: [statusSub], categories: ['all'] },
    { group: '', version: 'v1', resource: 'services', kind: 'Service', namespaced: true, shortNames: ['svc'], subresources: [statusSub], categories: ['all'] },
    { group: '', version: 'v1', resource: 'endpoints', kind: 'Endpoints', namespaced: true, shortNames: ['ep'], singular: 'endpoints' },
    {
      group: 'events.k8s.io', version: 'v1', resource: 'events', kind: 'Event', namespaced: true, shortNames: ['ev'], nameRule: 'path',
      storage: { group: '', resource: 'events' },
      toVersion: (o) => coreToEventsV1(o), fromVersion: (o) => eventsV1ToCore(o),
    },
    { group: 'coordination.k8s.io', version: 'v1', resource: 'leases', kind: 'Lease', namespaced: true, strategy: leaseStrategy, maxObjectBytes: MAX_LEASE_BYTES },
    {
      group: 'certificates.k8s.io', version: versions.csrVersion ?? 'v1', resource: 'certificatesigningrequests', kind: 'CertificateSigningRequest',
      namespaced: false, shortNames: ['csr'], nameRule: 'path', maxObjectBytes: MAX_CSR_BYTES,
      subresources: [{ name: 'approval', mode: 'strategy', verbs: SUB_VERBS }, statusSub],
    },
    { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'roles', kind: 'Role', namespaced: true, nameRule: 'path' },
    { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'rolebindings', kind: 'RoleBinding', namespaced: true, nameRule: 'path' },
    { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterroles', kind: 'ClusterRole', namespaced: false, nameRule: 'path' },
    { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterrolebindings', kind: 'ClusterRoleBinding', namespaced: false, nameRule: 'path' },
    { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespaced: true, shortNames: ['deploy'], subresources: [statusSub], tracksGeneration: true, categories: ['all'] },
  ];
  return list.map((s) => {
    const extra = extraSubresources[`${s.group}/${s.resource}`] ?? [];
    const r = builtin({ ...s, subresources: [...(s.subresources ?? []), ...extra], hasStatus: s.hasStatus ?? (s.subresources ?? []).some((x) => x.name === 'status') });
    r.strategy = merge(r.strategy, overrides[`${s.group}/${s.resource}`]);
    return r;
  });
}
