// ManagedClusterAddOnLeaseController: every 30 s (poll only; leases are
// not watched) check each addon's lease — on the spoke, or on the management cluster for Hosted
// addons — and set the addon's Available condition. Addons with a Customized health check are
// left alone. The default key fans out to one key `<installNamespace>/<addonName>` per addon.

import type { ManagedClusterAddOn } from '../../api/addon.js';
import { setCondition } from '../../api/conditions.js';
import type { Lease } from '../../api/core.js';
import { createController } from '../../client/controller.js';
import { isNotFound } from '../../client/errors.js';
import type { InformerFactory } from '../../client/informer-factory.js';
import { resourceTypes } from '../../client/resource-types.js';
import type { KubeClient } from '../../client/types.js';
import { realClock, type Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { patchStatus } from '../../client/patch-writer.js';
import { addonInstallNamespace, hostingClusterName, isHostedAddon } from './addon-helpers.js';
import { ADDON_LEASE_GRACE_MS, addonLeaseCondition, splitAddonKey } from './addon-lease-status.js';

const ADDON_LEASE_CONTROLLER_NAME = 'ManagedClusterAddOnLeaseController';
const DEFAULT_ADDON_LEASE_RESYNC_MS = 30_000;
const DEFAULT_KEY = 'key';

export interface AddonLeaseControllerOptions {
  clusterName: string;
  /** Hub client (agent hub credentials): addon status patches. */
  hubClient: KubeClient;
  /** Shared hub informers; uses managedclusteraddons (v1beta1) in namespace `<cluster>`. */
  hubInformers: InformerFactory;
  /** Spoke client: addon leases. */
  spokeClient: KubeClient;
  /** Management cluster client: leases of Hosted addons (default: the spoke client). */
  managementClient?: KubeClient;
  /** Check period (default 30 000 ms). */
  resyncMs?: number;
  /** Lease grace period (default 300 000 ms). */
  gracePeriodMs?: number;
  log: Logger;
  clock?: Clock;
}

export interface AddonLeaseController {
  readonly name: string;
  /** One sync of a key (exposed for tests). */
  sync(key: string, signal: AbortSignal): Promise<void>;
  run(signal: AbortSignal): Promise<void>;
}

/** Lease event → queue key, only for a lease named like an addon in its install namespace (unused upstream too). */
export function leaseQueueKey(lease: Lease, getAddon: (name: string) => ManagedClusterAddOn | undefined): string {
  const name = lease.metadata.name ?? '';
  const addon = getAddon(name);
  if (!addon || addonInstallNamespace(addon) !== lease.metadata.namespace) return '';
  return `${lease.metadata.namespace}/${name}`;
}

export function createAddonLeaseController(o: AddonLeaseControllerOptions): AddonLeaseController {
  if (!o.clusterName) throw new Error('createAddonLeaseController: clusterName is required');
  const clock = o.clock ?? realClock;
  const log = o.log.child({ controller: ADDON_LEASE_CONTROLLER_NAME });
  const informer = o.hubInformers.informerFor<ManagedClusterAddOn>(resourceTypes.managedClusterAddOns, { namespace: o.clusterName });
  const addons = o.hubClient.resource<ManagedClusterAddOn>(resourceTypes.managedClusterAddOns, o.clusterName);
  const management = o.managementClient ?? o.spokeClient;
  let controller: { enqueue(key: string): void } | undefined;

  const sync = async (key: string, signal: AbortSignal): Promise<void> => {
    if (key === DEFAULT_KEY) {
      for (const a of informer.lister.list({ namespace: o.clusterName })) controller?.enqueue(`${addonInstallNamespace(a)}/${a.metadata.name}`);
      return;
    }
    const parts = splitAddonKey(key);
    if (!parts) return; // malformed: ignore
    const cached = informer.lister.get(parts.name, o.clusterName);
    if (!cached) return;
    if (cached.status?.healthCheck?.mode === 'Customized') return;
    const hosted = isHostedAddon(cached);
    const client = hosted ? management : o.spokeClient;
    let lease: Lease | undefined;
    try {
      lease = await client.resource<Lease>(resourceTypes.leases, parts.namespace).get(parts.name, { signal });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    const condition = addonLeaseCondition({
      addonName: parts.name,
      lease,
      hostingCluster: hosted ? hostingClusterName(cached) : '',
      nowMs: clock.now(),
      graceMs: o.gracePeriodMs ?? ADDON_LEASE_GRACE_MS,
    });
    const next = structuredClone(cached);
    next.status = { ...(next.status ?? {}), conditions: setCondition(next.status?.conditions, condition, new Date(clock.now())) };
    if (!(await patchStatus(addons, cached, next.status, signal))) return;
    log.info(`update managed cluster addon "${parts.name}" available condition to "${condition.status}" with its lease "${parts.namespace}"/"${parts.name}" status`, {
      reason: 'ManagedClusterAddOnStatusUpdated',
    });
  };

  const c = createController({
    waitForSync: [informer],
    name: ADDON_LEASE_CONTROLLER_NAME,
    log: o.log,
    clock,
    resyncMs: o.resyncMs ?? DEFAULT_ADDON_LEASE_RESYNC_MS,
    resyncKeys: () => [DEFAULT_KEY],
    reconcile: async (key, signal) => sync(key, signal),
  });
  controller = c;

  return {
    name: ADDON_LEASE_CONTROLLER_NAME,
    sync,
    async run(signal) {
      c.enqueue(DEFAULT_KEY);
      await c.run(signal);
    },
  };
}
