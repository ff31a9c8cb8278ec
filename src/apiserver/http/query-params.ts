// Query parameters of resource requests, read as kube-apiserver reads them: a value it cannot parse
// is a 400 naming the parameter, never ignored. Pure.

import { errorMessage } from '../../util/errors.js';
import type { FieldValidation } from '../registry/schema/index.js';
import { errors, fieldErrors } from './errors.js';
import { parseBool } from './request-info.js';

/** A boolean parameter with Go's strconv.ParseBool spellings; undefined when absent. */
export function boolParam(q: URLSearchParams, name: string): boolean | undefined {
  try {
    return parseBool(q.get(name), name);
  } catch (err) {
    throw errors.badRequest(errorMessage(err));
  }
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** An integer parameter; like kube-apiserver, a value that does not fit an int64 is a 400. */
export function intParam(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  if (v === null || v === '') return undefined;
  if (!/^[-+]?[0-9]+$/.test(v)) throw errors.badRequest(`invalid value for ${name}: "${v}" is not an integer`);
  const n = BigInt(v);
  if (n < INT64_MIN || n > INT64_MAX) throw errors.badRequest(`invalid value for ${name}: "${v}": value out of range`);
  return Number(n);
}

/** `dryRun`: absent, or `All` as many times as given. */
/** The options kind kube-apiserver names in a 422 about a query option of each write verb. */
const OPTIONS_KIND: Record<string, string> = { create: 'CreateOptions', update: 'UpdateOptions', patch: 'PatchOptions', delete: 'DeleteOptions', deletecollection: 'DeleteOptions' };

/** The `dryRun` query values; 422 (as kube-apiserver validates its options) for anything but All. */
export function dryRunOf(q: URLSearchParams, verb: string): boolean {
  const values = q.getAll('dryRun');
  const kind = OPTIONS_KIND[verb];
  // Reads have no dryRun option: kube-apiserver ignores it there.
  if (values.length === 0 || !kind) return false;
  if (values.some((v) => v !== 'All')) throw errors.invalidOptions(kind, [fieldErrors.notSupported('dryRun', values, ['All'])]);
  return true;
}

/** The `fieldValidation` query value; 400 for anything but Ignore, Warn and Strict. */
export function fieldValidationOf(q: URLSearchParams): FieldValidation | undefined {
  const fv = q.get('fieldValidation');
  if (fv === null || fv === '') return undefined;
  if (fv !== 'Ignore' && fv !== 'Warn' && fv !== 'Strict') {
    throw errors.badRequest(`fieldValidation: Unsupported value: "${fv}": supported values: "Ignore", "Warn", "Strict"`);
  }
  return fv;
}
