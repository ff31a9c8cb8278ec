// `ocm-ts demo`: a hub and N spoke clusters joined before the user's eyes, then a live fleet table
// until Ctrl-C. Component logs go to DIR/demo.log; stdout carries progress lines and the table.
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import type { ManagedCluster } from '../api/cluster.js';
import type { Lease } from '../api/core.js';
import { names } from '../api/constants.js';
import { resourceTypes } from '../client/resource-types.js';
import type { Clock } from '../util/clock.js';
import { createLogger } from '../util/logger.js';
import { startEmbeddedHubDashboard, type HubDashboard } from '../dashboard/hub-dashboard.js';
import { acceptCluster } from './accept.js';
import { prepareDemoDir, startDemoFleet, type DemoFleet } from './demo-fleet.js';
import { createFleetView, isReady, type FleetRowInput } from './fleet-table.js';

export interface DemoOptions {
  dataDir: string;
  clusters: number;
  /** Redraw period of the live table. */
  refreshMs: number;
  clock: Clock;
  signal: AbortSignal;
  out: NodeJS.WritableStream & { isTTY?: boolean };
  /** Serve the web dashboard here; omitted = none. */
  dashboard?: { host: string; port: number };
}

async function fleetRows(fleet: DemoFleet, signal: AbortSignal): Promise<FleetRowInput[]> {
  const clusters = (await fleet.hubClient.resource<ManagedCluster>(resourceTypes.managedClusters).list({ signal })).items;
  return Promise.all(
    fleet.spokes.map(async (s) => {
      let lease: Lease | undefined;
      try {
        lease = await fleet.hubClient.resource<Lease>(resourceTypes.leases, s.name).get(names.clusterLease, { signal });
      } catch {
        lease = undefined;
      }
      return { name: s.name, cluster: clusters.find((c) => c.metadata.name === s.name), lease, agentPhase: s.agent.status().phase };
    }),
  );
}

export async function runDemo(o: DemoOptions): Promise<void> {
  // Before the log is opened: an existing demo.log keeps its mode when appended to.
  await prepareDemoDir(o.dataDir);
  const logFile = join(o.dataDir, 'demo.log');
  const logStream = createWriteStream(logFile, { flags: 'a', mode: 0o600 });
  const log = createLogger({ level: 'info', write: (line) => logStream.write(line + '\n') });
  const say = (line: string): void => void o.out.write(`${line}\n`);
  say(`ocm-ts demo: 1 hub and ${o.clusters} spoke clusters in ${o.dataDir} (component logs: ${logFile})`);
  const closeLog = (): Promise<void> => new Promise<void>((resolve) => logStream.end(resolve));
  let fleet: DemoFleet;
  try {
    fleet = await startDemoFleet({ dataDir: o.dataDir, clusters: o.clusters, log, clock: o.clock, signal: o.signal, say });
  } catch (err) {
    // startDemoFleet closes whatever it had started before rethrowing.
    await closeLog();
    if (!o.signal.aborted) throw err;
    say('stopped');
    return;
  }
  const view = createFleetView({ tty: o.out.isTTY === true });
  let dashboard: HubDashboard | undefined;
  try {
    if (o.dashboard) {
      dashboard = await startEmbeddedHubDashboard({ hub: fleet.hub, listen: o.dashboard, clock: o.clock, log, signal: o.signal });
      say(`dashboard: ${dashboard.url}/ (sign in with the token in ${dashboard.tokenPath ?? ''})`);
    }
    await Promise.all(
      fleet.spokes.map((s) =>
        acceptCluster({ client: fleet.hubClient, clock: o.clock, signal: o.signal, wait: true, timeoutMs: 120_000, say: (l) => say(`${s.name}: ${l}`) }, s.name),
      ),
    );
    let announced = false;
    while (!o.signal.aborted) {
      const rows = await fleetRows(fleet, o.signal);
      const ready = rows.filter((r) => isReady(r.cluster)).length;
      if (!announced && ready === rows.length) {
        say(`fleet ready: ${ready}/${rows.length} clusters accepted, joined and available`);
        announced = true;
      }
      o.out.write(view({ rows, now: o.clock.now(), hubUrl: fleet.hub.url }));
      await o.clock.sleep(o.refreshMs, o.signal).catch(() => undefined);
    }
  } catch (err) {
    if (!o.signal.aborted) throw err;
  } finally {
    say('stopping the fleet...');
    await dashboard?.close();
    await fleet.close();
    await closeLog();
    say('stopped');
  }
}
