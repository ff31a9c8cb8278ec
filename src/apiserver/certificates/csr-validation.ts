// Pure validation of CertificateSigningRequest objects, as kube-apiserver's certificates registry
// does: spec on create, conditions on /approval and /status, certificate content on /status.
// Returns field errors in kube-apiserver's wording; the registry turns them into a 422.

import type { KubeObject } from '../../api/meta.js';
import { isDns1123Subdomain } from '../../api/name-rules.js';
import { fieldErrors, type FieldError } from '../http/errors.js';
import { parseCsr, splitPemBlocks, X509ParseError } from '../../util/x509.js';

const KNOWN_USAGES = [
  'signing', 'digital signature', 'content commitment', 'key encipherment', 'key agreement', 'data encipherment',
  'cert sign', 'crl sign', 'encipher only', 'decipher only', 'any', 'server auth', 'client auth', 'code signing',
  'email protection', 's/mime', 'ipsec end system', 'ipsec tunnel', 'ipsec user', 'timestamping', 'ocsp signing',
  'microsoft sgc', 'netscape sgc',
] as const;

export const APPROVAL_TYPES = ['Approved', 'Denied'] as const;
const BUILTIN_CONDITION_TYPES = ['Approved', 'Denied', 'Failed'] as const;
const CONDITION_STATUSES = ['True', 'False', 'Unknown'];

export interface CsrCondition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
  lastUpdateTime?: string;
  lastTransitionTime?: string;
}

