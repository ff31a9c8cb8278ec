// Create and update, of objects and of their subresources: metadata rules, strategies, admission,
// no-op suppression, finalizer-driven removal. Objects passed in are in wire form; results are
// storage form.

import { rfc3339 } from '../../api/conditions.js';
import { apiVersionOf, type KubeObject, type ObjectMeta } from '../../api/meta.js';
import { jsonEqual } from '../../util/merge-patch.js';
import { ApiError, errors, fieldErrors, type FieldError } from '../http/errors.js';
import { MAX_NESTING_DEPTH, nestingDepthMessage, valueTooDeep } from '../http/json-depth.js';
import { withUpdatedManagedFields } from '../patch/index.js';
import type { StoredObject } from '../storage/types.js';
import { generateName, specPart, validateMetaFields, validateName } from './object-meta.js';
import {
  invalid, qr, runAdmission, translateStoreError, type RegistryContext, type RequestScope,
} from './rest-context.js';
import { pruneObject, reportUnknownFields } from './schema/index.js';
import type { JSONSchemaProps } from './schema/types.js';
import type { StrategyContext } from './types.js';
import { keyOf, toStorage } from './versions.js';

/**
 * Largest object stored, in bytes of JSON: etcd's default request limit (1.5 MiB), which
 * kube-apiserver inherits. Kinds known to stay small set a lower `maxObjectBytes`.
 */
const MAX_OBJECT_BYTES = 1536 * 1024;

export interface WriteResult {
  object: KubeObject;
  /** 201 for creates. */
  created: boolean;
  /** The update removed the object (finalizers emptied while deleting). */
  deleted?: boolean;
}

function strategyContext(ctx: RegistryContext, scope: RequestScope, subresource: string): StrategyContext {
  return {
    user: scope.user, subresource, now: ctx.now(), store: ctx.store, version: scope.version,
    ...(scope.fieldValidation ? { fieldValidation: scope.fieldValidation } : {}),
    ...(scope.warnings ? { warnings: scope.warnings } : {}),
  };
}

function namespaceKey(ns: string): string {
  return `/core/namespaces//${ns}`;
}

/** 404 for a missing namespace, 403 for a terminating one (create only). */
function checkNamespaceForCreate(ctx: RegistryContext, scope: RequestScope, name: string): void {
  if (!scope.served.def.namespaced) return;
  const ns = ctx.store.get(namespaceKey(scope.namespace));
  if (!ns) throw errors.notFound({ group: '', resource: 'namespaces' }, scope.namespace);
  if (ns.object.metadata.deletionTimestamp) {
    throw errors.namespaceTerminating(qr(scope.served), name, scope.namespace);
  }
}

function validateCommon(scope: RequestScope, obj: KubeObject, old: KubeObject | undefined, sctx: StrategyContext): void {
  const meta = obj.metadata;
  const errs: FieldError[] = [];
  if (!meta.name) errs.push(fieldErrors.required('metadata.name', 'name or generateName is required'));
  else errs.push(...validateName(meta.name, scope.served.nameRule));
  errs.push(...validateMetaFields(meta));
  if (old?.metadata.deletionTimestamp) {
    const before = new Set(old.metadata.finalizers ?? []);
    const added = (meta.finalizers ?? []).filter((f) => !before.has(f));
    if (added.length > 0) errs.push(fieldErrors.forbidden('metadata.finalizers', `no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => JSON.stringify(f)).join(', ')}}`));
  }
  errs.push(...(scope.served.strategy.validate?.(obj, old, sctx) ?? []));
  if (errs.length > 0) throw invalid(scope.served, meta.name ?? meta.generateName ?? '', errs);
}

const STRING_META_FIELDS = ['name', 'generateName', 'namespace', 'resourceVersion', 'uid', 'creationTimestamp', 'deletionTimestamp'] as const;

