// Fleet benchmark (`npm run bench -- fleet`): N real registration agents (the fleet simulator,
// src/fleet) join one embedded hub running in its own child process, with auto-approval.
//
// Printed: the join storm (first agent start until all N are Joined and Available; joins per second;
// hub CPU and RSS), steady state over a window of several lease periods (hub CPU and RSS, hub writes per
// cluster per lease period from the hub's storage revision, lease-update latency seen by the agents,
// open watch streams and connections on the hub, simulator RSS per agent), then a hub restart: SIGKILL,
// down for a while, started again; clusters marked Unknown, new CSRs, re-bootstraps and the time until
// every cluster renewed its lease on the new hub and is Available.
//
// Environment: BENCH_FLEET_CLUSTERS (default 1000; 10000 for the full run), BENCH_FLEET_LEASE_S (lease
// duration, default 60), BENCH_FLEET_STEADY_S (steady window, default 2.5 lease periods),
// BENCH_FLEET_HUB_DOWN_S (default 60; 0 skips the restart, so a hub run with --cpu-prof exits cleanly and
// writes its profile: a SIGKILLed hub writes none), BENCH_FLEET_JOIN_RATE (agents started per second; default all
// at once), BENCH_FLEET_STORM_TIMEOUT_S (give up on the storm, default 1800), BENCH_FLEET_WORKERS (agent
// worker processes; 0 = in the bench's process; default as `ocm-ts fleet`: 0 up to 1,000 clusters, else
// enough for at most 2,500 agents each), BENCH_FLEET_HUB_NODE_ARGS (extra node flags for the hub, space-separated, e.g.
// `--trace-gc` or `--cpu-prof --cpu-prof-dir=/tmp/prof`). Targets (10,000 clusters): storm ≤ 5 min; steady hub CPU ≤ 0.25 core, RSS ≤ 2 GiB, 1 write
// per cluster per lease period, lease update p99 ≤ 50 ms; restart: 0 new CSRs, 0 re-bootstraps, all
// Available within one lease period of the hub's return.

import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir, cpus } from 'node:os';
import { join, resolve } from 'node:path';
import type * as Fleet from '../src/fleet/fleet.js';
import type { FleetSample } from '../src/fleet/fleet.js';
import type * as HubFigures from '../src/fleet/hub-figures.js';
import type * as HubRestart from '../src/fleet/hub-restart.js';
import { coresBetween, readProcSample } from '../src/fleet/proc-stats.js';
import { quantile } from '../src/fleet/stats.js';
import { defaultWorkerCount } from '../src/fleet/worker-pool.js';
import { realClock } from '../src/util/clock.js';
import { nullLogger } from '../src/util/logger.js';
import { BUILT_MAIN, fromBuild } from './product.js';

// The hub, the agents and their simulator come from the build (see product.ts); BENCH_FLEET_HUB_MAIN runs another build's CLI.
const MAIN = process.env['BENCH_FLEET_HUB_MAIN'] ? resolve(process.env['BENCH_FLEET_HUB_MAIN']) : BUILT_MAIN;
const { startFleet } = await fromBuild<typeof Fleet>('fleet/fleet.js');
const { hubRevision } = await fromBuild<typeof HubFigures>('fleet/hub-figures.js');
const { hubRestartDrill } = await fromBuild<typeof HubRestart>('fleet/hub-restart.js');
const MiB = 1024 * 1024;

