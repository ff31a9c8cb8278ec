// OCM admission, the in-process equivalent of OCM's registration webhook server:
// ManagedCluster mutating + validating, ManagedClusterSetBinding validating. Active only for those
// resources' main endpoint (the webhooks do not cover /status), on CREATE and UPDATE.

import { rfc3339 } from '../../api/conditions.js';
import { storageKey, type AdmissionContext, type AdmissionPlugin, type AdmissionRequest } from '../pipeline.js';
import type { Clock } from '../../util/clock.js';
import { realClock } from '../../util/clock.js';
import { defaultClusterSetLabel, defaultLeaseDuration, mutateTaints } from './managed-cluster-mutating.js';
import { CLUSTER_GROUP, validateClusterSetBinding, validateManagedCluster } from './managed-cluster-validating.js';

export interface OcmAdmissionOptions {
  /** Feature gates by name; `DefaultClusterSet` defaults to true, as in OCM. */
  featureGates?: Record<string, boolean>;
  clock?: Clock;
}

const mainWrite = (req: AdmissionRequest): boolean => req.subresource === '' && (req.operation === 'CREATE' || req.operation === 'UPDATE') && req.object !== undefined;

export function ocmAdmissionPlugins(opts: OcmAdmissionOptions = {}): AdmissionPlugin[] {
  const clock = opts.clock ?? realClock;
  const defaultClusterSet = opts.featureGates?.DefaultClusterSet ?? true;
  return [
    {
      name: 'ManagedClusterMutating',
      handles: (group, resource) => group === CLUSTER_GROUP && resource === 'managedclusters',
      mutate(req: AdmissionRequest): void {
        if (!mainWrite(req)) return;
        const obj = req.object!;
        mutateTaints(obj, req.operation === 'UPDATE' ? req.oldObject : undefined, rfc3339(new Date(clock.now())));
        if (defaultClusterSet) defaultClusterSetLabel(obj);
        defaultLeaseDuration(obj);
      },
    },
    {
      name: 'ManagedClusterValidating',
      handles: (group, resource) => group === CLUSTER_GROUP && resource === 'managedclusters',
      validate(req: AdmissionRequest, ctx: AdmissionContext): void {
        if (!mainWrite(req)) return;
        validateManagedCluster({
          obj: req.object!,
          old: req.operation === 'UPDATE' ? req.oldObject : undefined,
          user: req.user,
          authorizer: ctx.authorizer,
          namespacePhase: (name) => {
            const ns = ctx.store.get(storageKey('', 'namespaces', '', name))?.object;
            if (!ns) return undefined;
            const status = ns.status as { phase?: string } | undefined;
            return status?.phase ?? (ns.metadata.deletionTimestamp ? 'Terminating' : 'Active');
          },
        });
      },
    },
    {
      name: 'ManagedClusterSetBindingValidating',
      handles: (group, resource) => group === CLUSTER_GROUP && resource === 'managedclustersetbindings',
      validate(req: AdmissionRequest, ctx: AdmissionContext): void {
        if (!mainWrite(req)) return;
        validateClusterSetBinding(req.object!, req.operation === 'CREATE', req.user, ctx.authorizer);
      },
    },
  ];
}