function normaliseMeta(meta: unknown): ObjectMeta {
  if (meta === undefined || meta === null) return {};
  if (typeof meta !== 'object' || Array.isArray(meta)) throw errors.badRequest('metadata must be an object');
  // kube-apiserver refuses these while decoding (a typed Go field), before any rule reads them.
  for (const field of STRING_META_FIELDS) {
    const v = (meta as Record<string, unknown>)[field];
    if (v !== undefined && v !== null && typeof v !== 'string') {
      throw errors.badRequest(`json: cannot unmarshal ${Array.isArray(v) ? 'array' : typeof v === 'object' ? 'object' : typeof v} into Go struct field ObjectMeta.metadata.${field} of type string`);
    }
  }
  return meta as ObjectMeta;
}

/**
 * The incoming wire-form object as the registry works on it: refused when nested too deeply for the
 * recursive code that follows, copied, stripped of the fields its kind does not define (built-ins;
 * reported as `fieldValidation` asks) and converted to the storage version.
 */
function decodeIncoming(scope: RequestScope, body: KubeObject): KubeObject {
  if (valueTooDeep(body, MAX_NESTING_DEPTH)) {
    throw errors.badRequest(`the object provided is unrecognized (must be of type ${scope.served.def.kind}): ${nestingDepthMessage()}`);
  }
  const copy = structuredClone(body);
  const schema = scope.served.pruningSchemas?.[scope.version];
  if (schema) reportUnknownFields(pruneObject(schema, copy), scope.fieldValidation, scope.warnings);
  return toStorage(scope.served, scope.version, copy);
}

/**
 * 413 when the object to store is larger than its kind allows; checked before validation, so an
 * oversized payload is refused before any work is spent parsing it.
 */
function checkObjectSize(scope: RequestScope, obj: KubeObject): void {
  const limit = scope.served.maxObjectBytes ?? MAX_OBJECT_BYTES;
  const size = Buffer.byteLength(JSON.stringify(obj));
  if (size > limit) throw errors.objectTooLarge(qr(scope.served), obj.metadata.name ?? '', size, limit);
}

/**
 * `obj` with the writer's `Update` entry in managedFields, when the request names a manager. Status
 * is not tracked on a main resource that has a /status subresource (its writes leave it alone).
 */
function recordManager(ctx: RegistryContext, scope: RequestScope, before: KubeObject | undefined, obj: KubeObject, sub: string): void {
  if (scope.fieldManager === undefined) return;
  const { served, version } = scope;
  const schema = served.custom ? served.schemas?.[version] as JSONSchemaProps | undefined : undefined;
  const { managedFields } = withUpdatedManagedFields({
    before, after: obj, manager: scope.fieldManager,
    apiVersion: apiVersionOf({ group: served.def.group, version }),
    now: rfc3339(new Date(ctx.now())),
    isCustomResource: served.custom, group: served.def.group, kind: served.def.kind,
    ...(schema ? { schema } : {}),
    ...(sub ? { subresource: sub } : {}),
    ...(sub === '' && served.hasStatus ? { ignoredFields: ['status'] } : {}),
  }).metadata;
  if (managedFields) obj.metadata.managedFields = managedFields;
  else delete obj.metadata.managedFields;
}

