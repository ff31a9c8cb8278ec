// Pure decision of ManagedClusterAddOnLeaseController: the addon's Available
// condition from its lease (renewTime within the 300 s grace period), or Unknown when there is none.

import { conditionTypes, reasons } from '../../api/constants.js';
import type { Lease } from '../../api/core.js';
import type { Condition } from '../../api/meta.js';

export const ADDON_LEASE_GRACE_MS = 5 * 60_000;

export function addonLeaseCondition(input: {
  addonName: string;
  /** undefined = the lease does not exist. */
  lease: Lease | undefined;
  /** Non-empty for Hosted addons (the lease is looked up on the management cluster). */
  hostingCluster: string;
  nowMs: number;
  graceMs?: number;
}): Condition {
  const { addonName, lease } = input;
  if (!lease) {
    let message = `The status of ${addonName} add-on is unknown.`;
    if (input.hostingCluster) {
      message += ` No lease found on hosting cluster "${input.hostingCluster}"; verify it matches the cluster where this managed cluster's klusterlet actually runs.`;
    }
    return { type: conditionTypes.addonAvailable, status: 'Unknown', reason: reasons.addonLeaseNotFound, message };
  }
  const renew = lease.spec?.renewTime ? Date.parse(lease.spec.renewTime) : NaN;
  if (Number.isFinite(renew) && input.nowMs < renew + (input.graceMs ?? ADDON_LEASE_GRACE_MS)) {
    return { type: conditionTypes.addonAvailable, status: 'True', reason: reasons.addonLeaseUpdated, message: `${addonName} add-on is available.` };
  }
  return { type: conditionTypes.addonAvailable, status: 'False', reason: reasons.addonLeaseUpdateStopped, message: `${addonName} add-on is not available.` };
}

/** Queue key `<installNamespace>/<addonName>` split back; undefined when malformed. */
export function splitAddonKey(key: string): { namespace: string; name: string } | undefined {
  const parts = key.split('/');
  if (parts.length !== 2 || !parts[0] || !parts[1]) return undefined;
  return { namespace: parts[0], name: parts[1] };
}
