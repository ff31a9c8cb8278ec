// One worker process of the fleet (`ocm-ts fleet-worker`, forked by the coordinator with an IPC
// channel): it runs its share of the agents, as the coordinator would in its own process, and reports
// their figures. It stops its agents and returns when told to, when its channel disconnects (the
// coordinator is gone) or when its own signal aborts.

import { realClock } from '../util/clock.js';
import { createLogger, nullLogger } from '../util/logger.js';
import { startAgentGroup, type AgentGroup } from './agent-group.js';
import { createRequestProbe, type RequestProbe } from './request-probe.js';
import { Reservoir } from './stats.js';
import { parseToWorker, type FromWorker, type WorkerConfig, type WorkerReport } from './worker-protocol.js';

/** The IPC side of a forked child, as the worker uses it. */
interface WorkerChannel {
  send(msg: FromWorker): void;
  onMessage(fn: (msg: unknown) => void): void;
  onDisconnect(fn: () => void): void;
  connected(): boolean;
  disconnect(): void;
}

/** Latencies kept per report at most; beyond this a report carries a uniform sample of them. */
const LEASE_SAMPLES_PER_REPORT = 10_000;

interface Running {
  group: AgentGroup;
  probe: RequestProbe;
  pending: Reservoir;
  timer: NodeJS.Timeout;
  sentFailures: number;
  sentRequests: number;
  sentLeaseRequests: Map<string, number>;
  allStarted: boolean;
}

function report(r: Running, seq: number): WorkerReport {
  const leaseSamples = r.pending.sorted();
  const leaseSeen = r.pending.count();
  r.pending.clear();
  const failures = r.probe.leaseFailures();
  const requests = r.probe.requests();
  const leaseRequests: Array<[string, number]> = [];
  for (const [ns, n] of r.probe.leaseRequestsByCluster()) {
    if (r.sentLeaseRequests.get(ns) === n) continue;
    r.sentLeaseRequests.set(ns, n);
    leaseRequests.push([ns, n]);
  }
  const out: WorkerReport = {
    seq,
    started: r.group.started(),
    failed: r.group.failed(),
    allStarted: r.allStarted,
    ...r.group.totals(),
    leaseSamples,
    leaseSeen,
    newLeaseFailures: failures - r.sentFailures,
    newRequests: requests - r.sentRequests,
    leaseRequests,
    openWatches: r.probe.openWatches(),
    loopDelayMaxMs: r.probe.loopDelay.longestMs(),
    rssBytes: process.memoryUsage.rss(),
    cpuMicros: ((c) => c.user + c.system)(process.cpuUsage()),
  };
  r.sentFailures = failures;
  r.sentRequests = requests;
  // the worker's probe is never reset (its counters go out as differences): only its loop meter is
  r.probe.loopDelay.reset();
  return out;
}

export function runFleetWorker(ch: WorkerChannel, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let running: Running | undefined;
    let stopping: Promise<void> | undefined;
    let failure: unknown;
    const stopCtl = new AbortController();

    const start = (c: WorkerConfig): void => {
      if (running || stopping) return;
      const pending = new Reservoir(LEASE_SAMPLES_PER_REPORT);
      const probe = createRequestProbe(c.hubHostPort, { onLeaseUpdate: (ms) => pending.add(ms) });
      const group = startAgentGroup({
        names: c.names,
        spokeUrl: c.spokeUrl,
        spokeAdminKubeconfig: c.spokeAdminKubeconfig,
        bootstrapKubeconfig: c.bootstrapKubeconfig,
        workDir: c.workDir,
        ...(c.joinRatePerSecond !== undefined ? { joinRatePerSecond: c.joinRatePerSecond } : {}),
        log: c.logLevel !== undefined ? createLogger({ level: c.logLevel, fields: { worker: process.pid } }) : nullLogger(),
        clock: realClock,
        signal: stopCtl.signal,
      });
      const timer = setInterval(() => send({ type: 'report', report: report(r, 0) }), c.reportIntervalMs);
      const r: Running = { group, probe, pending, timer, sentFailures: 0, sentRequests: 0, sentLeaseRequests: new Map(), allStarted: false };
      running = r;
      void group.allStarted.then(() => {
        r.allStarted = true;
        send({ type: 'report', report: report(r, 0) });
      });
    };

    const send = (msg: FromWorker): void => {
      if (ch.connected()) ch.send(msg);
    };

    const stop = (): Promise<void> => {
      stopping ??= (async () => {
        stopCtl.abort();
        const r = running;
        if (r) {
          clearInterval(r.timer);
          await r.group.stop();
          r.probe.close();
        }
        send({ type: 'stopped' });
        if (ch.connected()) ch.disconnect();
      })().then(() => (failure === undefined ? resolve() : reject(failure)), reject);
      return stopping;
    };

    ch.onMessage((raw) => {
      let msg;
      try {
        msg = parseToWorker(raw);
      } catch (err) {
        // A coordinator that speaks another protocol: nothing sensible can follow.
        failure ??= err;
        void stop();
        return;
      }
      if (msg.type === 'start') start(msg.config);
      else if (msg.type === 'report') {
        if (running) send({ type: 'report', report: report(running, msg.seq) });
      } else void stop();
    });
    ch.onDisconnect(() => void stop());
    if (signal.aborted) void stop();
    else signal.addEventListener('abort', () => void stop(), { once: true });
    send({ type: 'ready', rssBytes: process.memoryUsage.rss() });
  });
}
