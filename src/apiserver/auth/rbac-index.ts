// In-memory RBAC index: roles by name, bindings by subject. A request
// looks up only the bindings naming its user or one of its groups, so the cost does not grow with
// the number of clusters (10,000 clusters × 4 bindings on a large hub).
//
// Pure data structure: it is fed objects (from a list or watch events) by rbac-authorizer.ts.

import type { KubeObject } from '../../api/meta.js';
import type { RequestAttributes, UserInfo } from '../pipeline.js';
import { describeSubject, ruleAllows, subjectKey, userKeys, type PolicyRule, type RoleRef, type Subject } from './rbac-rules.js';

export const RBAC_GROUP = 'rbac.authorization.k8s.io';

interface BindingEntry {
  kind: 'ClusterRoleBinding' | 'RoleBinding';
  name: string;
  namespace: string;
  roleRef: RoleRef;
  /** subject key → how the subject is described in a reason. */
  subjects: Map<string, string>;
}

export interface RbacDecision {
  allowed: boolean;
  reason: string;
}

type RbacResource = 'clusterroles' | 'roles' | 'clusterrolebindings' | 'rolebindings';

/** Splits a store key `/rbac.authorization.k8s.io/<resource>/<ns>/<name>`. */
function parseRbacKey(key: string): { resource: RbacResource; namespace: string; name: string } | undefined {
  const parts = key.split('/');
  if (parts.length !== 5 || parts[1] !== RBAC_GROUP) return undefined;
  const resource = parts[2];
  if (resource !== 'clusterroles' && resource !== 'roles' && resource !== 'clusterrolebindings' && resource !== 'rolebindings') return undefined;
  return { resource, namespace: parts[3]!, name: parts[4]! };
}

function rulesOf(obj: KubeObject): PolicyRule[] {
  return Array.isArray(obj.rules) ? (obj.rules as PolicyRule[]) : [];
}

export class RbacIndex {
  readonly #clusterRoles = new Map<string, PolicyRule[]>();
  readonly #roles = new Map<string, PolicyRule[]>();
  /** subject key → binding store key → entry */
  readonly #clusterBindings = new Map<string, Map<string, BindingEntry>>();
  /** `<ns>\0<subject key>` → binding store key → entry */
  readonly #nsBindings = new Map<string, Map<string, BindingEntry>>();
  /** binding store key → index keys it was filed under (for removal). */
  readonly #filedUnder = new Map<string, string[]>();

  clear(): void {
    this.#clusterRoles.clear();
    this.#roles.clear();
    this.#clusterBindings.clear();
    this.#nsBindings.clear();
    this.#filedUnder.clear();
  }

  /** Adds or replaces the object stored under `key`. */
  put(key: string, obj: KubeObject): void {
    const k = parseRbacKey(key);
    if (!k) return;
    switch (k.resource) {
      case 'clusterroles':
        this.#clusterRoles.set(k.name, rulesOf(obj));
        return;
      case 'roles':
        this.#roles.set(`${k.namespace}/${k.name}`, rulesOf(obj));
        return;
      default:
        this.#removeBinding(key);
        this.#addBinding(key, k.resource === 'clusterrolebindings' ? 'ClusterRoleBinding' : 'RoleBinding', k.namespace, k.name, obj);
    }
  }

  remove(key: string): void {
    const k = parseRbacKey(key);
    if (!k) return;
    if (k.resource === 'clusterroles') this.#clusterRoles.delete(k.name);
    else if (k.resource === 'roles') this.#roles.delete(`${k.namespace}/${k.name}`);
    else this.#removeBinding(key);
  }

