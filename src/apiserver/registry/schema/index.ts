// Custom-resource write preparation: default → prune → validate, in one call.

import { errors, type ApiError, type FieldError } from '../../http/errors.js';
import { applyDefaults } from './defaulting.js';
import { pruneObject } from './pruning.js';
import { validateSchema } from './structural-schema.js';
import type { JSONSchemaProps } from './types.js';

export interface PrepareCustomResourceOptions<T extends Record<string, unknown>> {
  /** The CRD version's `schema.openAPIV3Schema`. */
  schema: JSONSchemaProps;
  /** The incoming object; not mutated. */
  obj: T;
  /** Create or update: both run the same steps today (kept for ratcheting rules later). */
  isCreate?: boolean;
}

export interface PreparedCustomResource<T> {
  /** Defaulted and pruned copy of the input. */
  obj: T;
  /** Schema violations; non-empty means 422 Invalid. */
  errors: FieldError[];
  /** Paths of unknown fields that were dropped (for `fieldValidation` Warn/Strict). */
  pruned: string[];
}

/** Defaults, prunes and validates a custom resource against its version schema. */
export function prepareCustomResource<T extends Record<string, unknown>>(o: PrepareCustomResourceOptions<T>): PreparedCustomResource<T> {
  const obj = structuredClone(o.obj);
  applyDefaults(o.schema, obj);
  const pruned = pruneObject(o.schema, obj);
  const errors = validateSchema(o.schema, obj);
  return { obj, errors, pruned };
}

/** Defaults applied when reading a stored object, as apiextensions-apiserver does; returns a copy. */
export function defaultCustomResource<T extends Record<string, unknown>>(schema: JSONSchemaProps, obj: T): T {
  const copy = structuredClone(obj);
  applyDefaults(schema, copy);
  return copy;
}

/** `unknown field "spec.foo"` for each pruned path: the text of `fieldValidation=Warn` warnings. */
export function unknownFieldMessages(pruned: string[]): string[] {
  return pruned.map((p) => `unknown field ${JSON.stringify(p)}`);
}

/** The 400 of `fieldValidation=Strict` when fields were pruned. */
export function strictDecodingError(pruned: string[]): ApiError {
  return errors.badRequest(`strict decoding error: ${unknownFieldMessages(pruned).join(', ')}`);
}

/** The `fieldValidation` directive of a write: Warn unless the request says otherwise. */
export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

/**
 * Reports pruned (unknown) fields as `fieldValidation` asks: nothing for Ignore, the 400 of Strict,
 * or one warning per field for Warn, the default.
 */
export function reportUnknownFields(pruned: string[], mode: FieldValidation | undefined, warnings: string[] | undefined): void {
  if (pruned.length === 0 || mode === 'Ignore') return;
  if (mode === 'Strict') throw strictDecodingError(pruned);
  warnings?.push(...unknownFieldMessages(pruned));
}

export { applyDefaults, needsDefaults } from './defaulting.js';
export { pruneObject } from './pruning.js';
export { validateSchema } from './structural-schema.js';
export { crdWarnings, validateCustomResourceDefinition } from './crd-validation.js';
export type { JSONSchemaProps } from './types.js';
