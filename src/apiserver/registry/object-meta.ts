// ObjectMeta rules (§5): name formats, label/annotation/finalizer validation. Pure functions.

import type { KubeObject, ObjectMeta } from '../../api/meta.js';
import { isPlainObject } from '../../util/merge-patch.js';
import { fieldErrors, type FieldError } from '../http/errors.js';

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const GENERATE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

export const LABEL_MSG = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
export const SUBDOMAIN_MSG = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

export function isDns1123Subdomain(s: string): boolean {
  return s.length <= 253 && DNS1123_SUBDOMAIN.test(s);
}

/** Error details for a name under a rule, or [] when valid. */
export function validateName(name: string, rule: 'subdomain' | 'label' | 'path', field = 'metadata.name'): FieldError[] {
  if (name === '.' || name === '..') return [fieldErrors.invalid(field, name, `may not be '${name}'`)];
  if (name.includes('/')) return [fieldErrors.invalid(field, name, "may not contain '/'")];
  if (name.includes('%')) return [fieldErrors.invalid(field, name, "may not contain '%'")];
  if (rule === 'label') {
    if (name.length > 63) return [fieldErrors.invalid(field, name, 'must be no more than 63 characters')];
    if (!DNS1123_LABEL.test(name)) return [fieldErrors.invalid(field, name, LABEL_MSG)];
  } else if (rule === 'subdomain') {
    if (name.length > 253) return [fieldErrors.invalid(field, name, 'must be no more than 253 characters')];
    if (!DNS1123_SUBDOMAIN.test(name)) return [fieldErrors.invalid(field, name, SUBDOMAIN_MSG)];
  }
  return [];
}

/** A qualified name such as a label key: optional DNS subdomain prefix + '/' + name (≤63). */
export function qualifiedNameProblem(key: string): string | undefined {
  const parts = key.split('/');
  let name = key;
  if (parts.length === 2) {
    const [prefix, n] = parts as [string, string];
    if (prefix.length === 0) return 'prefix part must be non-empty';
    if (!isDns1123Subdomain(prefix)) return `prefix part ${SUBDOMAIN_MSG}`;
    name = n;
  } else if (parts.length > 2) {
    return "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')";
  }
  if (name.length === 0) return 'name part must be non-empty';
  if (name.length > 63) return 'name part must be no more than 63 characters';
  if (!QUALIFIED_NAME.test(name)) {
    return "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
  }
  return undefined;
}

export function labelValueProblem(v: string): string | undefined {
  if (v.length > 63) return 'must be no more than 63 characters';
  if (!LABEL_VALUE.test(v)) {
    return "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
  }
  return undefined;
}

function isStringMap(v: unknown): v is Record<string, string> {
  return isPlainObject(v) && Object.values(v).every((x) => typeof x === 'string');
}

/** Validates labels, annotations, finalizers and ownerReferences shapes. */
export function validateMetaFields(meta: ObjectMeta): FieldError[] {
  const errs: FieldError[] = [];
  if (meta.labels !== undefined && meta.labels !== null) {
    if (!isStringMap(meta.labels)) errs.push(fieldErrors.typeInvalid('metadata.labels', meta.labels, 'must be a map of strings'));
    else {
      for (const [k, v] of Object.entries(meta.labels)) {
        const kp = qualifiedNameProblem(k);
        if (kp) errs.push(fieldErrors.invalid('metadata.labels', k, kp));
        const vp = labelValueProblem(v);
        if (vp) errs.push(fieldErrors.invalid(`metadata.labels`, v, vp));
      }
    }
  }
  if (meta.annotations !== undefined && meta.annotations !== null) {
    if (!isStringMap(meta.annotations)) errs.push(fieldErrors.typeInvalid('metadata.annotations', meta.annotations, 'must be a map of strings'));
    else {
      let total = 0;
      for (const [k, v] of Object.entries(meta.annotations)) {
        const kp = qualifiedNameProblem(k.toLowerCase());
        if (kp) errs.push(fieldErrors.invalid('metadata.annotations', k, kp));
        total += k.length + v.length;
      }
      if (total > 262144) errs.push(fieldErrors.tooLong('metadata.annotations', 262144));
    }
  }
  if (meta.finalizers !== undefined && meta.finalizers !== null) {
    if (!Array.isArray(meta.finalizers) || !meta.finalizers.every((f) => typeof f === 'string')) {
      errs.push(fieldErrors.typeInvalid('metadata.finalizers', meta.finalizers, 'must be a list of strings'));
    } else {
      meta.finalizers.forEach((f, i) => {
        const p = qualifiedNameProblem(f);
        if (p) errs.push(fieldErrors.invalid(`metadata.finalizers[${i}]`, f, p));
      });
    }
  }
  if (meta.ownerReferences !== undefined && meta.ownerReferences !== null) {
    if (!Array.isArray(meta.ownerReferences)) errs.push(fieldErrors.typeInvalid('metadata.ownerReferences', meta.ownerReferences, 'must be a list'));
    else {
      let controllers = 0;
      meta.ownerReferences.forEach((r, i) => {
        for (const f of ['apiVersion', 'kind', 'name', 'uid'] as const) {
          if (!r || typeof r[f] !== 'string' || r[f] === '') errs.push(fieldErrors.required(`metadata.ownerReferences[${i}].${f}`));
        }
        if (r?.controller) controllers++;
      });
      if (controllers > 1) errs.push(fieldErrors.invalid('metadata.ownerReferences', meta.ownerReferences, 'Only one reference can have Controller set to true'));
    }
  }
  return errs;
}

/** name = prefix (≤58 chars) + 5 random characters; `random` returns [0,1). */
export function generateName(prefix: string, random: () => number): string {
  let out = prefix.length > 58 ? prefix.slice(0, 58) : prefix;
  for (let i = 0; i < 5; i++) out += GENERATE_ALPHABET[Math.floor(random() * GENERATE_ALPHABET.length)];
  return out;
}

/** Fields outside metadata (and outside status when the status subresource exists). */
export function specPart(obj: KubeObject, excludeStatus: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) {
    if (k === 'metadata' || k === 'apiVersion' || k === 'kind') continue;
    if (excludeStatus && k === 'status') continue;
    out[k] = v;
  }
  return out;
}