function envNumber(name: string, dflt: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return dflt;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number, got "${raw}"`);
  return n;
}

const say = (line: string): void => void process.stdout.write(`  ${line}\n`);
const load = (): string => loadavg().map((l) => l.toFixed(2)).join(' ');
const met = (ok: boolean): string => (ok ? 'met' : 'NOT met');

export async function benchFleet(): Promise<void> {
  const clusters = Math.max(1, Math.round(envNumber('BENCH_FLEET_CLUSTERS', 1000)));
  const leaseS = Math.max(1, Math.round(envNumber('BENCH_FLEET_LEASE_S', 60)));
  const steadyS = envNumber('BENCH_FLEET_STEADY_S', 2.5 * leaseS);
  const downS = envNumber('BENCH_FLEET_HUB_DOWN_S', 60);
  const joinRate = envNumber('BENCH_FLEET_JOIN_RATE', 0);
  const stormTimeoutS = envNumber('BENCH_FLEET_STORM_TIMEOUT_S', 1800);
  const workers = Math.round(envNumber('BENCH_FLEET_WORKERS', defaultWorkerCount(clusters)));
  const dir = await mkdtemp(join(tmpdir(), 'ocm-ts-bench-fleet-'));
  const stop = new AbortController();
  // Ctrl-C stops the agents and the hub child instead of leaving the hub behind.
  const interrupt = (): void => stop.abort(new Error('interrupted'));
  process.once('SIGINT', interrupt);
  const cli = { script: MAIN, execArgv: MAIN.endsWith('.ts') ? ['--import', 'tsx'] : [] };
  const hubNodeArgs = (process.env['BENCH_FLEET_HUB_NODE_ARGS'] ?? '').split(' ').filter((a) => a !== '');
  say(`${clusters} clusters, ${leaseS} s leases, steady window ${steadyS} s, ${downS > 0 ? `hub down ${downS} s` : 'no hub restart'}, ${workers > 0 ? `${workers} agent worker processes` : 'agents in this process'}; ${cpus().length} cores, load average ${load()}`);
  const fleet = await startFleet(
    {
      clusters,
      namePrefix: 'bench-',
      hub: { kind: 'local', dataDir: join(dir, 'hub'), cli: { ...cli, execArgv: [...hubNodeArgs, ...cli.execArgv] }, autoApproval: true },
      workDir: join(dir, 'work'),
      // The spoke in its own process unless BENCH_FLEET_SPOKE=in-process: serving 1,000 agents' spoke requests
      // and health probes in the agents' own event loop starved the probes (Available=False).
      ...(process.env['BENCH_FLEET_SPOKE'] === 'in-process' ? {} : { spokeProcess: cli }),
      ...(leaseS !== 60 ? { leaseDurationSeconds: leaseS } : {}),
      ...(joinRate > 0 ? { joinRatePerSecond: joinRate } : {}),
      ...(workers > 0 ? { workers: { count: workers, cli } } : {}),
      log: nullLogger(),
      clock: realClock,
    },
    stop.signal,
  );
  try {
    // 1. The join storm, sampled every second.
    const storm: FleetSample[] = [];
    const timer = setInterval(() => {
      const s = fleet.sample();
      storm.push(s);
      if (storm.length % 10 === 0) say(`storm: ${s.counts.joined} joined, ${s.counts.available} available, ${s.failed} failed, hub ${(s.hubCores ?? 0).toFixed(2)} cores ${((s.hubRssBytes ?? 0) / MiB).toFixed(0)} MiB, simulator ${(s.simulatorCores ?? 0).toFixed(2)} cores ${(s.simulatorRssBytes / MiB).toFixed(0)} MiB, load ${load()}`);
    }, 1000);
    const stormLimit = new AbortController();
    const onStop = (): void => stormLimit.abort(stop.signal.reason);
    stop.signal.addEventListener('abort', onStop, { once: true });
    const limitTimer = setTimeout(() => stormLimit.abort(new Error(`not all Joined and Available after ${stormTimeoutS} s: ${JSON.stringify(fleet.sample().counts)}`)), stormTimeoutS * 1000);
    try {
      await fleet.board.until((c) => c.joined === clusters && c.available === clusters, stormLimit.signal);
    } finally {
      clearInterval(timer);
      clearTimeout(limitTimer);
      stop.signal.removeEventListener('abort', onStop);
    }
    const first = fleet.firstStartMs()!;
    const stormMs = Math.max(...fleet.board.firstReadyTimes().values()) - first;
    const cores = storm.map((s) => s.hubCores).filter((v): v is number => v !== undefined);
    const stormRss = Math.max(...storm.map((s) => s.hubRssBytes ?? 0));
    await fleet.refresh();
    const stormTotals = fleet.agentTotals();
    process.stdout.write(`fleet join storm: ${clusters} clusters Joined and Available in ${(stormMs / 1000).toFixed(1)} s (${((clusters * 1000) / stormMs).toFixed(1)} joins/s); target ≤ 300 s: ${met(stormMs <= 300_000)}\n`);
    process.stdout.write(`  hub during the storm: mean ${(cores.reduce((a, b) => a + b, 0) / Math.max(1, cores.length)).toFixed(2)} cores, peak ${Math.max(0, ...cores).toFixed(2)} cores, peak RSS ${(stormRss / MiB).toFixed(0)} MiB; agents: ${stormTotals.bootstraps} bootstraps, ${stormTotals.runs} start runs; load average ${load()}\n`);

    // 2. Steady state: settle one lease period (leases set, first renewals), then measure a window.
    say(`settling ${leaseS} s before the steady-state window`);
    await realClock.sleep(leaseS * 1000, stop.signal);
    const admin = fleet.admin!;
    const pid = fleet.hub!.pid()!;
    const rv0 = await hubRevision(admin);
    await fleet.refresh();
    fleet.probe.reset();
    const p0 = readProcSample(pid)!;
    const t0 = Date.now();
    await realClock.sleep(steadyS * 1000, stop.signal);
    const p1 = readProcSample(pid)!;
    const t1 = Date.now();
    const rv1 = await hubRevision(admin);
    await fleet.refresh();
    const steady = fleet.sample();
    const writes = rv1 - rv0;
    const periods = (t1 - t0) / 1000 / leaseS;
    const perClusterPeriod = writes / clusters / periods;
    const updates = fleet.probe.leaseUpdates.count();
    const lat = fleet.probe.leaseUpdates.sorted();
    const hubCores = coresBetween(p0, p1, t1 - t0);
    process.stdout.write(`fleet steady state over ${((t1 - t0) / 1000).toFixed(0)} s (${periods.toFixed(2)} lease periods), load average ${load()}:\n`);
    process.stdout.write(`  hub CPU ${hubCores.toFixed(3)} cores (target ≤ 0.25: ${met(hubCores <= 0.25)}), RSS ${(p1.rssBytes / MiB).toFixed(0)} MiB (target ≤ 2048: ${met(p1.rssBytes <= 2048 * MiB)})\n`);
    process.stdout.write(
      `  hub writes: ${writes} = ${perClusterPeriod.toFixed(3)} per cluster per lease period; agents renewed leases ${updates} times (${fleet.probe.leaseFailures()} failed) = ${(writes / Math.max(1, updates)).toFixed(3)} writes per renewal` +
        ` (target 1.0 per renewal: ${met(Math.abs(writes / Math.max(1, updates) - 1) < 0.01)}; the renewal period is jittered to 1-1.25 lease durations, so ~0.89 per lease period is the same thing)\n`,
    );
    const p99 = quantile(lat, 0.99);
    process.stdout.write(`  lease update latency seen by agents: p50 ${quantile(lat, 0.5).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms (target p99 ≤ 50 ms: ${met(p99 <= 50)})\n`);
    process.stdout.write(`  longest event-loop delay of the agents' processes over the window: ${fleet.probe.loopDelay.longestMs().toFixed(0)} ms (a renewal waiting behind it counts it in its latency; the hub's own delays are not in this figure)\n`);
    process.stdout.write(`  hub: ${steady.hubConnections ?? '?'} connections open, ${steady.openWatches} watch streams open from the simulator (${(steady.openWatches / clusters).toFixed(1)} per agent)\n`);
    process.stdout.write(`  simulator RSS ${(steady.simulatorRssBytes / MiB).toFixed(0)} MiB = ${((steady.simulatorRssBytes - fleet.baselineRssBytes) / clusters / MiB).toFixed(2)} MiB per agent (spoke API server included)\n`);

    // 3. Hub restart.
    if (downS === 0) {
      say('hub restart skipped (BENCH_FLEET_HUB_DOWN_S=0)');
      return;
    }
    const r = await hubRestartDrill(fleet, { downMs: downS * 1000, clock: realClock, say }, stop.signal);
    process.stdout.write(
      `fleet hub restart: SIGKILL, down ${(r.downMs / 1000).toFixed(1)} s (its ready line came ${(r.hubStartMs / 1000).toFixed(1)} s after its start, ${(r.servedBeforeReadyMs / 1000).toFixed(1)} s after it took the first renewal); every cluster Available (relisted from the new hub) ${(r.availableMs / 1000).toFixed(1)} s after the hub was back (target ≤ ${leaseS} s: ${met(r.availableMs <= leaseS * 1000)}),` +
        ` every lease renewed on the new hub ${(r.recoverMs / 1000).toFixed(1)} s after (${met(r.recoverMs <= leaseS * 1000)} within one lease period; median ${(r.recoverP50Ms / 1000).toFixed(1)} s; at most ${r.leaseRequests.untilReady.max + r.leaseRequests.afterReady.max} lease requests per cluster during the drill); marked Unknown ${r.markedUnknown}; new CSRs ${r.newCsrs} (target 0: ${met(r.newCsrs === 0)}); re-bootstraps ${r.rebootstraps} (target 0: ${met(r.rebootstraps === 0)}); agent restarts ${r.agentRestarts}; load average ${load()}\n`,
    );
  } finally {
    process.off('SIGINT', interrupt);
    stop.abort();
    await fleet.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
