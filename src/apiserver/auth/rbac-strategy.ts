// Registry strategies of the RBAC kinds, as kube-apiserver validates them: bindings need a valid
// roleRef, which is immutable (`cannot change roleRef`), and well-formed subjects. Plug in through
// `builtinResources(rbacStrategyOverrides())`.

import type { KubeObject } from '../../api/meta.js';
import { labelSelectorFromObject, type LabelSelectorObject } from '../../api/label-selectors.js';
import { errorMessage } from '../../util/errors.js';
import { jsonEqual } from '../../util/merge-patch.js';
import { fieldErrors, type FieldError } from '../http/errors.js';
import type { ResourceStrategy } from '../registry/types.js';
import type { RoleRef, Subject } from './rbac-rules.js';

const RBAC_GROUP = 'rbac.authorization.k8s.io';

function roleRefErrors(ref: RoleRef | undefined, clusterScoped: boolean): FieldError[] {
  // A missing roleRef reads as an empty one (it is a struct, not a pointer, in kube-apiserver).
  if (!ref || typeof ref !== 'object') ref = { apiGroup: RBAC_GROUP };
  const errs: FieldError[] = [];
  if (ref.apiGroup !== RBAC_GROUP) errs.push(fieldErrors.notSupported('roleRef.apiGroup', ref.apiGroup ?? '', [RBAC_GROUP]));
  const kinds = clusterScoped ? ['ClusterRole'] : ['Role', 'ClusterRole'];
  if (!kinds.includes(ref.kind ?? '')) errs.push(fieldErrors.notSupported('roleRef.kind', ref.kind ?? '', kinds));
  if (!ref.name) errs.push(fieldErrors.required('roleRef.name'));
  return errs;
}

function subjectErrors(subjects: unknown, clusterScoped: boolean): FieldError[] {
  if (subjects === undefined || subjects === null) return [];
  if (!Array.isArray(subjects)) return [fieldErrors.typeInvalid('subjects', subjects, 'must be a list')];
  const errs: FieldError[] = [];
  (subjects as Subject[]).forEach((s, i) => {
    const f = `subjects[${i}]`;
    if (!s?.name) errs.push(fieldErrors.required(`${f}.name`));
    if (s?.kind === 'ServiceAccount') {
      if (clusterScoped && !s.namespace) errs.push(fieldErrors.required(`${f}.namespace`));
    } else if (s?.kind === 'User' || s?.kind === 'Group') {
      if (s.apiGroup !== RBAC_GROUP) errs.push(fieldErrors.notSupported(`${f}.apiGroup`, s.apiGroup ?? '', [RBAC_GROUP]));
    } else {
      errs.push(fieldErrors.notSupported(`${f}.kind`, s?.kind ?? '', ['ServiceAccount', 'User', 'Group']));
    }
  });
  return errs;
}

/** v1 defaulting: roleRef, User and Group subjects without apiGroup get rbac.authorization.k8s.io. */
function defaultSubjects(obj: KubeObject): void {
  const ref = obj.roleRef as RoleRef | undefined;
  if (ref && typeof ref === 'object' && !ref.apiGroup) ref.apiGroup = RBAC_GROUP;
  if (!Array.isArray(obj.subjects)) return;
  for (const sub of obj.subjects as Subject[]) {
    if (sub && typeof sub === 'object' && !sub.apiGroup && (sub.kind === 'User' || sub.kind === 'Group')) sub.apiGroup = RBAC_GROUP;
  }
}

function bindingStrategy(clusterScoped: boolean): ResourceStrategy {
  return {
    prepareForCreate: (obj) => defaultSubjects(obj),
    prepareForUpdate: (obj) => defaultSubjects(obj),
    validate(obj: KubeObject, old: KubeObject | undefined): FieldError[] {
      const errs = [...roleRefErrors(obj.roleRef as RoleRef | undefined, clusterScoped), ...subjectErrors(obj.subjects, clusterScoped)];
      if (old && !jsonEqual(old.roleRef ?? null, obj.roleRef ?? null)) {
        // kube-apiserver quotes the internal struct, whose JSON has Go's field names.
        const ref = (obj.roleRef ?? {}) as RoleRef;
        errs.push(fieldErrors.invalid('roleRef', { APIGroup: ref.apiGroup ?? '', Kind: ref.kind ?? '', Name: ref.name ?? '' }, 'cannot change roleRef'));
      }
      return errs;
    },
  };
}

