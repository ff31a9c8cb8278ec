// Turning samples into the figures the fleet command prints: the live progress line and the final
// report. Pure functions over plain numbers.

import type { FleetSample } from './fleet.js';
import type { HubRestartResult } from './hub-restart.js';

const MiB = 1024 * 1024;

interface StormFigures {
  /** First agent start until every cluster was Joined and Available (ms); undefined if never. */
  durationMs?: number;
  /** Clusters Joined and Available per second over the storm. */
  joinsPerSecond?: number;
  hubPeakCores?: number;
  hubPeakRssBytes?: number;
}

export interface FleetReport {
  clusters: number;
  started: number;
  joined: number;
  available: number;
  failed: number;
  storm: StormFigures;
  /**
   * Latency of lease renewals seen by the agents (ms), over the whole run, and the longest
   * event-loop delay of the agents' processes: a renewal waiting behind it counts it in its latency.
   */
  leaseUpdate: { count: number; failures: number; p50Ms?: number; p99Ms?: number; simulatorLongestLoopDelayMs: number };
  hub?: { cores?: number; rssBytes?: number; connections?: number };
  openWatches: number;
  /** (simulator RSS − RSS before the agents) / agents started. */
  simulatorRssPerAgentBytes?: number;
  hubRestart?: HubRestartResult;
}

/** Peak of a figure over samples, ignoring samples that lack it. */
export function peak(samples: readonly FleetSample[], pick: (s: FleetSample) => number | undefined): number | undefined {
  let best: number | undefined;
  for (const s of samples) {
    const v = pick(s);
    if (v !== undefined && (best === undefined || v > best)) best = v;
  }
  return best;
}

/** Joins per second between two samples (0 when they are at the same time). */
export function joinRate(a: FleetSample, b: FleetSample): number {
  const dt = (b.atMs - a.atMs) / 1000;
  return dt > 0 ? Math.max(0, b.counts.joined - a.counts.joined) / dt : 0;
}

const num = (v: number | undefined, digits = 0): string => (v === undefined ? '-' : v.toFixed(digits));
const mib = (v: number | undefined): string => (v === undefined ? '-' : `${(v / MiB).toFixed(0)} MiB`);

export function progressLine(clusters: number, prev: FleetSample | undefined, cur: FleetSample): string {
  const c = cur.counts;
  const parts = [
    `joined ${c.joined}/${clusters}`,
    `available ${c.available}`,
    ...(c.unknown > 0 ? [`unknown ${c.unknown}`] : []),
    `failed ${cur.failed}`,
    `started ${cur.started}`,
    `${num(prev ? joinRate(prev, cur) : undefined, 1)} joins/s`,
  ];
  if (cur.hubRssBytes !== undefined || cur.hubCores !== undefined) parts.push(`hub ${num(cur.hubCores, 2)} cores ${mib(cur.hubRssBytes)}`);
  else if (cur.hubConnections === undefined && prev?.hubRssBytes !== undefined) parts.push('hub down');
  if (cur.hubConnections !== undefined) parts.push(`${cur.hubConnections} hub connections`);
  parts.push(`${cur.openWatches} watches`);
  if (cur.simulatorCores !== undefined) parts.push(`simulator ${num(cur.simulatorCores, 2)} cores ${mib(cur.simulatorRssBytes)}`);
  return `fleet: ${parts.join(', ')}`;
}

export function formatReport(r: FleetReport): string {
  const lines = [
    `clusters ${r.clusters}: started ${r.started}, joined ${r.joined}, available ${r.available}, failed ${r.failed}`,
    `join storm: ${r.storm.durationMs === undefined ? 'not complete' : `${(r.storm.durationMs / 1000).toFixed(1)} s`} (${num(r.storm.joinsPerSecond, 1)} joins/s), hub peak ${num(r.storm.hubPeakCores, 2)} cores, ${mib(r.storm.hubPeakRssBytes)}`,
    `lease updates seen by agents: ${r.leaseUpdate.count} (${r.leaseUpdate.failures} failed), p50 ${num(r.leaseUpdate.p50Ms, 1)} ms, p99 ${num(r.leaseUpdate.p99Ms, 1)} ms; the agents' longest event-loop delay ${r.leaseUpdate.simulatorLongestLoopDelayMs.toFixed(0)} ms`,
  ];
  if (r.hub) lines.push(`hub now: ${num(r.hub.cores, 3)} cores, ${mib(r.hub.rssBytes)}, ${num(r.hub.connections)} connections; ${r.openWatches} watch streams open from this process`);
  else lines.push(`${r.openWatches} watch streams open to the hub from this process`);
  if (r.simulatorRssPerAgentBytes !== undefined) lines.push(`simulator RSS per agent: ${(r.simulatorRssPerAgentBytes / MiB).toFixed(2)} MiB`);
  const h = r.hubRestart;
  if (h) {
    lines.push(
      `hub restart: down ${(h.downMs / 1000).toFixed(1)} s (start ${(h.hubStartMs / 1000).toFixed(1)} s to its ready line, serving ${(h.servedBeforeReadyMs / 1000).toFixed(1)} s before it); all Available ${(h.availableMs / 1000).toFixed(1)} s and every lease renewed ${(h.recoverMs / 1000).toFixed(1)} s (median ${(h.recoverP50Ms / 1000).toFixed(1)} s) after the hub was back;` +
        ` marked Unknown ${h.markedUnknown}, new CSRs ${h.newCsrs}, re-bootstraps ${h.rebootstraps}, agent restarts ${h.agentRestarts}`,
      `lease requests per cluster: ${h.leaseRequests.untilReady.mean.toFixed(1)} (at most ${h.leaseRequests.untilReady.max}) from the kill until the hub's ready line, ${h.leaseRequests.afterReady.mean.toFixed(1)} (at most ${h.leaseRequests.afterReady.max}) from then until every lease was renewed`,
    );
  }
  return lines.join('\n') + '\n';
}
