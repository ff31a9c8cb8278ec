// PATCH entry point: picks the algorithm from the Content-Type, applies it to the
// stored object and returns the patched object. Everything here is pure; the caller runs the
// result through the update path and handles 404 for non-apply patches on missing objects.

import type { KubeObject, ManagedFieldsEntry } from '../../api/meta.js';
import { errorMessage } from '../../util/errors.js';
import { isPlainObject } from '../../util/merge-patch.js';
import { parseYaml } from '../../util/yaml.js';
import { errors, fieldErrors, type FieldError } from '../http/errors.js';
import { fieldManagerErrors } from '../http/field-manager.js';
import { nestingDepthMessage, valueTooDeep } from '../http/json-depth.js';
import type { JSONSchemaProps } from '../registry/schema/types.js';
import { applyTypeFromFieldMeta, applyTypeFromSchema, type ApplyType } from './apply-types.js';
import { applyJsonPatch, decodeJsonPatch } from './json-patch.js';
import { parseJson, type JsonObject, type JsonValue } from './json.js';
import { builtinFieldMeta } from './merge-keys.js';
import { applyMergePatch, decodeMergePatch } from './merge-patch.js';
import { serverSideApply, updateManagedFields } from './server-side-apply.js';
import { applyStrategicMergePatch } from './strategic-merge-patch.js';

const JSON_PATCH = 'application/json-patch+json';
const MERGE_PATCH = 'application/merge-patch+json';
const STRATEGIC_MERGE_PATCH = 'application/strategic-merge-patch+json';
export const APPLY_PATCH = 'application/apply-patch+yaml';

export const BUILTIN_PATCH_TYPES = [JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH, APPLY_PATCH];
export const CUSTOM_RESOURCE_PATCH_TYPES = [JSON_PATCH, MERGE_PATCH, APPLY_PATCH];

export interface ApplyPatchOptions {
  /** Content-Type header; parameters (`; charset=utf-8`) are ignored. */
  contentType: string;
  patch: Buffer | string;
  /** Stored object; undefined only for server-side apply (creates). */
  current: KubeObject | undefined;
  isCustomResource: boolean;
  /** API group ('' for core); selects the built-in merge-key table. */
  group?: string;
  kind: string;
  /** apiVersion of the request URL, e.g. `v1` or `cluster.open-cluster-management.io/v1`. */
  apiVersion: string;
  fieldManager?: string;
  force?: boolean;
  /** CRD version schema: drives list merging for apply on custom resources. */
  schema?: JSONSchemaProps;
  /** Treat strategic merge patch as merge patch on custom resources (`--smp-on-crs=merge`). */
  strategicAsMergeOnCustomResources?: boolean;
  /** RFC 3339 time for managedFields entries written by apply (the caller's clock). */
  now?: string;
  /** 'status' when patching /status. */
  subresource?: string;
  /** Top-level fields an apply must ignore (e.g. ['status'] on a main resource with /status). */
  ignoredFields?: string[];
}

/** The media type without parameters, lower-cased. */
export function patchMediaType(contentType: string): string {
  return (contentType.split(';')[0] ?? '').trim().toLowerCase();
}

/** Validates a PATCH's query options (fieldManager, force); throws 422 on PatchOptions.meta.k8s.io. */
function validatePatchOptions(o: { mediaType: string; fieldManager?: string; force?: boolean }): void {
  const causes: FieldError[] = [];
  const isApply = o.mediaType === APPLY_PATCH;
  if (isApply && !o.fieldManager) causes.push(fieldErrors.required('fieldManager', 'is required for apply patch'));
  if (o.fieldManager !== undefined) causes.push(...fieldManagerErrors(o.fieldManager));
  if (!isApply && o.force !== undefined) causes.push(fieldErrors.forbidden('force', 'may not be specified for non-apply patch'));
  if (causes.length > 0) throw errors.invalidOptions('PatchOptions', causes);
}

const schemaTypes = new WeakMap<JSONSchemaProps, ApplyType | undefined>();
const builtinTypes = new Map<string, ApplyType | undefined>();

/** Apply type information for a kind: the CRD schema for custom resources, else the built-in table. */
function applyTypeFor(o: { isCustomResource: boolean; group?: string; kind: string; schema?: JSONSchemaProps }): ApplyType | undefined {
  if (!o.isCustomResource) {
    const key = `${o.group ?? ''}/${o.kind}`;
    if (!builtinTypes.has(key)) builtinTypes.set(key, applyTypeFromFieldMeta(builtinFieldMeta(o.group ?? '', o.kind)));
    return builtinTypes.get(key);
  }
  if (!o.schema) return undefined;
  // A CRD version's schema object lives as long as the CRD is served: compute its types once.
  if (!schemaTypes.has(o.schema)) schemaTypes.set(o.schema, applyTypeFromSchema(o.schema));
  return schemaTypes.get(o.schema);
}

