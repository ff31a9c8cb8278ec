// Serving the custom resources of an established CRD: one ServedResource for all served
// versions; objects stored in the storage version, other versions by rewriting apiVersion.

import type { KubeObject } from '../../api/meta.js';
import type { FieldError } from '../http/errors.js';
import { FULL_VERBS } from './builtin-resources.js';
import type { CrdSpec, CrdVersion } from './crd-resource.js';
import { reportUnknownFields } from './schema/index.js';
import type { PrinterColumn, ResourceStrategy, ServedResource, StrategyContext } from './types.js';

/** Structural-schema operations on one version's openAPIV3Schema (provided by the schema module). */
export interface SchemaOps {
  /** Removes unknown fields in place; returns the pruned paths (for warnings / strict mode). */
  prune(obj: KubeObject, schema: Record<string, unknown>): string[];
  /** Applies defaults in place. */
  applyDefaults(obj: KubeObject, schema: Record<string, unknown>): void;
  /** Whether applyDefaults would change the object (without changing it). */
  needsDefaults(obj: KubeObject, schema: Record<string, unknown>): boolean;
  /** Field errors of the object against the schema. */
  validate(obj: KubeObject, schema: Record<string, unknown>): FieldError[];
}

function schemaOf(v: CrdVersion | undefined): Record<string, unknown> | undefined {
  return v?.schema?.openAPIV3Schema;
}

export function customResource(spec: CrdSpec, ops: SchemaOps | undefined): ServedResource {
  const served = spec.versions.filter((v) => v.served !== false);
  const storage = spec.versions.find((v) => v.storage) ?? spec.versions[0];
  const storageVersion = storage?.name ?? 'v1';
  const hasStatus = Boolean(storage?.subresources?.status);
  const names = spec.names;
  const group = spec.group;
  const versionNames = served.map((v) => v.name);
  const byName = new Map(spec.versions.map((v) => [v.name, v]));
  const storageSchema = schemaOf(storage);
  const printerColumns: Record<string, PrinterColumn[]> = {};
  for (const v of served) printerColumns[v.name] = (v.additionalPrinterColumns ?? []).map((c) => ({ ...c }));
  // Without conversion webhooks an object keeps the shape of the version it was written in (only
  // apiVersion is rewritten), so it is defaulted, pruned and validated against that version's schema.
  const schemaFor = (ctx: StrategyContext): Record<string, unknown> | undefined =>
    (ctx.version ? schemaOf(byName.get(ctx.version)) : undefined) ?? storageSchema;
  const prepare = (obj: KubeObject, ctx: StrategyContext): void => {
    const schema = schemaFor(ctx);
    if (!ops || !schema) return;
    ops.applyDefaults(obj, schema);
    reportUnknownFields(ops.prune(obj, schema), ctx.fieldValidation, ctx.warnings);
  };
  const strategy: ResourceStrategy = {
    prepareForCreate: prepare,
    prepareForUpdate: (obj, _old, ctx) => prepare(obj, ctx),
    validate(obj, _old, ctx) {
      const schema = schemaFor(ctx);
      return ops && schema ? ops.validate(obj, schema) : [];
    },
  };
  const subresources = hasStatus ? [{ name: 'status', mode: 'status' as const, verbs: ['get', 'patch', 'update'] }] : [];
  return {
    def: {
      group, versions: versionNames, storageVersion, resource: names.plural, kind: names.kind,
      listKind: names.listKind ?? `${names.kind}List`, singular: names.singular ?? names.kind.toLowerCase(),
      shortNames: names.shortNames ?? [], categories: names.categories ?? [],
      namespaced: spec.scope === 'Namespaced', subresources: subresources.map((s) => s.name), verbs: FULL_VERBS,
    },
    storageGroup: group,
    storageResource: names.plural,
    hasStatus,
    tracksGeneration: true,
    nameRule: 'subdomain',
    custom: true,
    subresources,
    strategy,
    printerColumns,
    schemas: Object.fromEntries(served.flatMap((v) => (schemaOf(v) ? [[v.name, schemaOf(v) as Record<string, unknown>]] : []))),
    toVersion(obj, version) {
      const out = { ...obj, apiVersion: `${group}/${version}`, kind: names.kind };
      const schema = schemaOf(byName.get(version));
      // Stored objects are shared (watch events, caches): defaulting on read works on a copy, and
      // only when there is a default to apply.
      if (ops && schema && ops.needsDefaults(out, schema)) {
        const copy = structuredClone(out);
        ops.applyDefaults(copy, schema);
        return copy;
      }
      return out;
    },
    fromVersion(obj) {
      return { ...obj, apiVersion: `${group}/${storageVersion}`, kind: names.kind };
    },
    strategicMergePatch: false,
  };
}
