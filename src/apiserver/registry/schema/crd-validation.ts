// Validation and create-time defaults of a CustomResourceDefinition (apiextensions.k8s.io/v1):
// names, scope, versions (exactly one storage version), conversion, and the structural-schema
// rules. Returns field errors for a 422 on
// `CustomResourceDefinition.apiextensions.k8s.io "<name>"`.

import type { KubeObject } from '../../../api/meta.js';
import { DNS1123_LABEL_MESSAGE, DNS1123_SUBDOMAIN_MESSAGE, isDns1123Label, isDns1123Subdomain, matchesDns1123Label } from '../../../api/name-rules.js';
import { asPlainObject } from '../../../util/merge-patch.js';
import { fieldErrors, type FieldError } from '../../http/errors.js';
import { compilePattern } from './patterns.js';
import { validateSchema } from './structural-schema.js';
import type { JSONSchemaProps } from './types.js';

const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const DNS1035_MSG = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const KIND_MSG = 'may have mixed case, but should otherwise match: [a-z]([-a-z0-9]*[a-z0-9])?';
const PRINTER_TYPES = ['integer', 'number', 'string', 'boolean', 'date'];

type Rec = Record<string, unknown>;

function rec(v: unknown): Rec {
  return asPlainObject(v) ?? {};
}
function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function labelErrors(field: string, v: string | undefined, required: boolean): FieldError[] {
  if (v === undefined || v === '') return required ? [fieldErrors.required(field)] : [];
  if (v.length > 63) return [fieldErrors.invalid(field, v, 'must be no more than 63 characters')];
  return matchesDns1123Label(v) ? [] : [fieldErrors.invalid(field, v, DNS1123_LABEL_MESSAGE)];
}

function kindErrors(field: string, v: string | undefined): FieldError[] {
  if (v === undefined || v === '') return [fieldErrors.required(field)];
  return isDns1123Label(v.toLowerCase()) ? [] : [fieldErrors.invalid(field, v, KIND_MSG)];
}

const API_APPROVED = 'api-approved.kubernetes.io';
const APPROVAL_POLICY = 'see https://github.com/kubernetes/enhancements/pull/1111';

/** Groups the Kubernetes community owns: a CRD there must link to its API review. */
const isProtectedGroup = (group: string): boolean =>
  group === 'k8s.io' || group.endsWith('.k8s.io') || group === 'kubernetes.io' || group.endsWith('.kubernetes.io');

type ApprovalState = 'approved' | 'unapproved' | 'missing' | 'invalid';

function approvalState(crd: KubeObject | undefined): ApprovalState {
  const v = crd?.metadata?.annotations?.[API_APPROVED];
  if (v === undefined) return 'missing';
  if (v.startsWith('unapproved')) return 'unapproved';
  try {
    new URL(v);
    return 'approved';
  } catch {
    return 'invalid';
  }
}

/**
 * A CRD in a protected group carries `api-approved.kubernetes.io` (a URL, or a reason starting
 * with "unapproved"), as kube-apiserver requires; an update that keeps the old state passes.
 */
export function apiApprovalErrors(crd: KubeObject, old: KubeObject | undefined, group: string): FieldError[] {
  if (!isProtectedGroup(group)) return [];
  const state = approvalState(crd);
  if (old && approvalState(old) === state) return [];
  const field = `metadata.annotations[${API_APPROVED}]`;
  if (state === 'missing') return [fieldErrors.required(field, `protected groups must have approval annotation "${API_APPROVED}", ${APPROVAL_POLICY}`)];
  if (state === 'invalid') {
    return [fieldErrors.invalid(field, crd.metadata?.annotations?.[API_APPROVED] ?? '', `protected groups must have approval annotation "${API_APPROVED}" with either a URL or a reason starting with "unapproved", ${APPROVAL_POLICY}`)];
  }
  return [];
}