export interface CsrSpec {
  request?: unknown;
  signerName?: unknown;
  usages?: unknown;
  expirationSeconds?: unknown;
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export interface CsrStatus {
  conditions?: CsrCondition[];
  certificate?: string;
}

export const specOf = (o: KubeObject): CsrSpec => (typeof o.spec === 'object' && o.spec !== null ? (o.spec as CsrSpec) : {});
export const statusOf = (o: KubeObject): CsrStatus => (typeof o.status === 'object' && o.status !== null ? (o.status as CsrStatus) : {});
export const conditionsOf = (o: KubeObject): CsrCondition[] => (Array.isArray(statusOf(o).conditions) ? statusOf(o).conditions! : []);

// The value is quoted as sent (base64), as kube-apiserver prints a byte field.
const invalidBytes = (field: string, value: string, detail: string): FieldError => ({ field, reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(value)}: ${detail}` });

/** Decodes `spec.request` (base64 of PEM in JSON) and checks the PKCS#10 and its self-signature. */
function validateRequest(request: unknown): FieldError[] {
  const field = 'spec.request';
  if (request === undefined || request === null || request === '') return [fieldErrors.required(field)];
  if (typeof request !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(request.replace(/\s+/g, ''))) {
    return [invalidBytes(field, String(request), 'must be base64-encoded PEM data')];
  }
  const pem = Buffer.from(request, 'base64').toString('utf8');
  try {
    const parsed = parseCsr(pem);
    if (!parsed.signatureValid) return [invalidBytes(field, request, 'x509: signature verification failure')];
  } catch (e) {
    if (e instanceof X509ParseError) return [invalidBytes(field, request, e.message)];
    throw e;
  }
  return [];
}

function validateSignerName(v: unknown): FieldError[] {
  const field = 'spec.signerName';
  if (v === undefined || v === null || v === '') return [fieldErrors.required(field)];
  if (typeof v !== 'string') return [fieldErrors.typeInvalid(field, v, 'must be a string')];
  if (v === 'kubernetes.io/legacy-unknown') return [fieldErrors.invalid(field, v, 'the legacy signerName is not allowed via this API version')];
  const slash = v.indexOf('/');
  const domain = slash < 0 ? '' : v.slice(0, slash);
  const path = slash < 0 ? '' : v.slice(slash + 1);
  if (slash < 0 || !domain || !path || !domain.includes('.') || !isDns1123Subdomain(domain) || v.length > 571) {
    return [fieldErrors.invalid(field, v, "must be a fully qualified domain and path of the form 'example.com/signer-name'")];
  }
  return [];
}

function validateUsages(v: unknown): FieldError[] {
  const field = 'spec.usages';
  if (!Array.isArray(v) || v.length === 0) return [fieldErrors.required(field)];
  const errs: FieldError[] = [];
  const seen = new Set<unknown>();
  v.forEach((u, i) => {
    if (!(KNOWN_USAGES as readonly unknown[]).includes(u)) errs.push(fieldErrors.notSupported(`${field}[${i}]`, u, [...KNOWN_USAGES].sort()));
    else if (seen.has(u)) errs.push(fieldErrors.duplicate(`${field}[${i}]`, u));
    seen.add(u);
  });
  return errs;
}

function validateExpirationSeconds(v: unknown): FieldError[] {
  if (v === undefined || v === null) return [];
  const field = 'spec.expirationSeconds';
  if (typeof v !== 'number' || !Number.isInteger(v)) return [fieldErrors.typeInvalid(field, v, 'must be an integer')];
  if (v < 600) return [fieldErrors.invalid(field, v, 'may not specify a duration less than 600 seconds (10 minutes)')];
  return [];
}

/** All the rules a new CSR's spec must meet. */
export function validateCsrSpec(obj: KubeObject): FieldError[] {
  const spec = specOf(obj);
  return [...validateRequest(spec.request), ...validateSignerName(spec.signerName), ...validateUsages(spec.usages), ...validateExpirationSeconds(spec.expirationSeconds)];
}

/** Shape rules for `status.conditions` (types, statuses, duplicates, Approved/Denied exclusive). */
export function validateConditions(conds: CsrCondition[]): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  let approved = false;
  let denied = false;
  conds.forEach((c, i) => {
    const f = `status.conditions[${i}]`;
    const type = c.type ?? '';
    if (!type) errs.push(fieldErrors.required(`${f}.type`));
    else if (seen.has(type)) errs.push(fieldErrors.duplicate(`${f}.type`, type));
    seen.add(type);
    if ((BUILTIN_CONDITION_TYPES as readonly string[]).includes(type)) {
      if (c.status !== 'True') errs.push(fieldErrors.notSupported(`${f}.status`, c.status ?? '', ['True']));
    } else if (!c.status) {
      errs.push(fieldErrors.required(`${f}.status`));
    } else if (!CONDITION_STATUSES.includes(c.status)) {
      errs.push(fieldErrors.notSupported(`${f}.status`, c.status, CONDITION_STATUSES));
    }
    if (type === 'Approved') {
      approved = true;
      if (denied) errs.push(fieldErrors.invalid(`${f}.type`, type, 'Approved and Denied conditions are mutually exclusive'));
    }
    if (type === 'Denied') {
      denied = true;
      if (approved) errs.push(fieldErrors.invalid(`${f}.type`, type, 'Approved and Denied conditions are mutually exclusive'));
    }
  });
  return errs;
}

/**
 * Transition rules between the stored and the new conditions. Built-in condition types can never
 * be removed; Approved/Denied may be added only through /approval.
 */
export function validateConditionTransition(conds: CsrCondition[], oldConds: CsrCondition[], allowApprovalChanges: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const has = (list: CsrCondition[], t: string): boolean => list.some((c) => c.type === t);
  for (const t of BUILTIN_CONDITION_TYPES) {
    if (has(oldConds, t) && !has(conds, t)) errs.push(fieldErrors.forbidden('status.conditions', `updates may not remove a condition of type "${t}"`));
  }
  if (!allowApprovalChanges) {
    for (const t of APPROVAL_TYPES) {
      if (!has(oldConds, t) && has(conds, t)) errs.push(fieldErrors.forbidden('status.conditions', `updates may not add a condition of type "${t}"`));
    }
  }
  return errs;
}

/** `status.certificate`: PEM CERTIFICATE blocks only, no headers; set once. */
export function validateCertificateField(cert: unknown, oldCert: unknown): FieldError[] {
  const field = 'status.certificate';
  const oldStr = typeof oldCert === 'string' ? oldCert : '';
  if (cert === undefined || cert === null || cert === '') {
    return oldStr ? [fieldErrors.forbidden(field, 'updates may not modify existing certificate content')] : [];
  }
  if (oldStr && cert !== oldStr) return [fieldErrors.forbidden(field, 'updates may not modify existing certificate content')];
  if (typeof cert !== 'string') return [fieldErrors.invalid(field, '<certificate data>', 'must be base64-encoded PEM data')];
  const text = Buffer.from(cert, 'base64').toString('utf8');
  const bad = (detail: string): FieldError[] => [fieldErrors.invalid(field, '<certificate data>', detail)];
  const re = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n([\s\S]*?)-----END \1-----/g;
  let count = 0;
  let rest = text;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m[1] !== 'CERTIFICATE') return bad(`only CERTIFICATE PEM blocks are allowed, found "${m[1]}"`);
    if (m[2]!.includes(':')) return bad('no PEM block headers are permitted');
    count++;
    rest = rest.replace(m[0], '');
  }
  if (count === 0) return bad('must contain at least one CERTIFICATE PEM block');
  if (rest.trim() !== '') return bad('contains non-PEM content');
  if (splitPemBlocks(text).length !== count) return bad('contains an invalid PEM block');
  return [];
}