const nonEmpty = (v: unknown): boolean => Array.isArray(v) && v.length > 0;

/** One policy rule, checked as kube-apiserver checks it: a rule is either about URLs or about resources. */
function policyRuleErrors(r: Record<string, unknown> | undefined, f: string, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  if (!nonEmpty(r?.verbs)) errs.push(fieldErrors.required(`${f}.verbs`, 'verbs must contain at least one value'));
  if (nonEmpty(r?.nonResourceURLs)) {
    if (namespaced) errs.push(fieldErrors.invalid(`${f}.nonResourceURLs`, r?.nonResourceURLs, 'namespaced rules cannot apply to non-resource URLs'));
    if (nonEmpty(r?.apiGroups) || nonEmpty(r?.resources) || nonEmpty(r?.resourceNames)) {
      errs.push(fieldErrors.invalid(`${f}.nonResourceURLs`, r?.nonResourceURLs, 'rules cannot apply to both regular resources and non-resource URLs'));
    }
    return errs;
  }
  if (!nonEmpty(r?.apiGroups)) errs.push(fieldErrors.required(`${f}.apiGroups`, 'resource rules must supply at least one api group'));
  if (!nonEmpty(r?.resources)) errs.push(fieldErrors.required(`${f}.resources`, 'resource rules must supply at least one resource'));
  return errs;
}

function rulesStrategy(namespaced: boolean): ResourceStrategy {
  return {
    validate(obj: KubeObject): FieldError[] {
      if (obj.rules === undefined || obj.rules === null) return [];
      if (!Array.isArray(obj.rules)) return [fieldErrors.typeInvalid('rules', obj.rules, 'must be a list')];
      return (obj.rules as Array<Record<string, unknown> | undefined>).flatMap((r, i) => policyRuleErrors(r, `rules[${i}]`, namespaced));
    },
  };
}

const roleStrategy = rulesStrategy(true);
const clusterRoleRulesStrategy = rulesStrategy(false);

/** An aggregationRule needs at least one selector, and every selector must parse. */
function aggregationRuleErrors(rule: unknown): FieldError[] {
  if (rule === undefined || rule === null) return [];
  if (typeof rule !== 'object' || Array.isArray(rule)) return [fieldErrors.typeInvalid('aggregationRule', rule, 'must be an object')];
  const selectors = (rule as { clusterRoleSelectors?: unknown }).clusterRoleSelectors;
  if (!Array.isArray(selectors) || selectors.length === 0) {
    return [fieldErrors.required('aggregationRule.clusterRoleSelectors', 'at least one clusterRoleSelector required if aggregationRule is non-nil')];
  }
  const errs: FieldError[] = [];
  selectors.forEach((sel, i) => {
    try {
      labelSelectorFromObject(sel as LabelSelectorObject);
    } catch (err) {
      errs.push(fieldErrors.invalid(`aggregationRule.clusterRoleSelectors[${i}]`, sel, errorMessage(err)));
    }
  });
  return errs;
}

const clusterRoleStrategy: ResourceStrategy = {
  validate: (obj, old, ctx) => [...(clusterRoleRulesStrategy.validate?.(obj, old, ctx) ?? []), ...aggregationRuleErrors(obj.aggregationRule)],
};

/** Strategy overrides keyed `<group>/<resource>` for the registry's built-in RBAC kinds. */
export function rbacStrategyOverrides(): Record<string, ResourceStrategy> {
  return {
    [`${RBAC_GROUP}/rolebindings`]: bindingStrategy(false),
    [`${RBAC_GROUP}/clusterrolebindings`]: bindingStrategy(true),
    [`${RBAC_GROUP}/roles`]: roleStrategy,
    [`${RBAC_GROUP}/clusterroles`]: clusterRoleStrategy,
  };
}