/** Validates a CRD object (create or update); [] when valid. `old` enables immutability checks. */
export function validateCustomResourceDefinition(crd: KubeObject, old?: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = rec(crd['spec']);
  const names = rec(spec['names']);
  const group = str(spec['group']);
  const plural = str(names['plural']);

  if (!group) errs.push(fieldErrors.required('spec.group'));
  else if (!isDns1123Subdomain(group)) errs.push(fieldErrors.invalid('spec.group', group, DNS1123_SUBDOMAIN_MESSAGE));
  else if (!group.includes('.')) errs.push(fieldErrors.invalid('spec.group', group, 'should be a domain with at least one dot'));
  if (group && plural && crd.metadata?.name !== `${plural}.${group}`) {
    errs.push(fieldErrors.invalid('metadata.name', crd.metadata?.name ?? '', 'must be spec.names.plural+"."+spec.group'));
  }
  if (group) errs.push(...apiApprovalErrors(crd, old, group));

  errs.push(...labelErrors('spec.names.plural', plural, true));
  errs.push(...labelErrors('spec.names.singular', str(names['singular']), false));
  const kind = str(names['kind']);
  errs.push(...kindErrors('spec.names.kind', kind));
  const listKind = str(names['listKind']);
  if (listKind !== undefined && listKind !== '') {
    errs.push(...kindErrors('spec.names.listKind', listKind));
    if (listKind === kind) errs.push(fieldErrors.invalid('spec.names.listKind', listKind, 'kind and listKind may not be the same'));
  }
  const shortNames = names['shortNames'];
  if (Array.isArray(shortNames)) {
    shortNames.forEach((s, i) => errs.push(...labelErrors(`spec.names.shortNames[${i}]`, str(s) ?? String(s), true)));
  }

  const scope = str(spec['scope']);
  if (!scope) errs.push(fieldErrors.required('spec.scope'));
  else if (scope !== 'Cluster' && scope !== 'Namespaced') errs.push(fieldErrors.notSupported('spec.scope', scope, ['Cluster', 'Namespaced']));

  if (spec['preserveUnknownFields'] === true) errs.push(fieldErrors.invalid('spec.preserveUnknownFields', true, 'must be false'));
  const strategy = str(rec(spec['conversion'])['strategy']);
  if (strategy !== undefined && strategy !== 'None') {
    // Conversion webhooks are not supported: the server never calls out to a webhook.
    errs.push(fieldErrors.notSupported('spec.conversion.strategy', strategy, ['None']));
  }

  errs.push(...versionErrors(spec['versions']));

  if (old) {
    const oldSpec = rec(old['spec']);
    if (oldSpec['group'] !== undefined && oldSpec['group'] !== spec['group']) {
      errs.push(fieldErrors.invalid('spec.group', spec['group'], 'field is immutable'));
    }
    if (oldSpec['scope'] !== undefined && oldSpec['scope'] !== spec['scope']) {
      errs.push(fieldErrors.invalid('spec.scope', spec['scope'], 'field is immutable'));
    }
  }
  return errs;
}

function versionErrors(versions: unknown): FieldError[] {
  const errs: FieldError[] = [];
  if (!Array.isArray(versions) || versions.length === 0) return [fieldErrors.required('spec.versions', 'must have exactly one version marked as storage version')];
  const seen = new Set<string>();
  let storage = 0;
  versions.forEach((raw, i) => {
    const v = rec(raw);
    const p = `spec.versions[${i}]`;
    const name = str(v['name']);
    if (!name) errs.push(fieldErrors.required(`${p}.name`));
    else if (name.length > 63 || !DNS1035_LABEL.test(name)) errs.push(fieldErrors.invalid(`${p}.name`, name, DNS1035_MSG));
    else if (seen.has(name)) errs.push(fieldErrors.duplicate(`${p}.name`, name));
    if (name) seen.add(name);
    for (const flag of ['served', 'storage']) {
      if (v[flag] === undefined) errs.push(fieldErrors.required(`${p}.${flag}`));
      else if (typeof v[flag] !== 'boolean') errs.push(fieldErrors.typeInvalid(`${p}.${flag}`, v[flag], 'must be a boolean'));
    }
    if (v['storage'] === true) storage++;
    const schema = rec(v['schema'])['openAPIV3Schema'];
    if (schema === undefined) errs.push(fieldErrors.required(`${p}.schema.openAPIV3Schema`, 'schemas are required'));
    else errs.push(...structuralSchemaErrors(schema as JSONSchemaProps, `${p}.schema.openAPIV3Schema`));
    const columns = v['additionalPrinterColumns'];
    if (Array.isArray(columns)) {
      columns.forEach((c, j) => {
        const col = rec(c);
        const cp = `${p}.additionalPrinterColumns[${j}]`;
        if (!str(col['name'])) errs.push(fieldErrors.required(`${cp}.name`));
        if (!str(col['jsonPath'])) errs.push(fieldErrors.required(`${cp}.jsonPath`));
        const t = str(col['type']);
        if (!t) errs.push(fieldErrors.required(`${cp}.type`));
        else if (!PRINTER_TYPES.includes(t)) errs.push(fieldErrors.notSupported(`${cp}.type`, t, PRINTER_TYPES));
      });
    }
    const scale = rec(rec(v['subresources'])['scale']);
    if (rec(v['subresources'])['scale'] !== undefined) {
      if (!str(scale['specReplicasPath'])) errs.push(fieldErrors.required(`${p}.subresources.scale.specReplicasPath`));
      if (!str(scale['statusReplicasPath'])) errs.push(fieldErrors.required(`${p}.subresources.scale.statusReplicasPath`));
    }
  });
  if (storage !== 1) {
    errs.push(fieldErrors.invalid('spec.versions', versions.map((v) => str(rec(v)['name']) ?? ''), 'must have exactly one version marked as storage version'));
  }
  return errs;
}

