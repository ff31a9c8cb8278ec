// Registry strategy of CertificateSigningRequest (kube-apiserver's certificates registry), plugged into
// the built-in resource through `builtinResources({ 'certificates.k8s.io/certificatesigningrequests': csrStrategy })`.
//
//   create      spec.username/uid/groups/extra := the requester; status := {} (no pre-approved CSRs)
//   update      metadata only: spec and status come from the stored object
//   /approval   only status.conditions is taken from the body
//   /status     status from the body, spec from storage; Approved/Denied may not be added or removed

import { rfc3339 } from '../../api/conditions.js';
import type { KubeObject } from '../../api/meta.js';
import type { FieldError } from '../http/errors.js';
import type { ResourceStrategy, StrategyContext } from '../registry/types.js';
import {
  APPROVAL_TYPES,
  conditionsOf,
  specOf,
  statusOf,
  validateCertificateField,
  validateConditions,
  validateConditionTransition,
  validateCsrSpec,
  type CsrCondition,
} from './csr-validation.js';

/** Missing lastUpdateTime → now; missing lastTransitionTime → kept from the same type+status, else now. */
function populateConditionTimestamps(conds: CsrCondition[], oldConds: CsrCondition[], now: number): CsrCondition[] {
  return conds.map((c) => {
    if (typeof c !== 'object' || c === null) return c;
    const out = { ...c };
    if (!out.lastUpdateTime) out.lastUpdateTime = rfc3339(new Date(now));
    if (!out.lastTransitionTime) {
      const prev = oldConds.find((o) => o.type === out.type && o.status === out.status && o.lastTransitionTime);
      out.lastTransitionTime = prev?.lastTransitionTime ?? rfc3339(new Date(now));
    }
    return out;
  });
}

function cloneSpec(old: KubeObject): unknown {
  return old.spec === undefined ? undefined : structuredClone(old.spec);
}

export const csrStrategy: ResourceStrategy = {
  prepareForCreate(obj: KubeObject, ctx: StrategyContext): void {
    const spec = { ...specOf(obj) };
    delete spec.uid;
    delete spec.extra;
    spec.username = ctx.user.username;
    if (ctx.user.uid) spec.uid = ctx.user.uid;
    spec.groups = [...ctx.user.groups];
    if (ctx.user.extra && Object.keys(ctx.user.extra).length > 0) spec.extra = structuredClone(ctx.user.extra);
    obj.spec = spec;
    obj.status = {};
  },

  prepareForUpdate(obj: KubeObject, old: KubeObject, ctx: StrategyContext): void {
    obj.spec = cloneSpec(old);
    const oldStatus = statusOf(old);
    const oldConds = conditionsOf(old);
    if (ctx.subresource === 'approval') {
      const conds = Array.isArray(statusOf(obj).conditions) ? statusOf(obj).conditions! : [];
      obj.status = { ...structuredClone(oldStatus), conditions: populateConditionTimestamps(conds, oldConds, ctx.now) };
      if (obj.status && (obj.status as { conditions: unknown[] }).conditions.length === 0) delete (obj.status as { conditions?: unknown }).conditions;
      return;
    }
    if (ctx.subresource === 'status') {
      const status = { ...statusOf(obj) };
      const conds = Array.isArray(status.conditions) ? status.conditions : [];
      // Approved/Denied belong to /approval: a signer echoing them back gets the stored versions.
      const merged = conds.map((c) => {
        if (!(APPROVAL_TYPES as readonly string[]).includes(c?.type ?? '')) return c;
        return oldConds.find((o) => o.type === c.type) ?? c;
      });
      if (merged.length > 0) status.conditions = populateConditionTimestamps(merged, oldConds, ctx.now);
      else delete status.conditions;
      obj.status = status;
      return;
    }
    // Main resource (and any other subresource): metadata only.
    if (old.status === undefined) delete obj.status;
    else obj.status = structuredClone(old.status);
  },

  validate(obj: KubeObject, old: KubeObject | undefined, ctx: StrategyContext): FieldError[] {
    if (!old) return validateCsrSpec(obj);
    const conds = conditionsOf(obj);
    const oldConds = conditionsOf(old);
    if (ctx.subresource === 'approval') {
      return [...validateConditions(conds), ...validateConditionTransition(conds, oldConds, true)];
    }
    if (ctx.subresource === 'status') {
      return [
        ...validateConditions(conds),
        ...validateConditionTransition(conds, oldConds, false),
        ...validateCertificateField(statusOf(obj).certificate, statusOf(old).certificate),
      ];
    }
    return [];
  },
};