  get size(): { roles: number; bindings: number } {
    return { roles: this.#clusterRoles.size + this.#roles.size, bindings: this.#filedUnder.size };
  }

  #addBinding(key: string, kind: BindingEntry['kind'], namespace: string, name: string, obj: KubeObject): void {
    const roleRef = (obj.roleRef ?? {}) as RoleRef;
    const subjects = new Map<string, string>();
    for (const s of Array.isArray(obj.subjects) ? (obj.subjects as Subject[]) : []) {
      const sk = subjectKey(s, namespace);
      if (sk && !subjects.has(sk)) subjects.set(sk, describeSubject(s, namespace));
    }
    const entry: BindingEntry = { kind, name, namespace, roleRef, subjects };
    const filed: string[] = [];
    for (const sk of subjects.keys()) {
      const indexKey = kind === 'ClusterRoleBinding' ? sk : `${namespace}\0${sk}`;
      const table = kind === 'ClusterRoleBinding' ? this.#clusterBindings : this.#nsBindings;
      let m = table.get(indexKey);
      if (!m) table.set(indexKey, (m = new Map()));
      m.set(key, entry);
      filed.push(indexKey);
    }
    this.#filedUnder.set(key, filed);
  }

  #removeBinding(key: string): void {
    const filed = this.#filedUnder.get(key);
    if (!filed) return;
    const table = parseRbacKey(key)?.resource === 'clusterrolebindings' ? this.#clusterBindings : this.#nsBindings;
    for (const indexKey of filed) {
      const m = table.get(indexKey);
      if (!m) continue;
      m.delete(key);
      if (m.size === 0) table.delete(indexKey);
    }
    this.#filedUnder.delete(key);
  }

  #roleRules(ref: RoleRef, bindingNamespace: string): PolicyRule[] | undefined {
    if (!ref.name) return undefined;
    if (ref.kind === 'ClusterRole') return this.#clusterRoles.get(ref.name);
    if (ref.kind === 'Role' && bindingNamespace) return this.#roles.get(`${bindingNamespace}/${ref.name}`);
    return undefined;
  }

  #check(entries: Map<string, BindingEntry> | undefined, sk: string, attrs: RequestAttributes): string | undefined {
    if (!entries) return undefined;
    for (const b of entries.values()) {
      const rules = this.#roleRules(b.roleRef, b.kind === 'RoleBinding' ? b.namespace : '');
      if (!rules) continue;
      for (const rule of rules) {
        if (ruleAllows(rule, attrs)) {
          const bindingName = b.kind === 'RoleBinding' ? `${b.name}/${b.namespace}` : b.name;
          return `RBAC: allowed by ${b.kind} "${bindingName}" of ${b.roleRef.kind} "${b.roleRef.name}" to ${b.subjects.get(sk)}`;
        }
      }
    }
    return undefined;
  }

  /**
   * RBAC evaluation (after the system:masters shortcut): allowed when any rule reachable from a
   * binding of the user matches.
   */
  evaluate(attrs: RequestAttributes): RbacDecision {
    const keys = userKeys(attrs.user);
    for (const sk of keys) {
      const reason = this.#check(this.#clusterBindings.get(sk), sk, attrs);
      if (reason) return { allowed: true, reason };
    }
    if (attrs.resourceRequest && attrs.namespace) {
      for (const sk of keys) {
        const reason = this.#check(this.#nsBindings.get(`${attrs.namespace}\0${sk}`), sk, attrs);
        if (reason) return { allowed: true, reason };
      }
    }
    return { allowed: false, reason: '' };
  }

  /** Rules that apply to a user in a namespace (for SelfSubjectRulesReview). */
  rulesFor(user: UserInfo, namespace: string): PolicyRule[] {
    const out: PolicyRule[] = [];
    for (const sk of userKeys(user)) {
      for (const b of this.#clusterBindings.get(sk)?.values() ?? []) out.push(...(this.#roleRules(b.roleRef, '') ?? []));
      if (namespace) {
        for (const b of this.#nsBindings.get(`${namespace}\0${sk}`)?.values() ?? []) out.push(...(this.#roleRules(b.roleRef, b.namespace) ?? []));
      }
    }
    return out;
  }
}