/**
 * The structural-schema violations of one openAPIV3Schema: types everywhere outside
 * junctors (except int-or-string and preserve-unknown-fields nodes), object root, items on
 * arrays, list-type/list-map-keys consistency, nothing defaulted or nullable inside junctors,
 * and defaults that validate against their own schema.
 */
export function structuralSchemaErrors(root: JSONSchemaProps, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (typeof root !== 'object' || root === null) return [fieldErrors.invalid(path, root, 'must be an object')];
  if (root.type === undefined) errs.push(fieldErrors.required(`${path}.type`, 'must not be empty at the root'));
  else if (root.type !== 'object') errs.push(fieldErrors.invalid(`${path}.type`, root.type, 'must be object at the root'));
  const meta = root.properties?.['metadata'];
  if (meta?.properties && Object.keys(meta.properties).some((k) => k !== 'name' && k !== 'generateName')) {
    errs.push(fieldErrors.forbidden(`${path}.properties[metadata]`, 'must not specify anything other than name and generateName, but metadata is implicitly specified'));
  }
  checkNode(root, path, false, errs);
  return errs;
}

function checkNode(s: JSONSchemaProps, path: string, inJunctor: boolean, errs: FieldError[]): void {
  if (typeof s !== 'object' || s === null) {
    errs.push(fieldErrors.invalid(path, s, 'must be an object'));
    return;
  }
  const intOrString = s['x-kubernetes-int-or-string'] === true;
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  if (inJunctor) {
    if (s.default !== undefined) errs.push(fieldErrors.forbidden(`${path}.default`, 'must be undefined to be structural'));
    if (s.nullable) errs.push(fieldErrors.forbidden(`${path}.nullable`, 'must be false to be structural'));
  } else if (s.type === undefined && !intOrString && !preserve) {
    const what = s.properties || s.additionalProperties ? 'object ' : s.items ? 'array ' : '';
    errs.push(fieldErrors.required(`${path}.type`, `must not be empty for specified ${what}fields`));
  }
  if (intOrString && s.type !== undefined) {
    errs.push(fieldErrors.invalid(`${path}.type`, s.type, 'must be empty if x-kubernetes-int-or-string is true'));
  }
  if (s.type === 'array' && !s.items && !inJunctor) errs.push(fieldErrors.required(`${path}.items`, 'must be specified'));
  if (s.properties && s.additionalProperties !== undefined && s.additionalProperties !== false) {
    errs.push(fieldErrors.forbidden(`${path}.additionalProperties`, 'additionalProperties and properties are mutual exclusive'));
  }
  if (s['x-kubernetes-embedded-resource'] && s.type !== 'object') {
    errs.push(fieldErrors.invalid(`${path}.type`, s.type ?? '', 'must be object if x-kubernetes-embedded-resource is true'));
  }
  const listType = s['x-kubernetes-list-type'];
  const mapKeys = s['x-kubernetes-list-map-keys'];
  if (listType !== undefined && !['atomic', 'set', 'map'].includes(listType)) {
    errs.push(fieldErrors.notSupported(`${path}.x-kubernetes-list-type`, listType, ['atomic', 'set', 'map']));
  }
  if (listType === 'map' && (!Array.isArray(mapKeys) || mapKeys.length === 0)) {
    errs.push(fieldErrors.required(`${path}.x-kubernetes-list-map-keys`, 'must not be empty if x-kubernetes-list-type is map'));
  }
  if (Array.isArray(mapKeys) && mapKeys.length > 0 && listType !== 'map') {
    errs.push(fieldErrors.invalid(`${path}.x-kubernetes-list-type`, listType ?? '', 'must be map if x-kubernetes-list-map-keys is non-empty'));
  }
  if (listType === 'map' && s.items && s.items.type !== 'object') {
    errs.push(fieldErrors.invalid(`${path}.items.type`, s.items.type ?? '', "must be object if parent array's x-kubernetes-list-type is map"));
  }
  const mapType = s['x-kubernetes-map-type'];
  if (mapType !== undefined && mapType !== 'atomic' && mapType !== 'granular') {
    errs.push(fieldErrors.notSupported(`${path}.x-kubernetes-map-type`, mapType, ['atomic', 'granular']));
  }
  if (typeof s.pattern === 'string' && s.pattern !== '') {
    // Patterns are RE2 (Go's regexp); one RE2 cannot compile is refused now rather than failing every value later.
    const compiled = compilePattern(s.pattern);
    if (!compiled.ok) errs.push(fieldErrors.invalid(`${path}.pattern`, s.pattern, `must be a valid regular expression, but isn't: ${compiled.error}`));
  }
  if (s.default !== undefined && !inJunctor) {
    const defaultErrs = validateSchema(s, s.default, { path: `${path}.default` });
    errs.push(...defaultErrs);
  }
  for (const [k, sub] of Object.entries(s.properties ?? {})) checkNode(sub, `${path}.properties[${k}]`, inJunctor, errs);
  if (typeof s.additionalProperties === 'object') checkNode(s.additionalProperties, `${path}.additionalProperties`, inJunctor, errs);
  if (s.items) checkNode(s.items, `${path}.items`, inJunctor, errs);
  for (const j of ['anyOf', 'allOf', 'oneOf'] as const) {
    (s[j] ?? []).forEach((sub, i) => checkNode(sub, `${path}.${j}[${i}]`, true, errs));
  }
  if (s.not) checkNode(s.not, `${path}.not`, true, errs);
}

