// The hub restart drill: SIGKILL the local hub, keep it down for a while, start it again on the
// same data, and measure what the agents do: every cluster must come back Available with its lease
// renewed on the new hub process, with no new CSR and no agent bootstrapping again.

import type { Clock } from '../util/clock.js';
import type { Fleet } from './fleet.js';
import { csrCount, watchFirstRenewals } from './hub-figures.js';
import { countsBetween, quantile, type PerClusterCounts } from './stats.js';

export interface HubRestartResult {
  downMs: number;
  /** From the kill until the restarted hub printed its ready line. */
  hubStartMs: number;
  /**
   * How long before its ready line the restarted hub already took lease renewals (0 when it took
   * none before). The hub is "back" at the earlier of the two.
   */
  servedBeforeReadyMs: number;
  /** From the hub back until the hub shows every cluster Available (our watch relisted after the kill, so from the new hub). */
  availableMs: number;
  /** From the hub back until the last cluster's first lease renewal on it (renewTime as the agent wrote it). */
  recoverMs: number;
  /** The median cluster's first renewal, from the hub back. */
  recoverP50Ms: number;
  /** Clusters the hub marked Available=Unknown (5 lease durations without renewal). */
  markedUnknown: number;
  newCsrs: number;
  /** Agents' bootstrap phases entered during the drill (re-bootstraps). */
  rebootstraps: number;
  /** Agents' start sequence re-runs during the drill (in-process restarts). */
  agentRestarts: number;
  /** Lease requests (GET and PUT) the agents sent from the kill until the hub's ready line, and from then until every lease was renewed. */
  leaseRequests: { untilReady: PerClusterCounts; afterReady: PerClusterCounts };
}

export interface HubRestartOptions {
  downMs: number;
  clock: Clock;
  /** Poll period of the recovery check (default 500 ms). */
  pollMs?: number;
  /** Gives up after this long from the hub's return (default 10 min). */
  timeoutMs?: number;
  /** Progress lines. */
  say?: (line: string) => void;
}

export async function hubRestartDrill(fleet: Fleet, o: HubRestartOptions, signal: AbortSignal): Promise<HubRestartResult> {
  const hub = fleet.hub;
  const admin = fleet.admin;
  if (!hub || !admin) throw new Error('the hub restart drill needs a hub started by the fleet');
  const members = new Set(fleet.names);
  const csrsBefore = await csrCount(admin, signal);
  // Agents in worker processes report every half second or so: each reading below is made current first.
  await fleet.refresh();
  const before = fleet.agentTotals();
  const unknownBefore = fleet.board.unknownTransitions();
  const requestsAtKill = fleet.probe.leaseRequestsByCluster();
  await hub.kill();
  // Taken once the old process is gone: a lease stored with a later renewTime (set before its PUT was sent) was written by the new one.
  const killedAt = o.clock.now();
  o.say?.(`hub killed (SIGKILL); down for ${(o.downMs / 1000).toFixed(0)} s`);
  await o.clock.sleep(o.downMs, signal);
  await hub.restart();
  const readyAt = o.clock.now();
  await fleet.refresh();
  const requestsAtReady = fleet.probe.leaseRequestsByCluster();
  o.say?.(`hub ready again after ${((readyAt - killedAt) / 1000).toFixed(1)} s`);
  const deadline = readyAt + (o.timeoutMs ?? 600_000);
  // Each cluster's first renewal after the kill, as the lease watch sees it.
  const firstRenewal = new Map<string, number>();
  const watchAc = new AbortController();
  const stopWatch = (): void => watchAc.abort();
  signal.addEventListener('abort', stopWatch, { once: true });
  const watching = watchFirstRenewals(admin, members, killedAt, firstRenewal, o.clock, watchAc.signal);
  let availableAt: number | undefined;
  try {
    for (;;) {
      signal.throwIfAborted();
      const c = fleet.board.counts();
      if (availableAt === undefined && c.available === members.size && (fleet.board.lastRelistMs() ?? 0) > killedAt) availableAt = o.clock.now();
      if (firstRenewal.size === members.size && availableAt !== undefined) break;
      if (o.clock.now() > deadline) throw new Error(`after ${((o.clock.now() - readyAt) / 1000).toFixed(0)} s only ${firstRenewal.size} leases renewed and ${c.available} clusters Available of ${members.size}`);
      await o.clock.sleep(o.pollMs ?? 500, signal);
    }
  } finally {
    watchAc.abort();
    signal.removeEventListener('abort', stopWatch);
    await watching;
  }
  await fleet.refresh();
  const requestsAtRecovery = fleet.probe.leaseRequestsByCluster();
  const renewals = [...firstRenewal.values()].sort((a, b) => a - b);
  const backAt = Math.min(readyAt, ...renewals);
  const after = fleet.agentTotals();
  return {
    downMs: backAt - killedAt,
    hubStartMs: readyAt - killedAt - o.downMs,
    servedBeforeReadyMs: readyAt - backAt,
    availableMs: Math.max(0, (availableAt ?? o.clock.now()) - backAt),
    recoverMs: renewals.at(-1)! - backAt,
    recoverP50Ms: quantile(renewals, 0.5) - backAt,
    markedUnknown: fleet.board.unknownTransitions() - unknownBefore,
    newCsrs: (await csrCount(admin, signal)) - csrsBefore,
    rebootstraps: after.bootstraps - before.bootstraps,
    agentRestarts: after.runs - before.runs,
    leaseRequests: { untilReady: countsBetween(requestsAtKill, requestsAtReady, members), afterReady: countsBetween(requestsAtReady, requestsAtRecovery, members) },
  };
}
