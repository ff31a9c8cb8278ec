// Validation of a custom resource against its CRD version's openAPIV3Schema, with
// kube-apiserver's field paths (`spec.taints[0].effect`) and renderings (`Invalid value: "string":
// spec.x in body must be of type integer: "string"`). `x-kubernetes-validations` (CEL) is NOT
// evaluated: the rules are accepted and skipped (a CEL interpreter is out of scope).

import { isPlainObject } from '../../../util/merge-patch.js';
import { fieldErrors, type FieldError } from '../../http/errors.js';
import { checkFormat } from './formats.js';
import { createPatternCache, type PatternCache } from './patterns.js';
import type { JSONSchemaProps } from './types.js';

export interface ValidateOptions {
  /** Path prefix for messages; '' for a whole object. */
  path?: string;
  /** Compiled `pattern`s to reuse across calls (a served CRD's schema); default: a cache for this call only. */
  patterns?: PatternCache;
}

/** Validates `value` against `schema`; [] when valid. */
export function validateSchema(schema: JSONSchemaProps, value: unknown, opts: ValidateOptions = {}): FieldError[] {
  const out: FieldError[] = [];
  validateNode(schema, value, opts.path ?? '', out, opts.patterns ?? createPatternCache());
  return out;
}

export function childPath(path: string, name: string): string {
  return path ? `${path}.${name}` : name;
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  if (typeof v === 'boolean') return 'boolean';
  if (typeof v === 'string') return 'string';
  return 'object';
}

function typeMatches(type: string, v: unknown): boolean {
  switch (type) {
    case 'object': return isPlainObject(v);
    case 'array': return Array.isArray(v);
    case 'string': return typeof v === 'string';
    case 'integer': return typeof v === 'number' && Number.isInteger(v);
    case 'number': return typeof v === 'number' && Number.isFinite(v);
    case 'boolean': return typeof v === 'boolean';
    default: return true;
  }
}

/** The name kube-openapi prints for a location: the path, or `body` at the root. */
function subject(path: string): string {
  return path || 'body';
}

function invalid(path: string, value: unknown, detail: string): FieldError {
  return fieldErrors.invalid(path, value, detail);
}

function validateNode(s: JSONSchemaProps, v: unknown, path: string, out: FieldError[], cache: PatternCache): void {
  if (v === null) {
    if (s.nullable) return;
    if (s['x-kubernetes-int-or-string'] || s.type === undefined) {
      if (s['x-kubernetes-int-or-string']) out.push(fieldErrors.typeInvalid(path, 'null', `${subject(path)} in body must be of type integer,string: "null"`));
      return;
    }
    out.push(fieldErrors.typeInvalid(path, 'null', `${subject(path)} in body must be of type ${s.type}: "null"`));
    return;
  }
  if (s['x-kubernetes-int-or-string']) {
    if (!typeMatches('integer', v) && !typeMatches('string', v)) {
      out.push(fieldErrors.typeInvalid(path, typeName(v), `${subject(path)} in body must be of type integer,string: "${typeName(v)}"`));
      return;
    }
  } else if (s.type !== undefined && !typeMatches(s.type, v)) {
    out.push(fieldErrors.typeInvalid(path, typeName(v), `${subject(path)} in body must be of type ${s.type}: "${typeName(v)}"`));
    return;
  }
  if (s.enum && !s.enum.some((e) => canonical(e) === canonical(v))) {
    out.push(fieldErrors.notSupported(path, v, s.enum.map((e) => (typeof e === 'string' ? e : JSON.stringify(e)))));
  }
  if (typeof v === 'string') validateString(s, v, path, out, cache);
  if (typeof v === 'number') validateNumber(s, v, path, out);
  if (Array.isArray(v)) validateArray(s, v, path, out, cache);
  else if (typeof v === 'object') validateObject(s, v as Record<string, unknown>, path, out, cache);
  validateJunctors(s, v, path, out, cache);
}

