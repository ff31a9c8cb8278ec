// Pure RBAC decisions, as kube-apiserver's RBAC authorizer makes them: does a PolicyRule cover a
// request, does a binding subject name a user. No store, clock or logger here; the table tests
// live beside it.

import type { RequestAttributes, UserInfo } from '../pipeline.js';

export interface PolicyRule {
  verbs?: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

export interface Subject {
  kind?: string;
  apiGroup?: string;
  name?: string;
  namespace?: string;
}

export interface RoleRef {
  apiGroup?: string;
  kind?: string;
  name?: string;
}

const has = (list: readonly string[] | undefined, v: string): boolean => list !== undefined && (list.includes('*') || list.includes(v));

function verbMatches(rule: PolicyRule, verb: string): boolean {
  return has(rule.verbs, verb);
}

function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  return has(rule.apiGroups, group);
}

/**
 * `resources` holds `resource`, `resource/subresource`, `*` or `* /subresource` (without the
 * space). A rule for `managedclusters` does not cover `managedclusters/status`.
 */
function resourceMatches(rule: PolicyRule, resource: string, subresource: string): boolean {
  const list = rule.resources;
  if (!list) return false;
  const combined = subresource ? `${resource}/${subresource}` : resource;
  for (const r of list) {
    if (r === '*' || r === combined) return true;
    if (subresource && r === `*/${subresource}`) return true;
  }
  return false;
}

/** Empty resourceNames allow any name; otherwise the request must carry one of them. */
function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  if (!rule.resourceNames || rule.resourceNames.length === 0) return true;
  return name !== '' && rule.resourceNames.includes(name);
}

/** `*`, an exact path, or a prefix ending in `*`. */
function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  for (const u of rule.nonResourceURLs ?? []) {
    if (u === '*' || u === path) return true;
    if (u.endsWith('*') && path.startsWith(u.slice(0, -1))) return true;
  }
  return false;
}

/** Whether a rule allows the request. Resource rules never match non-resource requests and vice versa. */
export function ruleAllows(rule: PolicyRule, attrs: Pick<RequestAttributes, 'verb' | 'resourceRequest' | 'path' | 'apiGroup' | 'resource' | 'subresource' | 'name'>): boolean {
  if (!verbMatches(rule, attrs.verb)) return false;
  if (attrs.resourceRequest) {
    return apiGroupMatches(rule, attrs.apiGroup) && resourceMatches(rule, attrs.resource, attrs.subresource) && resourceNameMatches(rule, attrs.name);
  }
  return nonResourceURLMatches(rule, attrs.path);
}

export function serviceAccountUsername(namespace: string, name: string): string {
  return `system:serviceaccount:${namespace}:${name}`;
}

/**
 * The user string a subject names (`user:<name>`, `group:<name>`), for indexing. ServiceAccount
 * subjects become the user `system:serviceaccount:<ns>:<name>` (namespace defaulting to the
 * binding's). Returns undefined for a malformed subject.
 */
export function subjectKey(subject: Subject, bindingNamespace: string): string | undefined {
  if (!subject.name) return undefined;
  switch (subject.kind) {
    case 'User':
      return `user:${subject.name}`;
    case 'Group':
      return `group:${subject.name}`;
    case 'ServiceAccount': {
      const ns = subject.namespace || bindingNamespace;
      if (!ns) return undefined;
      return `user:${serviceAccountUsername(ns, subject.name)}`;
    }
    default:
      return undefined;
  }
}

/** Index keys under which a user's bindings are found: the user name and each group. */
export function userKeys(user: UserInfo): string[] {
  return [`user:${user.username}`, ...user.groups.map((g) => `group:${g}`)];
}

/** How a subject is described in an allow reason: `User "x"`, `Group "y"`, `ServiceAccount "ns/n"`. */
export function describeSubject(subject: Subject, bindingNamespace: string): string {
  if (subject.kind === 'ServiceAccount') return `ServiceAccount "${subject.namespace || bindingNamespace}/${subject.name ?? ''}"`;
  return `${subject.kind ?? 'Unknown'} "${subject.name ?? ''}"`;
}
