// RBAC escalation prevention, as kube-apiserver's RBAC storage enforces it: a Role or ClusterRole
// may only be written by someone who already holds every rule it contains (where it applies), and
// a binding only by someone who holds every rule of the role it references. The `escalate` verb
// on roles/clusterroles and the `bind` verb on the referenced role lift the respective check;
// system:masters is never checked. Without this, anyone allowed to write RBAC objects could grant
// itself cluster-admin.
//
// Runs as a validating admission step on create and update (patch and apply included), after the
// object is complete. Updates that only touch what garbage collection needs (finalizers, owner
// references) pass, so cleanup never needs the permissions the object grants.

import type { KubeObject } from '../../api/meta.js';
import { errors } from '../http/errors.js';
import { storageKey, type AdmissionContext, type AdmissionPlugin, type AdmissionRequest, type RequestAttributes, type UserInfo } from '../pipeline.js';
import { covers, escalationMessage, FULL_AUTHORITY } from './rbac-covers.js';
import { MASTERS_GROUP, type RbacAuthorizer } from './rbac-authorizer.js';
import { RBAC_GROUP } from './rbac-index.js';
import type { PolicyRule, RoleRef } from './rbac-rules.js';

const ROLE_RESOURCES = new Set(['roles', 'clusterroles']);
const BINDING_RESOURCES = new Set(['rolebindings', 'clusterrolebindings']);

/** Metadata a garbage collector changes, and metadata the server itself maintains. */
const GC_AND_SERVER_FIELDS = ['ownerReferences', 'finalizers', 'selfLink', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'resourceVersion', 'managedFields', 'generation'] as const;

function withoutGcFields(obj: KubeObject): unknown {
  const meta: Record<string, unknown> = { ...obj.metadata };
  for (const f of GC_AND_SERVER_FIELDS) delete meta[f];
  return { ...obj, metadata: meta };
}

/** Stable JSON (object keys sorted) for comparing two objects. */
function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, val: unknown) => {
    if (val === null || typeof val !== 'object' || Array.isArray(val)) return val;
    return Object.fromEntries(Object.entries(val as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  });
}

/** Whether an update changes nothing but garbage-collection (and server-maintained) metadata. */
export function onlyGcFieldsChanged(obj: KubeObject, old: KubeObject): boolean {
  return canonical(withoutGcFields(obj)) === canonical(withoutGcFields(old));
}

function rulesOf(obj: KubeObject | undefined): PolicyRule[] {
  return Array.isArray(obj?.rules) ? (obj.rules as PolicyRule[]) : [];
}

const hasAggregationRule = (obj: KubeObject | undefined): boolean => obj?.aggregationRule !== undefined && obj.aggregationRule !== null;

function rbacAttributes(user: UserInfo, verb: string, resource: string, namespace: string, name: string): RequestAttributes {
  return { user, verb, resourceRequest: true, path: '', apiGroup: RBAC_GROUP, apiVersion: '*', resource, subresource: '', namespace, name };
}

/** The role a binding grants, read from storage so that a role written just before is seen. */
function referencedRules(ref: RoleRef, namespace: string, ctx: AdmissionContext): PolicyRule[] {
  const name = ref.name ?? '';
  if (ref.kind !== 'ClusterRole' && ref.kind !== 'Role') throw errors.badRequest(`unsupported role reference kind: ${JSON.stringify(ref.kind ?? '')}`);
  const resource = ref.kind === 'ClusterRole' ? 'clusterroles' : 'roles';
  const stored = ctx.store.get(storageKey(RBAC_GROUP, resource, ref.kind === 'ClusterRole' ? '' : namespace, name));
  if (!stored) throw errors.notFound({ group: RBAC_GROUP, resource }, name);
  return rulesOf(stored.object);
}

export interface EscalationCheck {
  authorizer: RbacAuthorizer;
}

/** The admission step; `authorizer` answers the `escalate`/`bind` checks and lists the requester's rules. */
export function rbacEscalationAdmission(o: EscalationCheck): AdmissionPlugin {
  const { authorizer } = o;
  const allowed = (attrs: RequestAttributes): boolean => authorizer.authorize(attrs).decision === 'allow';

  const refuseUnlessHeld = (req: AdmissionRequest, wanted: readonly PolicyRule[]): void => {
    const owned = authorizer.index.rulesFor(req.user, req.namespace);
    const r = covers(owned, wanted);
    if (!r.covered) throw errors.forbidden({ group: RBAC_GROUP, resource: req.resource.resource }, req.name, escalationMessage(req.user, r.missing));
  };

  const checkRole = (req: AdmissionRequest, obj: KubeObject): void => {
    // Like kube-apiserver, the escalate check names the object only when the URL does (not on create).
    const name = req.operation === 'CREATE' ? '' : req.name;
    if (allowed(rbacAttributes(req.user, 'escalate', req.resource.resource, req.namespace, name))) return;
    refuseUnlessHeld(req, rulesOf(obj));
    // An aggregation rule can gather any permission, so setting or changing one needs them all.
    if (req.resource.resource === 'clusterroles' && (hasAggregationRule(obj) || hasAggregationRule(req.oldObject))) {
      if (!covers(authorizer.index.rulesFor(req.user, req.namespace), FULL_AUTHORITY).covered) {
        throw errors.forbidden({ group: RBAC_GROUP, resource: 'clusterroles' }, req.name, 'must have cluster-admin privileges to use the aggregationRule');
      }
    }
  };

  const checkBinding = (req: AdmissionRequest, obj: KubeObject, ctx: AdmissionContext): void => {
    const ref = (obj.roleRef ?? {}) as RoleRef;
    const roleResource = ref.kind === 'ClusterRole' ? 'clusterroles' : ref.kind === 'Role' ? 'roles' : '';
    if (roleResource && ref.apiGroup === RBAC_GROUP && allowed(rbacAttributes(req.user, 'bind', roleResource, req.namespace, ref.name ?? ''))) return;
    refuseUnlessHeld(req, referencedRules(ref, req.namespace, ctx));
  };

  return {
    name: 'RBACEscalationPrevention',
    handles: (group, resource) => group === RBAC_GROUP && (ROLE_RESOURCES.has(resource) || BINDING_RESOURCES.has(resource)),
    validate(req, ctx): void {
      const obj = req.object;
      if (!obj || req.subresource !== '' || (req.operation !== 'CREATE' && req.operation !== 'UPDATE')) return;
      if (req.user.groups.includes(MASTERS_GROUP)) return;
      if (req.operation === 'UPDATE' && req.oldObject && onlyGcFieldsChanged(obj, req.oldObject)) return;
      if (ROLE_RESOURCES.has(req.resource.resource)) checkRole(req, obj);
      else checkBinding(req, obj, ctx);
    },
  };
}