/** Warnings for schema features the server accepts but does not enforce (CEL rules). */
export function crdWarnings(crd: KubeObject): string[] {
  const out: string[] = [];
  const versions = rec(crd['spec'])['versions'];
  if (!Array.isArray(versions)) return out;
  versions.forEach((v, i) => {
    const walk = (s: unknown, path: string): void => {
      const n = rec(s);
      if (Array.isArray(n['x-kubernetes-validations']) && n['x-kubernetes-validations'].length > 0) {
        out.push(`${path}.x-kubernetes-validations: CEL validation rules are not enforced by this server`);
      }
      for (const [k, sub] of Object.entries(rec(n['properties']))) walk(sub, `${path}.properties[${k}]`);
      if (typeof n['additionalProperties'] === 'object') walk(n['additionalProperties'], `${path}.additionalProperties`);
      if (n['items']) walk(n['items'], `${path}.items`);
    };
    walk(rec(rec(v)['schema'])['openAPIV3Schema'], `spec.versions[${i}].schema.openAPIV3Schema`);
  });
  return out;
}

/** Create-time defaults: singular, listKind, conversion strategy, storedVersions. Returns a copy. */
export function defaultCustomResourceDefinition(crd: KubeObject): KubeObject {
  const out = structuredClone(crd);
  const spec = rec(out['spec']);
  const names = rec(spec['names']);
  const kind = str(names['kind']);
  if (kind && !names['singular']) names['singular'] = kind.toLowerCase();
  if (kind && !names['listKind']) names['listKind'] = `${kind}List`;
  const conversion = rec(spec['conversion']);
  if (!conversion['strategy']) spec['conversion'] = { ...conversion, strategy: 'None' };
  const status = rec(out['status']);
  const storage = Array.isArray(spec['versions']) ? spec['versions'].map(rec).find((v) => v['storage'] === true) : undefined;
  if (storage && !Array.isArray(status['storedVersions'])) out['status'] = { ...status, storedVersions: [storage['name']] };
  return out;
}
