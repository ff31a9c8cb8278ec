// OCM admission, the in-process equivalent of OCM's registration webhook server:
// ManagedCluster mutating + validating, ManagedClusterSetBinding validating. Active only for those
// resources' main endpoint (the webhooks do not cover /status), on CREATE and UPDATE. The rules
// themselves live in api/admission/, shared with the webhook server; this module feeds them the
// server's authorizer and store (synchronous answers) and maps their refusals onto the catalogue.

import { AdmissionError } from '../../api/admission/admission-error.js';
import { mutateManagedCluster } from '../../api/admission/managed-cluster-mutating.js';
import {
  CLUSTER_GROUP, validateClusterSetBinding, validateManagedCluster, type Authorize,
} from '../../api/admission/managed-cluster-validating.js';
import { runSync, type Steps } from '../../api/admission/steps.js';
import { rfc3339 } from '../../api/conditions.js';
import { errors } from '../http/errors.js';
import { storageKey, type AdmissionContext, type AdmissionPlugin, type AdmissionRequest } from '../pipeline.js';
import type { Clock } from '../../util/clock.js';
import { realClock } from '../../util/clock.js';

export interface OcmAdmissionOptions {
  /** Feature gates by name; `DefaultClusterSet` defaults to true, as in OCM. */
  featureGates?: Record<string, boolean>;
  clock?: Clock;
}

const mainWrite = (req: AdmissionRequest): boolean => req.subresource === '' && (req.operation === 'CREATE' || req.operation === 'UPDATE') && req.object !== undefined;

/** A shared rule's refusal as the catalogue's error with the same Status; anything else unchanged. */
function asApiError(err: unknown): unknown {
  if (!(err instanceof AdmissionError)) return err;
  const r = err.refusal;
  return r.reason === 'BadRequest' ? errors.badRequest(r.message) : errors.forbidden(r.qualifiedResource, r.name, r.detail);
}

function run(rule: () => Steps<void> | void): void {
  try {
    const steps = rule();
    if (steps) runSync(steps);
  } catch (err) {
    throw asApiError(err);
  }
}

function authorizeWith(ctx: AdmissionContext): Authorize {
  return (c) => ctx.authorizer.authorize({
    user: c.user, verb: c.verb, resourceRequest: true, path: '', apiGroup: c.group, apiVersion: '*',
    resource: c.resource, subresource: c.subresource, namespace: '', name: c.name,
  }).decision === 'allow';
}

export function ocmAdmissionPlugins(opts: OcmAdmissionOptions = {}): AdmissionPlugin[] {
  const clock = opts.clock ?? realClock;
  const defaultClusterSet = opts.featureGates?.DefaultClusterSet ?? true;
  return [
    {
      name: 'ManagedClusterMutating',
      handles: (group, resource) => group === CLUSTER_GROUP && resource === 'managedclusters',
      mutate(req: AdmissionRequest): void {
        if (!mainWrite(req)) return;
        const old = req.operation === 'UPDATE' ? req.oldObject : undefined;
        run(() => mutateManagedCluster(req.object!, old, { nowRfc3339: rfc3339(new Date(clock.now())), defaultClusterSet }));
      },
    },
    {
      name: 'ManagedClusterValidating',
      handles: (group, resource) => group === CLUSTER_GROUP && resource === 'managedclusters',
      validate(req: AdmissionRequest, ctx: AdmissionContext): void {
        if (!mainWrite(req)) return;
        run(() => validateManagedCluster({
          obj: req.object!,
          old: req.operation === 'UPDATE' ? req.oldObject : undefined,
          user: req.user,
          authorize: authorizeWith(ctx),
          namespacePhase: (name) => {
            const ns = ctx.store.get(storageKey('', 'namespaces', '', name))?.object;
            if (!ns) return undefined;
            const status = ns.status as { phase?: string } | undefined;
            return status?.phase ?? (ns.metadata.deletionTimestamp ? 'Terminating' : 'Active');
          },
        }));
      },
    },
    {
      name: 'ManagedClusterSetBindingValidating',
      handles: (group, resource) => group === CLUSTER_GROUP && resource === 'managedclustersetbindings',
      validate(req: AdmissionRequest, ctx: AdmissionContext): void {
        if (!mainWrite(req)) return;
        run(() => validateClusterSetBinding({ obj: req.object!, isCreate: req.operation === 'CREATE', user: req.user, authorize: authorizeWith(ctx) }));
      },
    },
  ];
}