export function createObject(ctx: RegistryContext, scope: RequestScope, body: KubeObject): WriteResult {
  const { served } = scope;
  const obj = decodeIncoming(scope, body);
  obj.metadata = { ...normaliseMeta(obj.metadata) };
  // The writer owns what it sent, before the strategy and admission add to it, as kube-apiserver
  // records it; a custom resource's schema defaults come with the request there (they are applied
  // while decoding), so its writer owns them too.
  if (!served.custom) recordManager(ctx, scope, undefined, obj, '');
  const meta = obj.metadata;
  if (served.def.namespaced) {
    if (meta.namespace && meta.namespace !== scope.namespace) {
      throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    meta.namespace = scope.namespace;
  } else {
    delete meta.namespace;
  }
  if (meta.resourceVersion) throw errors.internal('resourceVersion should not be set on objects to be created');
  for (const f of ['uid', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'generation', 'selfLink'] as const) {
    delete (meta as Record<string, unknown>)[f];
  }
  if (served.custom && served.hasStatus) delete obj.status;
  const sctx = strategyContext(ctx, scope, '');
  served.strategy.prepareForCreate?.(obj, sctx);
  if (served.custom) recordManager(ctx, scope, undefined, obj, '');
  const nameGiven = Boolean(meta.name);
  if (!nameGiven && meta.generateName) meta.name = generateName(meta.generateName, ctx.random);
  checkNamespaceForCreate(ctx, scope, meta.name ?? meta.generateName ?? '');
  meta.uid = ctx.uuid();
  meta.creationTimestamp = rfc3339(new Date(ctx.now()));
  if (served.tracksGeneration) meta.generation = 1;
  runAdmission(ctx, scope, 'CREATE', '', meta.name ?? '', obj, undefined, 'mutate');
  checkObjectSize(scope, obj);
  validateCommon(scope, obj, undefined, sctx);
  runAdmission(ctx, scope, 'CREATE', '', meta.name ?? '', obj, undefined, 'validate');
  if (scope.dryRun) return { object: obj, created: true };
  for (let attempt = 0; ; attempt++) {
    const name = meta.name as string;
    try {
      return { object: ctx.store.create(keyOf(served, scope.namespace, name), obj).object, created: true };
    } catch (err) {
      const e = translateStoreError(err, served, name);
      if (e instanceof ApiError && e.reason === 'AlreadyExists' && !nameGiven && meta.generateName) {
        if (attempt < 8) {
          meta.name = generateName(meta.generateName, ctx.random);
          continue;
        }
        throw errors.nameGenerationFailed(qr(served), name);
      }
      throw e;
    }
  }
}

export interface UpdateOptions {
  subresource: string;
  /** Body RV empty: built-ins update unconditionally, CRs refuse (PUT); patches always allow it. */
  allowEmptyResourceVersion: boolean;
}

/** Builds the candidate object of an update from the body and the stored object. */
function mergeForUpdate(scope: RequestScope, incoming: KubeObject, current: KubeObject, sub: string): KubeObject {
  const { served } = scope;
  const cur = current.metadata;
  const subDef = served.subresources.find((s) => s.name === sub);
  let obj: KubeObject;
  if (sub !== '' && subDef?.mode === 'status') {
    obj = structuredClone(current);
    if (incoming.status === undefined) delete obj.status;
    else obj.status = incoming.status;
    return obj;
  }
  obj = incoming;
  obj.metadata = { ...normaliseMeta(obj.metadata) };
  const meta = obj.metadata;
  meta.uid = cur.uid;
  meta.creationTimestamp = cur.creationTimestamp;
  if (served.def.namespaced) meta.namespace = cur.namespace;
  else delete meta.namespace;
  for (const f of ['deletionTimestamp', 'deletionGracePeriodSeconds', 'generation'] as const) {
    if (cur[f] === undefined) delete meta[f];
    else (meta as Record<string, unknown>)[f] = cur[f];
  }
  delete meta.generateName;
  if (cur.generateName) meta.generateName = cur.generateName;
  if (sub === '' && served.hasStatus) {
    if (current.status === undefined) delete obj.status;
    else obj.status = structuredClone(current.status);
  }
  return obj;
}

/** What decides whether an update changes anything: all but the resourceVersion (managedFields count, so a client may reset them). */
function comparable(o: KubeObject): KubeObject {
  const meta = { ...o.metadata };
  delete meta.resourceVersion;
  return { ...o, metadata: meta };
}

/** Whether the stored object must be removed after this write (finalizers gone while deleting). */
function readyToRemove(obj: KubeObject): boolean {
  if (!obj.metadata.deletionTimestamp) return false;
  if ((obj.metadata.finalizers ?? []).length > 0) return false;
  const specFin = (obj.spec as { finalizers?: unknown } | undefined)?.finalizers;
  if (obj.kind === 'Namespace' && Array.isArray(specFin) && specFin.length > 0) return false;
  return true;
}

/** Update with an incoming wire-form object (PUT, and the result of a PATCH). */
export function updateObject(
  ctx: RegistryContext, scope: RequestScope, name: string, body: KubeObject, opts: UpdateOptions, current: StoredObject,
): WriteResult {
  const { served } = scope;
  const sub = opts.subresource;
  const incoming = decodeIncoming(scope, body);
  const inMeta = normaliseMeta(incoming.metadata);
  if (!inMeta.name) {
    // kube-apiserver needs the name in the body of an update, so a patch cannot blank an object out.
    throw errors.badRequest(`the name of the object (${name} based on URL) was undeterminable: name must be provided`);
  }
  if (inMeta.name !== name) {
    throw errors.badRequest(`the name of the object (${inMeta.name}) does not match the name on the URL (${name})`);
  }
  if (served.def.namespaced && inMeta.namespace && inMeta.namespace !== scope.namespace) {
    throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  const rv = inMeta.resourceVersion;
  if (rv === undefined || rv === '') {
    if (!opts.allowEmptyResourceVersion && served.custom) {
      // Go renders the zero resourceVersion of an unstructured object as 0x0.
      const fe: FieldError = { field: 'metadata.resourceVersion', reason: 'FieldValueInvalid', message: 'Invalid value: 0x0: must be specified for an update' };
      throw errors.invalid(served.def.resource, served.def.group, name, [fe]);
    }
  } else if (rv !== current.object.metadata.resourceVersion) {
    throw errors.staleObject(qr(served), name);
  }
  if (inMeta.uid && inMeta.uid !== current.object.metadata.uid) {
    throw errors.conflict(qr(served), name, `Precondition failed: UID in precondition: ${inMeta.uid}, UID in object meta: ${current.object.metadata.uid}`);
  }
  const old = current.object;
  const obj = mergeForUpdate(scope, incoming, old, sub);
  if (!served.custom) recordManager(ctx, scope, old, obj, sub);
  const sctx = strategyContext(ctx, scope, sub);
  served.strategy.prepareForUpdate?.(obj, old, sctx);
  if (served.custom) recordManager(ctx, scope, old, obj, sub);
  obj.metadata.name = name;
  runAdmission(ctx, scope, 'UPDATE', sub, name, obj, old, 'mutate');
  checkObjectSize(scope, obj);
  validateCommon(scope, obj, old, sctx);
  runAdmission(ctx, scope, 'UPDATE', sub, name, obj, old, 'validate');
  if (served.tracksGeneration && !jsonEqual(specPart(obj, served.hasStatus), specPart(old, served.hasStatus))) {
    obj.metadata.generation = (old.metadata.generation ?? 0) + 1;
  }
  obj.metadata.resourceVersion = old.metadata.resourceVersion;
  if (jsonEqual(comparable(obj), comparable(old))) return { object: old, created: false };
  if (scope.dryRun) return { object: obj, created: false };
  const key = keyOf(served, scope.namespace, name);
  try {
    if (readyToRemove(obj)) {
      const removed = ctx.store.delete(key, current.revision);
      // The answer is the object as this write left it (its last finalizer gone), at the revision
      // of its removal, as kube-apiserver answers.
      const object = { ...obj, metadata: { ...obj.metadata, resourceVersion: removed.object.metadata.resourceVersion } };
      return { object, created: false, deleted: true };
    }
    return { object: ctx.store.update(key, obj, current.revision).object, created: false };
  } catch (err) {
    throw translateStoreError(err, served, name);
  }
}

/**
 * Resolves once the stored version `obj` carries (its resourceVersion) survives power loss: await
 * it before acknowledging a write, or answering with an object, to a client (group commit shares
 * one fsync among many writes; see storage/group-commit.ts). Objects without a resourceVersion
 * (dry-run creates) resolve at once.
 */
export function whenStored(ctx: RegistryContext, obj: KubeObject): Promise<void> {
  return whenRevisionStored(ctx, obj.metadata.resourceVersion);
}

/** Same as whenStored, for a resourceVersion string (a list's). */
export function whenRevisionStored(ctx: RegistryContext, resourceVersion: string | undefined): Promise<void> {
  const rv = Number(resourceVersion);
  return Number.isSafeInteger(rv) && rv > 0 ? ctx.store.whenDurable(rv) : Promise.resolve();
}

/** Loads the stored object or throws 404. */
export function loadCurrent(ctx: RegistryContext, scope: RequestScope, name: string): StoredObject {
  const cur = ctx.store.get(keyOf(scope.served, scope.namespace, name));
  if (!cur) throw errors.notFound(qr(scope.served), name);
  return cur;
}
