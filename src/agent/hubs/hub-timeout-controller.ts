// HubTimeoutController: MultipleHubs only. Every minute (and at start)
// read the hub cluster lease; when it has not been renewed for `--hub-connection-timeout-seconds`
// (and the agent has been up for at least 10 s), ask the agent to restart so that it reselects a
// bootstrap kubeconfig. An unreachable hub counts from the first failed read. Never fails.

import { names } from '../../api/constants.js';
import type { Lease } from '../../api/core.js';
import { createController } from '../../client/controller.js';
import { resourceTypes } from '../../client/resource-types.js';
import type { KubeClient } from '../../client/types.js';
import { realClock, type Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { isoUtc } from '../../util/utc-time.js';

export const HUB_TIMEOUT_CONTROLLER_NAME = 'HubTimeoutController';
const LEASE_TIMEOUT_MESSAGE = 'Failed to connect to hub because of lease out-of-date, restart agent to reselect a new bootstrap kubeconfig';
const DEFAULT_HUB_CONNECTION_TIMEOUT_SECONDS = 600;
const DEFAULT_HUB_TIMEOUT_RESYNC_MS = 60_000;
const HUB_TIMEOUT_STARTUP_GRACE_MS = 10_000;

/** Pure: strictly after renew + timeout. */
export function isLeaseTimedOut(lastRenewMs: number, nowMs: number, timeoutSeconds: number): boolean {
  return nowMs > lastRenewMs + timeoutSeconds * 1000;
}

export interface HubTimeoutControllerOptions {
  clusterName: string;
  /** Hub client (agent hub credentials): lease get. */
  hubClient: KubeClient;
  /** `--hub-connection-timeout-seconds` (default 600). */
  hubConnectionTimeoutSeconds?: number;
  /** Check period (default 60 s). */
  resyncMs?: number;
  /** No decision this soon after construction (default 10 s). */
  startupGraceMs?: number;
  /** Cancels the agent (process restart); called with the log message. */
  onRestart(reason: string): void;
  log: Logger;
  clock?: Clock;
}

export interface HubTimeoutController {
  readonly name: string;
  /** One sync (exposed for tests). */
  sync(signal: AbortSignal): Promise<void>;
  run(signal: AbortSignal): Promise<void>;
}

export function createHubTimeoutController(o: HubTimeoutControllerOptions): HubTimeoutController {
  const clock = o.clock ?? realClock;
  const log = o.log.child({ controller: HUB_TIMEOUT_CONTROLLER_NAME });
  const leases = o.hubClient.resource<Lease>(resourceTypes.leases, o.clusterName);
  const timeoutSeconds = o.hubConnectionTimeoutSeconds ?? DEFAULT_HUB_CONNECTION_TIMEOUT_SECONDS;
  const startMs = clock.now();
  let lastRenewMs: number | undefined;

  const sync = async (signal: AbortSignal): Promise<void> => {
    try {
      const lease = await leases.get(names.clusterLease, { signal });
      const t = lease.spec?.renewTime ? Date.parse(lease.spec.renewTime) : NaN;
      lastRenewMs = Number.isFinite(t) ? t : 0; // a lease without renewTime is as old as can be
    } catch (err) {
      log.warn('unable to get cluster lease from hub', { err });
      if (lastRenewMs === undefined) lastRenewMs = clock.now(); // hub unreachable from the beginning
    }
    const now = clock.now();
    if (now - startMs < (o.startupGraceMs ?? HUB_TIMEOUT_STARTUP_GRACE_MS)) return;
    if (lastRenewMs !== undefined && isLeaseTimedOut(lastRenewMs, now, timeoutSeconds)) {
      log.info('Lease timeout', { lastRenewTime: isoUtc(lastRenewMs) });
      log.info(LEASE_TIMEOUT_MESSAGE);
      o.onRestart(LEASE_TIMEOUT_MESSAGE);
    }
  };

  const controller = createController({
    name: HUB_TIMEOUT_CONTROLLER_NAME,
    log: o.log,
    clock,
    resyncMs: o.resyncMs ?? DEFAULT_HUB_TIMEOUT_RESYNC_MS,
    resyncKeys: () => ['key'],
    reconcile: async (_k, signal) => sync(signal),
  });
  return {
    name: HUB_TIMEOUT_CONTROLLER_NAME,
    sync,
    async run(signal) {
      controller.enqueue('key');
      await controller.run(signal);
    },
  };
}
