// What each identity may do, read once from the server with SelfSubjectRulesReviews (as that
// identity) and matched against the served resources: the plausible-request generator aims most
// requests at these, so that writes succeed and the rights check has something to check.

import type { CatalogueEntry } from './fuzz-target.js';
import { sendRequest } from './http-exchange.js';
import type { Identity } from './identities.js';

export interface Grant {
  entry: CatalogueEntry;
  /** '' for the object itself. */
  subresource: string;
  /** '' for cluster-scoped resources. */
  namespace: string;
  verb: string;
  /** Object names the rule is limited to ([] = any). */
  names: string[];
}

interface ResourceRule {
  verbs?: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
}

const has = (list: string[] | undefined, v: string): boolean => (list ?? []).includes('*') || (list ?? []).includes(v);

/** Pure: the grants a rule list gives in `namespace` over the catalogue. */
function grantsFromRules(rules: readonly ResourceRule[], catalogue: readonly CatalogueEntry[], namespace: string): Grant[] {
  const out: Grant[] = [];
  for (const rule of rules) {
    for (const e of catalogue) {
      if (!has(rule.apiGroups, e.group)) continue;
      if (e.namespaced !== (namespace !== '')) continue;
      for (const sub of ['', ...e.subresources]) {
        if (!has(rule.resources, sub ? `${e.resource}/${sub}` : e.resource) && !(sub && (rule.resources ?? []).includes(`${e.resource}/*`))) continue;
        for (const verb of rule.verbs ?? []) {
          if (verb === '*') continue; // only superusers; they are fuzzed separately
          out.push({ entry: e, subresource: sub, namespace, verb, names: rule.resourceNames ?? [] });
        }
      }
    }
  }
  return out;
}

/** The identity's grants in each namespace (and at cluster scope). */
export async function readGrants(target: { host: string; port: number }, id: Identity, catalogue: readonly CatalogueEntry[], namespaces: readonly string[]): Promise<Grant[]> {
  const out: Grant[] = [];
  for (const ns of ['', ...namespaces]) {
    const body = Buffer.from(JSON.stringify({ apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace: ns } }));
    const res = await sendRequest(target, id, {
      method: 'POST', path: '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', query: '', headers: { 'content-type': 'application/json' }, body,
    }, { deadlineMs: 10_000 });
    if (res.status !== 201 && res.status !== 200) continue;
    const rules = (JSON.parse(res.body.toString()) as { status?: { resourceRules?: ResourceRule[] } }).status?.resourceRules ?? [];
    out.push(...grantsFromRules(rules, catalogue, ns));
  }
  return out;
}

/** Everything the server serves, for a superuser (whose rules are wildcards). */
export function superuserGrants(catalogue: readonly CatalogueEntry[], namespaces: readonly string[]): Grant[] {
  const out: Grant[] = [];
  for (const e of catalogue) {
    for (const ns of e.namespaced ? namespaces : ['']) {
      for (const verb of e.verbs) out.push({ entry: e, subresource: '', namespace: ns, verb, names: [] });
      for (const sub of e.subresources) for (const verb of ['get', 'update', 'patch']) out.push({ entry: e, subresource: sub, namespace: ns, verb, names: [] });
    }
  }
  return out;
}
