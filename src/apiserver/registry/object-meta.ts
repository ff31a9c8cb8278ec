// ObjectMeta rules of kube-apiserver's ValidateObjectMeta: name formats, label/annotation/finalizer
// and owner reference validation, each broken rule one field error. Pure functions.

import type { KubeObject, ObjectMeta } from '../../api/meta.js';
import { dns1123LabelProblems, dns1123SubdomainProblems, labelValueProblems, qualifiedNameProblems } from '../../api/name-rules.js';
import { isPlainObject } from '../../util/merge-patch.js';
import { fieldErrors, type FieldError } from '../http/errors.js';

const GENERATE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** Error details for a name under a rule, or [] when valid. */
export function validateName(name: string, rule: 'subdomain' | 'label' | 'path', field = 'metadata.name'): FieldError[] {
  if (name === '.' || name === '..') return [fieldErrors.invalid(field, name, `may not be '${name}'`)];
  if (name.includes('/')) return [fieldErrors.invalid(field, name, "may not contain '/'")];
  if (name.includes('%')) return [fieldErrors.invalid(field, name, "may not contain '%'")];
  const problems = rule === 'label' ? dns1123LabelProblems(name) : rule === 'subdomain' ? dns1123SubdomainProblems(name) : [];
  return problems.map((p) => fieldErrors.invalid(field, name, p));
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
        for (const p of qualifiedNameProblems(k)) errs.push(fieldErrors.invalid('metadata.labels', k, p));
        for (const p of labelValueProblems(v)) errs.push(fieldErrors.invalid('metadata.labels', v, p));
      }
    }
  }
  if (meta.annotations !== undefined && meta.annotations !== null) {
    if (!isStringMap(meta.annotations)) errs.push(fieldErrors.typeInvalid('metadata.annotations', meta.annotations, 'must be a map of strings'));
    else {
      let total = 0;
      for (const [k, v] of Object.entries(meta.annotations)) {
        for (const p of qualifiedNameProblems(k.toLowerCase())) errs.push(fieldErrors.invalid('metadata.annotations', k, p));
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
        for (const p of qualifiedNameProblems(f)) errs.push(fieldErrors.invalid(`metadata.finalizers[${i}]`, f, p));
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
