// Whether one set of RBAC rules covers another, and how the uncovered part is described: the
// comparison behind escalation prevention (a role or binding may only grant what its author holds).
// Pure functions over PolicyRule lists, compared the way kube-apiserver compares them.

import type { UserInfo } from '../pipeline.js';
import type { PolicyRule } from './rbac-rules.js';
import { trimTrailing } from '../../util/trim-trailing.js';

/** Everything: what cluster-admin holds. */
export const FULL_AUTHORITY: readonly PolicyRule[] = Object.freeze([
  { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
  { nonResourceURLs: ['*'], verbs: ['*'] },
]);

const list = (v: readonly string[] | undefined): readonly string[] => (Array.isArray(v) ? v : []);
const has = (set: readonly string[] | undefined, v: string): boolean => list(set).includes(v);
const hasAll = (set: readonly string[] | undefined, wanted: readonly string[] | undefined): boolean => list(wanted).every((w) => has(set, w));

/**
 * Splits a rule into rules of one group, resource, verb and (when it names some) resource name,
 * plus one rule per non-resource URL and verb. Each piece is then covered entirely by a single
 * owner rule or not at all, which keeps the comparison exact.
 */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const group of list(rule.apiGroups)) {
    for (const resource of list(rule.resources)) {
      for (const verb of list(rule.verbs)) {
        const names = list(rule.resourceNames);
        if (names.length === 0) out.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
        else for (const n of names) out.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [n] });
      }
    }
  }
  for (const url of list(rule.nonResourceURLs)) {
    for (const verb of list(rule.verbs)) out.push({ nonResourceURLs: [url], verbs: [verb] });
  }
  return out;
}

/** `*` covers every resource, `* /sub` (without the space) every `<resource>/sub`. */
function resourcesCovered(owner: readonly string[] | undefined, wanted: readonly string[] | undefined): boolean {
  if (has(owner, '*') || hasAll(owner, wanted)) return true;
  return list(wanted).every((path) => {
    if (has(owner, path)) return true;
    const slash = path.indexOf('/');
    return slash >= 0 && has(owner, `*/${path.slice(slash + 1)}`);
  });
}

function urlCovers(owner: string, path: string): boolean {
  return owner === path || (owner.endsWith('*') && path.startsWith(trimTrailing(owner, '*')));
}

/** Whether `owner` covers `sub`, a piece produced by breakdownRule. */
export function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const verbs = has(owner.verbs, '*') || hasAll(owner.verbs, sub.verbs);
  const groups = has(owner.apiGroups, '*') || hasAll(owner.apiGroups, sub.apiGroups);
  const resources = resourcesCovered(owner.resources, sub.resources);
  const urls = list(sub.nonResourceURLs).every((p) => list(owner.nonResourceURLs).some((o) => urlCovers(o, p)));
  const ownerNames = list(owner.resourceNames);
  // An owner rule limited to some names never covers a rule for every name.
  const names = list(sub.resourceNames).length === 0 ? ownerNames.length === 0 : ownerNames.length === 0 || hasAll(ownerNames, sub.resourceNames);
  return verbs && groups && resources && urls && names;
}

/** Whether `owner` covers every rule of `wanted`; `missing` lists the uncovered pieces. */
export function covers(owner: readonly PolicyRule[], wanted: readonly PolicyRule[]): { covered: boolean; missing: PolicyRule[] } {
  const missing: PolicyRule[] = [];
  for (const rule of wanted) {
    for (const piece of breakdownRule(rule)) {
      if (!owner.some((o) => ruleCovers(o, piece))) missing.push(piece);
    }
  }
  return { covered: missing.length === 0, missing };
}

/** One group, one resource, at most one name and no URLs: such rules differ only by verbs. */
function simpleKey(rule: PolicyRule): string | undefined {
  const names = list(rule.resourceNames);
  if (names.length > 1 || list(rule.nonResourceURLs).length > 0) return undefined;
  if (list(rule.apiGroups).length !== 1 || list(rule.resources).length !== 1) return undefined;
  return JSON.stringify([rule.apiGroups![0], rule.resources![0], names.length > 0, names[0] ?? '']);
}

/** Merges rules that differ only by their verbs, for shorter messages. */
export function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const out: PolicyRule[] = [];
  const simple = new Map<string, PolicyRule>();
  for (const r of rules) {
    const key = simpleKey(r);
    if (key === undefined) {
      out.push(r);
      continue;
    }
    const seen = simple.get(key);
    if (seen) seen.verbs = [...list(seen.verbs), ...list(r.verbs)];
    else simple.set(key, { ...r, verbs: [...list(r.verbs)] });
  }
  return [...out, ...simple.values()];
}

/** Go's `%q` of a string list: `["a" "b"]`. */
function quotedList(values: readonly string[]): string {
  return `[${values.map((v) => JSON.stringify(v)).join(' ')}]`;
}

/** `{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}`, the form kube-apiserver prints. */
export function compactString(rule: PolicyRule): string {
  const parts: string[] = [];
  const add = (label: string, values: readonly string[] | undefined): void => {
    if (list(values).length > 0) parts.push(`${label}:${quotedList(list(values))}`);
  };
  add('APIGroups', rule.apiGroups);
  add('Resources', rule.resources);
  add('NonResourceURLs', rule.nonResourceURLs);
  add('ResourceNames', rule.resourceNames);
  add('Verbs', rule.verbs);
  return `{${parts.join(', ')}}`;
}

/** Why a grant is refused: who asked and, one per line, sorted, the permissions it does not hold. */
export function escalationMessage(user: UserInfo, missing: readonly PolicyRule[]): string {
  const lines = [...new Set(compactRules(missing).map(compactString))].sort();
  return `user ${JSON.stringify(user.username)} (groups=${quotedList(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${lines.join('\n')}`;
}
