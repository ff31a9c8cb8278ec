// The customresourcedefinitions resource: defaults, validation (schema module),
// the cleanup finalizer, storedVersions.

import type { KubeObject } from '../../api/meta.js';
import { asPlainObject } from '../../util/merge-patch.js';
import { FULL_VERBS } from './builtin-resources.js';
import { builtinSchema } from './builtin-schemas.js';
import { crdWarnings, validateCustomResourceDefinition } from './schema/index.js';
import type { ResourceStrategy, ServedResource } from './types.js';

export const CRD_GROUP = 'apiextensions.k8s.io';
export const CRD_CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

export interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  schema?: { openAPIV3Schema?: Record<string, unknown> };
  subresources?: { status?: Record<string, unknown>; scale?: Record<string, unknown> };
  additionalPrinterColumns?: { name: string; type: string; format?: string; description?: string; priority?: number; jsonPath: string }[];
}

interface CrdNames {
  plural: string;
  singular?: string;
  kind: string;
  listKind?: string;
  shortNames?: string[];
  categories?: string[];
}

export interface CrdSpec {
  group: string;
  names: CrdNames;
  scope: 'Namespaced' | 'Cluster';
  versions: CrdVersion[];
  conversion?: { strategy?: string };
  preserveUnknownFields?: boolean;
}

export function crdSpec(obj: KubeObject): CrdSpec {
  return obj.spec as CrdSpec;
}

function applyDefaults(obj: KubeObject): void {
  const spec = asPlainObject(obj.spec);
  if (!spec) return;
  const names = asPlainObject(spec.names);
  if (names && typeof names.kind === 'string') {
    if (!names.singular) names.singular = names.kind.toLowerCase();
    if (!names.listKind) names.listKind = `${names.kind}List`;
  }
  const conv = asPlainObject(spec.conversion) ?? {};
  if (!conv.strategy) conv.strategy = 'None';
  spec.conversion = conv;
  if (Array.isArray(spec.versions)) {
    for (const v of spec.versions as Record<string, unknown>[]) {
      if (asPlainObject(v) && v.served === undefined) v.served = true;
    }
  }
}

function storageVersionOf(obj: KubeObject): string | undefined {
  const versions = (asPlainObject(obj.spec)?.versions ?? []) as CrdVersion[];
  return Array.isArray(versions) ? versions.find((v) => v?.storage === true)?.name : undefined;
}

export function crdStrategy(): ResourceStrategy {
  return {
    prepareForCreate(obj, ctx) {
      applyDefaults(obj);
      ctx.warnings?.push(...crdWarnings(obj));
      const fin = new Set(obj.metadata.finalizers ?? []);
      fin.add(CRD_CLEANUP_FINALIZER);
      obj.metadata.finalizers = [...fin];
      const sv = storageVersionOf(obj);
      obj.status = { conditions: [], acceptedNames: { plural: '', kind: '' }, storedVersions: sv ? [sv] : [] };
    },
    prepareForUpdate(obj, old, ctx) {
      if (ctx.subresource === '') {
        applyDefaults(obj);
        ctx.warnings?.push(...crdWarnings(obj));
        const sv = storageVersionOf(obj);
        const status = asPlainObject(obj.status) ?? {};
        const stored = Array.isArray(status.storedVersions) ? [...(status.storedVersions as string[])] : [];
        if (sv && !stored.includes(sv)) stored.push(sv);
        obj.status = { ...status, storedVersions: stored };
      }
      void old;
    },
    validate(obj, old) {
      return validateCustomResourceDefinition(obj, old);
    },
  };
}

export function crdResource(): ServedResource {
  return {
    def: {
      group: CRD_GROUP, versions: ['v1'], storageVersion: 'v1', resource: 'customresourcedefinitions',
      kind: 'CustomResourceDefinition', listKind: 'CustomResourceDefinitionList', singular: 'customresourcedefinition',
      shortNames: ['crd', 'crds'], categories: ['api-extensions'], namespaced: false, subresources: ['status'], verbs: FULL_VERBS,
    },
    storageGroup: CRD_GROUP,
    storageResource: 'customresourcedefinitions',
    hasStatus: true,
    tracksGeneration: true,
    nameRule: 'subdomain',
    custom: false,
    subresources: [{ name: 'status', mode: 'status', verbs: ['get', 'patch', 'update'] }],
    strategy: crdStrategy(),
    strategicMergePatch: true,
    pruningSchemas: { v1: builtinSchema(CRD_GROUP, 'v1', 'CustomResourceDefinition') ?? {} },
  };
}
