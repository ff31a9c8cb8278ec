// What the registry operations need from the server, and storage-error translation.

import type { KubeObject } from '../../api/meta.js';
import { ApiError, errors, type FieldError } from '../http/errors.js';
import type { AdmissionContext, AdmissionOperation, AdmissionPlugin, UserInfo } from '../pipeline.js';
import {
  StoreCompactedError, StoreConflictError, StoreExistsError, StoreNotFoundError, type Store,
} from '../storage/types.js';
import type { ServedResource } from './types.js';

export interface RegistryContext {
  store: Store;
  now(): number;
  random(): number;
  uuid(): string;
  admission: AdmissionPlugin[];
  admissionContext: AdmissionContext;
}

export interface RequestScope {
  user: UserInfo;
  served: ServedResource;
  version: string;
  namespace: string;
  dryRun: boolean;
  /** `fieldValidation` query value (unknown fields of custom resources): default Warn. */
  fieldValidation?: 'Ignore' | 'Warn' | 'Strict';
  /** Collects `Warning` header texts for the response. */
  warnings?: string[];
  /**
   * The manager a create, update or non-apply patch is recorded under in managedFields (operation
   * Update). Absent: no entry is written (server-side apply keeps its own; the server's own
   * controllers are not recorded).
   */
  fieldManager?: string;
}

export function qr(served: ServedResource): { group: string; resource: string } {
  return { group: served.def.group, resource: served.def.resource };
}

export function invalid(served: ServedResource, name: string, errs: FieldError[]): ApiError {
  return errors.invalid(served.def.kind, served.def.group, name, errs);
}

/** Storage failures as API errors. */
export function translateStoreError(err: unknown, served: ServedResource, name: string): unknown {
  if (err instanceof ApiError) return err;
  if (err instanceof StoreConflictError) return errors.staleObject(qr(served), name);
  if (err instanceof StoreNotFoundError) return errors.notFound(qr(served), name);
  if (err instanceof StoreExistsError) return errors.alreadyExists(qr(served), name);
  if (err instanceof StoreCompactedError) return errors.tooOldResourceVersion(err.requested, err.compacted);
  return err;
}

export function runAdmission(
  ctx: RegistryContext,
  scope: RequestScope,
  op: AdmissionOperation,
  subresource: string,
  name: string,
  object: KubeObject | undefined,
  oldObject: KubeObject | undefined,
  phase: 'mutate' | 'validate',
): void {
  const plugins = ctx.admission.filter((p) => p.handles(scope.served.def.group, scope.served.def.resource));
  if (plugins.length === 0) return;
  const req = {
    operation: op, resource: scope.served.def, subresource, namespace: scope.namespace, name,
    object, oldObject, user: scope.user,
  };
  if (phase === 'mutate') for (const p of plugins) p.mutate?.(req, ctx.admissionContext);
  else for (const p of plugins) p.validate?.(req, ctx.admissionContext);
}
