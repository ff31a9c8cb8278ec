// Type strategies of the built-in kinds (Namespace, Secret, ConfigMap, Lease, ...): defaults,
// write-only fields, and the validation rules beyond ObjectMeta.

import type { KubeObject } from '../../api/meta.js';
import { asPlainObject, jsonEqual } from '../../util/merge-patch.js';
import { fieldErrors, type FieldError } from '../http/errors.js';
import type { ResourceStrategy } from './types.js';

const DATA_KEY = /^[-._a-zA-Z0-9]+$/;

function validateDataKeys(obj: KubeObject, field: string): FieldError[] {
  const m = asPlainObject(obj[field]);
  if (obj[field] !== undefined && obj[field] !== null && !m) return [fieldErrors.typeInvalid(field, obj[field], 'must be a map')];
  const errs: FieldError[] = [];
  for (const k of Object.keys(m ?? {})) {
    if (!DATA_KEY.test(k) || k.length > 253) {
      errs.push(fieldErrors.invalid(`${field}[${k}]`, k, "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"));
    }
  }
  return errs;
}

function immutableChecks(obj: KubeObject, old: KubeObject | undefined, fields: string[]): FieldError[] {
  if (!old || old.immutable !== true) return [];
  const errs: FieldError[] = [];
  if (obj.immutable !== true) errs.push(fieldErrors.forbidden('immutable', 'field is immutable when `immutable` is set'));
  for (const f of fields) {
    if (!jsonEqual(obj[f] ?? {}, old[f] ?? {})) errs.push(fieldErrors.forbidden(f, 'field is immutable when `immutable` is set'));
  }
  return errs;
}

/** The keys a typed Secret must carry, as kube-apiserver requires them. */
const SECRET_REQUIRED_KEYS: Record<string, string[]> = {
  'kubernetes.io/tls': ['tls.crt', 'tls.key'],
  'kubernetes.io/ssh-auth': ['ssh-privatekey'],
  'kubernetes.io/dockercfg': ['.dockercfg'],
  'kubernetes.io/dockerconfigjson': ['.dockerconfigjson'],
};

export const secretStrategy: ResourceStrategy = {
  prepareForCreate(obj) {
    foldStringData(obj);
    if (obj.type === undefined || obj.type === '') obj.type = 'Opaque';
  },
  prepareForUpdate(obj, old) {
    foldStringData(obj);
    if (obj.type === undefined || obj.type === '') obj.type = old.type ?? 'Opaque';
  },
  validate(obj, old) {
    const errs = validateDataKeys(obj, 'data');
    const data = asPlainObject(obj.data) ?? {};
    let size = 0;
    for (const [k, v] of Object.entries(data)) {
      if (typeof v !== 'string') errs.push(fieldErrors.typeInvalid(`data[${k}]`, v, 'must be a base64 string'));
      else size += Math.floor((v.length * 3) / 4);
    }
    if (size > 1024 * 1024) errs.push(fieldErrors.tooLong('data', 1024 * 1024));
    for (const k of SECRET_REQUIRED_KEYS[String(obj.type)] ?? []) if (!(k in data)) errs.push(fieldErrors.required(`data[${k}]`));
    if (old && old.type !== obj.type) errs.push(fieldErrors.invalid('type', obj.type, 'field is immutable'));
    errs.push(...immutableChecks(obj, old, ['data']));
    return errs;
  },
};

function foldStringData(obj: KubeObject): void {
  const sd = asPlainObject(obj.stringData);
  if (sd) {
    const data = { ...(asPlainObject(obj.data) ?? {}) };
    for (const [k, v] of Object.entries(sd)) data[k] = Buffer.from(String(v), 'utf8').toString('base64');
    obj.data = data;
  }
  delete obj.stringData;
}

export const configMapStrategy: ResourceStrategy = {
  validate(obj, old) {
    const errs = [...validateDataKeys(obj, 'data'), ...validateDataKeys(obj, 'binaryData')];
    const data = asPlainObject(obj.data) ?? {};
    const bin = asPlainObject(obj.binaryData) ?? {};
    for (const [k, v] of Object.entries(data)) {
      if (typeof v !== 'string') errs.push(fieldErrors.typeInvalid(`data[${k}]`, v, 'must be a string'));
      if (k in bin) errs.push(fieldErrors.invalid(`data[${k}]`, k, 'duplicate of key present in binaryData'));
    }
    errs.push(...immutableChecks(obj, old, ['data', 'binaryData']));
    return errs;
  },
};

const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

function namespaceDefaults(obj: KubeObject): void {
  const name = obj.metadata.name;
  if (name) obj.metadata.labels = { ...(obj.metadata.labels ?? {}), [NAMESPACE_NAME_LABEL]: name };
}

export const namespaceStrategy: ResourceStrategy = {
  prepareForCreate(obj) {
    const spec = asPlainObject(obj.spec) ?? {};
    if (!Array.isArray(spec.finalizers)) spec.finalizers = ['kubernetes'];
    obj.spec = spec;
    obj.status = { phase: 'Active' };
    namespaceDefaults(obj);
  },
  prepareForUpdate(obj, old, ctx) {
    if (ctx.subresource === 'finalize') {
      // Only spec.finalizers changes through /finalize.
      const finalizers = asPlainObject(obj.spec)?.finalizers;
      const next = structuredClone(old);
      next.spec = { ...(asPlainObject(old.spec) ?? {}), finalizers: Array.isArray(finalizers) ? finalizers : [] };
      for (const k of Object.keys(obj)) delete obj[k];
      Object.assign(obj, next);
      return;
    }
    if (ctx.subresource === '') {
      // spec.finalizers changes only through /finalize.
      obj.spec = structuredClone(old.spec ?? {});
    }
    namespaceDefaults(obj);
  },
  validate(obj) {
    const errs: FieldError[] = [];
    const fin = asPlainObject(obj.spec)?.finalizers;
    if (fin !== undefined && (!Array.isArray(fin) || !fin.every((f) => typeof f === 'string'))) {
      errs.push(fieldErrors.typeInvalid('spec.finalizers', fin, 'must be a list of strings'));
    }
    return errs;
  },
};

function int32AtLeast(spec: Record<string, unknown>, field: string, min: 0 | 1, errs: FieldError[]): void {
  const v = spec[field];
  if (v === undefined || v === null) return;
  if (typeof v !== 'number' || !Number.isInteger(v)) errs.push(fieldErrors.typeInvalid(`spec.${field}`, v, 'must be an integer'));
  else if (v < min) errs.push(fieldErrors.invalid(`spec.${field}`, v, min === 1 ? 'must be greater than 0' : 'must be greater than or equal to 0'));
}

export const leaseStrategy: ResourceStrategy = {
  validate(obj) {
    const errs: FieldError[] = [];
    const spec = asPlainObject(obj.spec) ?? {};
    // A lease of zero seconds would expire as it is taken: kube-apiserver refuses it too.
    int32AtLeast(spec, 'leaseDurationSeconds', 1, errs);
    int32AtLeast(spec, 'leaseTransitions', 0, errs);
    return errs;
  },
};

export const noStrategy: ResourceStrategy = {};
