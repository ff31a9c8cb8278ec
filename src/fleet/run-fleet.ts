// `ocm-ts fleet`: starts the fleet, prints a progress line, optionally runs the hub restart drill
// once every cluster is Available, and runs until the signal aborts (Ctrl-C); then stops every agent
// and the hub and returns the final figures.

import { errorMessage } from '../util/errors.js';
import { startFleet, type FleetOptions, type FleetSample } from './fleet.js';
import { peak, type FleetReport } from './figures.js';
import { progressLine } from './figures.js';
import { hubRestartDrill, type HubRestartResult } from './hub-restart.js';
import { quantile } from './stats.js';

export interface RunFleetOptions extends FleetOptions {
  progressIntervalMs: number;
  /** Once all are Available: SIGKILL the local hub, keep it down this long, start it again. */
  hubRestartDownMs?: number;
  /** Progress and event lines (stderr). */
  say: (line: string) => void;
}

export async function runFleet(o: RunFleetOptions, signal: AbortSignal): Promise<FleetReport> {
  const fleet = await startFleet(o, signal);
  if (fleet.hub) o.say(`fleet: hub pid ${fleet.hub.pid() ?? '?'} serving ${fleet.hub.endpoints.url} (admin kubeconfig ${fleet.hub.endpoints.adminKubeconfig})`);
  const samples: FleetSample[] = [];
  let prev: FleetSample | undefined;
  let readyAt: number | undefined;
  const tick = (): void => {
    const s = fleet.sample();
    samples.push(s);
    if (samples.length > 100_000) samples.splice(0, samples.length - 100_000);
    o.say(progressLine(o.clusters, prev, s));
    prev = s;
  };
  const timer = setInterval(tick, o.progressIntervalMs);
  let restart: HubRestartResult | undefined;
  try {
    try {
      await fleet.board.until((c) => c.available === o.clusters && c.joined === o.clusters, signal);
      readyAt = o.clock.now();
      tick();
      const first = fleet.firstStartMs() ?? readyAt;
      o.say(`fleet: all ${o.clusters} clusters Joined and Available ${((readyAt - first) / 1000).toFixed(1)} s after the first agent started`);
      if (o.hubRestartDownMs !== undefined) {
        restart = await hubRestartDrill(fleet, { downMs: o.hubRestartDownMs, clock: o.clock, say: o.say }, signal);
        o.say(`fleet: hub restart survived: all Available ${(restart.availableMs / 1000).toFixed(1)} s and every lease renewed ${(restart.recoverMs / 1000).toFixed(1)} s after the hub was back; new CSRs ${restart.newCsrs}, re-bootstraps ${restart.rebootstraps}`);
      }
      await new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
    } catch (err) {
      if (!signal.aborted) o.say(`fleet: ${errorMessage(err)}`);
      if (!signal.aborted) throw err;
    }
  } finally {
    clearInterval(timer);
  }
  await fleet.refresh();
  const last = fleet.sample();
  const first = fleet.firstStartMs();
  const stormSamples = samples.filter((s) => first !== undefined && s.atMs >= first && (readyAt === undefined || s.atMs <= readyAt));
  const lease = fleet.probe.leaseUpdates.sorted();
  const durationMs = readyAt !== undefined && first !== undefined ? readyAt - first : undefined;
  const report: FleetReport = {
    clusters: o.clusters,
    started: last.started,
    joined: last.counts.joined,
    available: last.counts.available,
    failed: last.failed,
    storm: {
      ...(durationMs !== undefined ? { durationMs, joinsPerSecond: durationMs > 0 ? (o.clusters * 1000) / durationMs : undefined } : {}),
      ...optional('hubPeakCores', peak(stormSamples, (s) => s.hubCores)),
      ...optional('hubPeakRssBytes', peak(stormSamples, (s) => s.hubRssBytes)),
    },
    leaseUpdate: {
      count: fleet.probe.leaseUpdates.count(),
      failures: fleet.probe.leaseFailures(),
      ...optional('p50Ms', quantile(lease, 0.5)),
      ...optional('p99Ms', quantile(lease, 0.99)),
      simulatorLongestLoopDelayMs: fleet.probe.loopDelay.longestMs(),
    },
    ...(fleet.hub ? { hub: { ...optional('cores', last.hubCores), ...optional('rssBytes', last.hubRssBytes), ...optional('connections', last.hubConnections) } } : {}),
    openWatches: last.openWatches,
    ...(last.started > 0 ? { simulatorRssPerAgentBytes: (last.simulatorRssBytes - fleet.baselineRssBytes) / last.started } : {}),
    ...(restart ? { hubRestart: restart } : {}),
  };
  await fleet.stop();
  return report;
}

/** `{ key: v }` when v is a number (not NaN), else `{}`: optional fields stay absent rather than undefined. */
function optional<K extends string>(key: K, v: number | undefined): { [P in K]?: number } {
  return v === undefined || Number.isNaN(v) ? {} : ({ [key]: v } as { [P in K]?: number });
}
