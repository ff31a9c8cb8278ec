// The hub restart drill: SIGKILL the local hub, keep it down for a while, start it again on the
// same data, and measure what the agents do: every cluster must come back Available with its lease
// renewed on the new hub process, with no new CSR and no agent bootstrapping again.

import type { Clock } from '../util/clock.js';
import type { Fleet } from './fleet.js';
import { csrCount, leasesRenewedSince } from './hub-figures.js';
import { countsBetween, type PerClusterCounts } from './stats.js';

export interface HubRestartResult {
  downMs: number;
  /** From the kill until the restarted hub was serving. */
  hubStartMs: number;
  /** From the restarted hub serving until the hub shows every cluster Available (our watch relisted after the kill, so from the new hub). */
  availableMs: number;
  /** From the restarted hub serving until every cluster renewed its lease on it. */
  recoverMs: number;
  /** Clusters the hub marked Available=Unknown (5 lease durations without renewal). */
  markedUnknown: number;
  newCsrs: number;
  /** Agents' bootstrap phases entered during the drill (re-bootstraps). */
  rebootstraps: number;
  /** Agents' start sequence re-runs during the drill (in-process restarts). */
  agentRestarts: number;
  /** Lease requests (GET and PUT) the agents sent while the hub was down, and from its return until every lease was renewed. */
  leaseRequests: { whileDown: PerClusterCounts; recovery: PerClusterCounts };
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
  const before = fleet.agentTotals();
  const unknownBefore = fleet.board.unknownTransitions();
  const killedAt = o.clock.now();
  const requestsAtKill = fleet.probe.leaseRequestsByCluster();
  await hub.kill();
  o.say?.(`hub killed (SIGKILL); down for ${(o.downMs / 1000).toFixed(0)} s`);
  await o.clock.sleep(o.downMs, signal);
  await hub.restart();
  const backAt = o.clock.now();
  const requestsAtBack = fleet.probe.leaseRequestsByCluster();
  o.say?.(`hub serving again after ${((backAt - killedAt) / 1000).toFixed(1)} s`);
  const deadline = backAt + (o.timeoutMs ?? 600_000);
  let availableAt: number | undefined;
  for (;;) {
    signal.throwIfAborted();
    let renewed = 0;
    try {
      renewed = await leasesRenewedSince(admin, members, backAt, signal);
    } catch {
      // The hub's informers and ours are still reconnecting.
    }
    const c = fleet.board.counts();
    if (availableAt === undefined && c.available === members.size && (fleet.board.lastRelistMs() ?? 0) > killedAt) availableAt = o.clock.now();
    if (renewed === members.size && availableAt !== undefined) break;
    if (o.clock.now() > deadline) throw new Error(`after ${((o.clock.now() - backAt) / 1000).toFixed(0)} s only ${renewed} leases renewed and ${c.available} clusters Available of ${members.size}`);
    await o.clock.sleep(o.pollMs ?? 500, signal);
  }
  const recoveredAt = o.clock.now();
  const requestsAtRecovery = fleet.probe.leaseRequestsByCluster();
  const after = fleet.agentTotals();
  return {
    downMs: backAt - killedAt,
    hubStartMs: backAt - killedAt - o.downMs,
    availableMs: (availableAt ?? recoveredAt) - backAt,
    recoverMs: recoveredAt - backAt,
    markedUnknown: fleet.board.unknownTransitions() - unknownBefore,
    newCsrs: (await csrCount(admin, signal)) - csrsBefore,
    rebootstraps: after.bootstraps - before.bootstraps,
    agentRestarts: after.runs - before.runs,
    leaseRequests: { whileDown: countsBetween(requestsAtKill, requestsAtBack, members), recovery: countsBetween(requestsAtBack, requestsAtRecovery, members) },
  };
}