function asKubeObject(v: JsonValue): KubeObject {
  if (!isPlainObject(v)) throw errors.unprocessable('the patched document is not a JSON object');
  const out = v as unknown as KubeObject;
  if (!isPlainObject(out.metadata)) out.metadata = {};
  return out;
}

function decodeApplyBody(body: string): JsonObject {
  let doc: unknown;
  const json = parseJson(body);
  if (json.ok) doc = json.value;
  else if (json.error === nestingDepthMessage()) throw errors.badRequest(`error decoding YAML: ${json.error}`);
  else {
    try {
      doc = parseYaml(body);
    } catch (e) {
      throw errors.badRequest(`error decoding YAML: ${errorMessage(e)}`);
    }
    if (valueTooDeep(doc)) throw errors.badRequest(`error decoding YAML: ${nestingDepthMessage()}`);
  }
  if (!isPlainObject(doc)) throw errors.badRequest('error decoding YAML: the applied configuration must be an object');
  return doc as JsonObject; // parsed JSON or YAML holds JSON values only
}

/**
 * Applies a PATCH body to the stored object. Throws 415 for unknown types (and strategic merge
 * patch on custom resources), 400 for malformed bodies, 422 for JSON Patch operations that do not
 * apply and bad PatchOptions, 409 for apply conflicts.
 */
export function applyPatch(o: ApplyPatchOptions): KubeObject {
  let mediaType = patchMediaType(o.contentType);
  const accepted = o.isCustomResource ? CUSTOM_RESOURCE_PATCH_TYPES : BUILTIN_PATCH_TYPES;
  if (mediaType === STRATEGIC_MERGE_PATCH && o.isCustomResource && o.strategicAsMergeOnCustomResources) mediaType = MERGE_PATCH;
  if (!accepted.includes(mediaType)) throw errors.unsupportedMediaType(accepted);
  validatePatchOptions({ mediaType, ...(o.fieldManager !== undefined ? { fieldManager: o.fieldManager } : {}), ...(o.force !== undefined ? { force: o.force } : {}) });
  const body = typeof o.patch === 'string' ? o.patch : o.patch.toString('utf8');

  if (mediaType === APPLY_PATCH) {
    return serverSideApply({
      current: o.current,
      applied: decodeApplyBody(body),
      manager: o.fieldManager as string,
      apiVersion: o.apiVersion,
      force: o.force === true,
      ...(o.now ? { time: o.now } : {}),
      type: applyTypeFor(o),
      ...(o.subresource ? { subresource: o.subresource } : {}),
      ...(o.ignoredFields ? { ignoredFields: o.ignoredFields } : {}),
    });
  }

  if (!o.current) throw errors.internal('patch of a missing object must be answered 404 by the caller');
  const current = structuredClone(o.current) as unknown as JsonObject;
  switch (mediaType) {
    case JSON_PATCH:
      return asKubeObject(applyJsonPatch(current, decodeJsonPatch(body)));
    case MERGE_PATCH:
      return asKubeObject(applyMergePatch(current, decodeMergePatch(body)));
    default: {
      const patch = decodeMergePatch(body);
      return asKubeObject(applyStrategicMergePatch(current, patch, builtinFieldMeta(o.group ?? '', o.kind)));
    }
  }
}

export interface ManagedFieldsUpdate {
  before: KubeObject | undefined;
  after: KubeObject;
  manager: string;
  apiVersion: string;
  now: string;
  isCustomResource: boolean;
  group?: string;
  kind: string;
  schema?: JSONSchemaProps;
  subresource?: string;
  /** Top-level fields the endpoint does not track (status on a main resource that has /status). */
  ignoredFields?: string[];
}

/**
 * `after` with managedFields updated for a non-apply write by `manager` (operation Update). When
 * the bookkeeping fails (a list item without its key field, say) the write goes ahead without
 * managedFields, as kube-apiserver drops them rather than keep a record it cannot trust.
 */
export function withUpdatedManagedFields(o: ManagedFieldsUpdate): KubeObject {
  let managedFields: ManagedFieldsEntry[];
  try {
    managedFields = updateManagedFields({
      before: o.before, after: o.after, manager: o.manager, apiVersion: o.apiVersion, time: o.now,
      type: applyTypeFor(o), ...(o.subresource ? { subresource: o.subresource } : {}),
      ...(o.ignoredFields ? { ignoredFields: o.ignoredFields } : {}),
      isCustomResource: o.isCustomResource,
    });
  } catch {
    managedFields = [];
  }
  const metadata = { ...o.after.metadata };
  if (managedFields.length > 0) metadata.managedFields = managedFields;
  else delete metadata.managedFields;
  return { ...o.after, metadata };
}