/** Code points in `v` (what Go counts as runes), without building an array of them. */
function runeCount(v: string): number {
  let n = 0;
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    // A high surrogate followed by a low one is a single code point.
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < v.length) {
      const d = v.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/** The string keywords; format is a validator of its own upstream, so it is checked either way. */
function validateString(s: JSONSchemaProps, v: string, path: string, out: FieldError[], cache: PatternCache): void {
  const lengthOrPattern = stringLimitError(s, v, path, cache);
  if (lengthOrPattern) out.push(lengthOrPattern);
  if (s.format !== undefined && !checkFormat(s.format, v)) {
    out.push(invalid(path, v, `${subject(path)} in body must be of type ${s.format}: ${JSON.stringify(v)}`));
  }
}

/**
 * Length limits, then pattern, stopping at the first failure as kube-openapi's string validator
 * does: an oversized string is refused without running the pattern at all.
 */
function stringLimitError(s: JSONSchemaProps, v: string, path: string, cache: PatternCache): FieldError | undefined {
  // UTF-16 length >= code points, so the exact count is needed only when the cheap one is not decisive.
  if (s.maxLength !== undefined && v.length > s.maxLength && runeCount(v) > s.maxLength) {
    return fieldErrors.tooLong(path, s.maxLength);
  }
  if (s.minLength !== undefined && (v.length < s.minLength || runeCount(v) < s.minLength)) {
    return invalid(path, v, `${subject(path)} in body should be at least ${s.minLength} chars long`);
  }
  if (s.pattern !== undefined && s.pattern !== '') {
    const re = cache.get(s as JSONSchemaProps & { pattern: string });
    // A pattern that does not compile matches nothing (CRD validation refuses such patterns).
    if (!re.ok || !re.test(v)) return invalid(path, v, `${subject(path)} in body should match '${s.pattern}'`);
  }
  return undefined;
}

function validateNumber(s: JSONSchemaProps, v: number, path: string, out: FieldError[]): void {
  const where = `${subject(path)} in body`;
  if (s.minimum !== undefined) {
    if (s.exclusiveMinimum ? v <= s.minimum : v < s.minimum) {
      out.push(invalid(path, v, `${where} should be greater than ${s.exclusiveMinimum ? '' : 'or equal to '}${s.minimum}`));
    }
  }
  if (s.maximum !== undefined) {
    if (s.exclusiveMaximum ? v >= s.maximum : v > s.maximum) {
      out.push(invalid(path, v, `${where} should be less than ${s.exclusiveMaximum ? '' : 'or equal to '}${s.maximum}`));
    }
  }
  if (s.multipleOf !== undefined && s.multipleOf > 0) {
    const q = v / s.multipleOf;
    if (Math.abs(q - Math.round(q)) > 1e-9) out.push(invalid(path, v, `${where} should be a multiple of ${s.multipleOf}`));
  }
  if (s.format === 'int32' && (v < -2147483648 || v > 2147483647)) {
    out.push(invalid(path, v, `${where} must be of type int32: "${v}"`));
  }
}

function validateArray(s: JSONSchemaProps, v: unknown[], path: string, out: FieldError[], cache: PatternCache): void {
  if (s.maxItems !== undefined && v.length > s.maxItems) {
    out.push({ field: path, reason: 'FieldValueTooMany', message: `Too many: ${v.length}: must have at most ${s.maxItems} items` });
  }
  if (s.minItems !== undefined && v.length < s.minItems) {
    out.push(invalid(path, v, `${subject(path)} in body should have at least ${s.minItems} items`));
  }
  if (s.items) v.forEach((item, i) => validateNode(s.items as JSONSchemaProps, item, `${path}[${i}]`, out, cache));
  const listType = s['x-kubernetes-list-type'];
  if (listType === 'set' || (s.uniqueItems && listType !== 'map')) {
    const seen = new Set<string>();
    v.forEach((item, i) => {
      const k = canonical(item);
      if (seen.has(k)) out.push(fieldErrors.duplicate(`${path}[${i}]`, item));
      seen.add(k);
    });
  } else if (listType === 'map') {
    const keys = s['x-kubernetes-list-map-keys'] ?? [];
    const seen = new Set<string>();
    v.forEach((item, i) => {
      if (typeof item !== 'object' || item === null || Array.isArray(item)) return;
      const rec = item as Record<string, unknown>;
      const keyObj = Object.fromEntries(keys.map((k) => [k, rec[k] ?? defaultOf(s.items, k)]));
      const k = canonical(keyObj);
      if (seen.has(k)) out.push(fieldErrors.duplicate(`${path}[${i}]`, keyObj));
      seen.add(k);
    });
  }
}

function defaultOf(items: JSONSchemaProps | undefined, key: string): unknown {
  return items?.properties?.[key]?.default ?? null;
}

/** JSON with sorted keys, for equality of values. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (typeof v === 'object' && v !== null) {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o).sort().map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

function validateObject(s: JSONSchemaProps, v: Record<string, unknown>, path: string, out: FieldError[], cache: PatternCache): void {
  const n = Object.keys(v).length;
  if (s.maxProperties !== undefined && n > s.maxProperties) {
    out.push({ field: path, reason: 'FieldValueTooMany', message: `Too many: ${n}: must have at most ${s.maxProperties} items` });
  }
  if (s.minProperties !== undefined && n < s.minProperties) {
    out.push(invalid(path, v, `${subject(path)} in body should have at least ${s.minProperties} properties`));
  }
  for (const r of s.required ?? []) {
    if (!(r in v)) out.push(fieldErrors.required(childPath(path, r)));
  }
  if (s['x-kubernetes-embedded-resource']) {
    for (const f of ['apiVersion', 'kind']) {
      if (typeof v[f] !== 'string' || v[f] === '') out.push(fieldErrors.required(childPath(path, f), 'must not be empty'));
    }
  }
  for (const [k, child] of Object.entries(v)) {
    const p = childPath(path, k);
    const prop = s.properties?.[k];
    if (prop) validateNode(prop, child, p, out, cache);
    else if (typeof s.additionalProperties === 'object') validateNode(s.additionalProperties, child, p, out, cache);
    else if (s.additionalProperties === false && s.properties && !s['x-kubernetes-preserve-unknown-fields']) {
      out.push(fieldErrors.forbidden(p, `${p} in body is a forbidden property`));
    }
  }
}

function validateJunctors(s: JSONSchemaProps, v: unknown, path: string, out: FieldError[], cache: PatternCache): void {
  const passes = (sub: JSONSchemaProps): boolean => {
    const errs: FieldError[] = [];
    validateNode(sub, v, path, errs, cache);
    return errs.length === 0;
  };
  if (s.allOf) {
    for (const sub of s.allOf) validateNode(sub, v, path, out, cache);
  }
  if (s.anyOf && !s.anyOf.some(passes)) {
    out.push(invalid(path, v, `${subject(path)} in body must validate at least one schema (anyOf)`));
  }
  if (s.oneOf && s.oneOf.filter(passes).length !== 1) {
    out.push(invalid(path, v, `${subject(path)} in body must validate one and only one schema (oneOf)`));
  }
  if (s.not && passes(s.not)) {
    out.push(invalid(path, v, `${subject(path)} in body must not validate the schema (not)`));
  }
}
