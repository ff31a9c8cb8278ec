// The registration agent process: runs the start sequence (./spoke-agent-run.ts) and runs it again
// in-process whenever the agent "restarts", where OCM's agent would exit and be restarted by the
// kubelet: the bootstrap kubeconfig secret changed or was deleted, the hub kubeconfig health check
// keeps failing, HubAcceptController or HubTimeoutController asks to select another hub, or the
// start failed. With `exitOnRestart` it returns a non-zero exit code instead, leaving the restart to
// a supervisor. Invalid options return exit code 1 (OCM's "Error during Validating").
//
// Around the start sequence, as OCM's controllercmd does: the HTTPS health and metrics server
// (/metrics behind delegated authentication when asked), leader election among replicas (only the
// holder of the `registration-agent-lock` Lease runs the start sequence; losing it stops the agent
// with exit code 1, as OCM exits), and `terminateOnFiles` (a change stops the agent, exit 0).
//
// The kubelet's liveness probe on /healthz is emulated in-process: the `hub-kube-config` check is
// evaluated every `timings.livenessPeriodMs`; `livenessFailureThreshold` consecutive failures
// restart the start sequence (which then re-bootstraps when the hub kubeconfig is invalid).

import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { createDelegatedAuthorizer } from '../client/delegated-auth.js';
import { inClusterConfig } from '../client/in-cluster.js';
import { runWithLeaderElection } from '../client/leader-election.js';
import { createKubeClient } from '../client/rest-client.js';
import type { KubeClient } from '../client/types.js';
import { realClock, type Clock } from '../util/clock.js';
import { toError } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import type { ServingTls } from '../util/secure-serving.js';
import {
  createHubKubeconfigHealthChecker,
  createPlainAgentMetrics,
  startHealthServer,
  type AgentMetricsSink,
  type HealthServer,
  type HubKubeconfigHealthChecker,
} from './health/health-server.js';
import type { SpokeAgentOptions } from './options/agent-options.js';
import { AgentConfigError } from './phases/config-error.js';
import { deferAgentMetrics } from './health/deferred-metrics.js';
import { ensureComponentNamespace } from './phases/prepare.js';
import { watchFilesForChange } from './process/file-change-watch.js';
import { runSpokeAgentOnce, type AgentPhase } from './spoke-agent-run.js';

export interface StartSpokeAgentOptions {
  options: SpokeAgentOptions;
  log: Logger;
  clock?: Clock;
  random?: () => number;
  userAgent?: string;
  /** Registers default process metrics when metrics are served (default true). */
  defaultMetrics?: boolean;
  /** Leader election identity (default: host name, `_`, a random UUID, as client-go's callers use). */
  identity?: string;
  /** Serve plain HTTP instead of HTTPS (in-process tests of the endpoints only). */
  plainHttp?: boolean;
}

interface SpokeAgentStatus {
  /** `electing`: waiting to hold the leader election lock. */
  phase: AgentPhase | 'electing' | 'restarting' | 'stopped';
  /** Whether this replica holds the lock (always true without leader election). */
  leading: boolean;
  /** Start sequence runs so far (1 after the first start). */
  runs: number;
  /** Bootstrap phases entered so far. */
  bootstraps: number;
  clusterName?: string;
  agentId?: string;
  lastError?: string;
  exitCode?: number;
}

export interface SpokeAgentHandle {
  status(): SpokeAgentStatus;
  /** The agent's metrics (served on `options.listen`). */
  readonly metrics: AgentMetricsSink;
  /** Base URL of the health/metrics server ('' when `listen` is empty). */
  readonly healthUrl: string;
  /** PEM verifying the health server's certificate ('' without HTTPS). */
  readonly healthCaPem: string;
  /** Resolves with the exit code once the agent stopped on its own or via stop(). */
  readonly done: Promise<number>;
  /** Stops the agent and waits for it; resolves with the exit code (0 when stopped cleanly). */
  stop(): Promise<number>;
}

/** The management cluster client of the process: leader election and metrics authorization. */
function processClient(o: StartSpokeAgentOptions): KubeClient {
  const opts = o.options;
  const clientOpts = { log: o.log, userAgent: o.userAgent ?? 'ocm-ts-agent', rateLimit: { qps: opts.kubeApiQps, burst: opts.kubeApiBurst } };
  return opts.kubeconfig !== '' ? createKubeClient({ kubeconfigPath: opts.kubeconfig }, clientOpts) : createKubeClient(inClusterConfig(), clientOpts);
}

/** The serving certificate: library-go's serving-cert directory when both files are there. */
function servingTls(o: StartSpokeAgentOptions): ServingTls {
  const { tls, certDir } = o.options.serving;
  const certFile = join(certDir, 'tls.crt');
  const keyFile = join(certDir, 'tls.key');
  return certDir !== '' && existsSync(certFile) && existsSync(keyFile) ? { ...tls, certFile, keyFile } : tls;
}

export async function startSpokeAgent(o: StartSpokeAgentOptions): Promise<SpokeAgentHandle> {
  const clock = o.clock ?? realClock;
  const opts = o.options;
  const checker = createHubKubeconfigHealthChecker();
  const electing = !opts.leaderElection.disabled;
  const needsClient = electing || (opts.listen !== '' && opts.serving.metricsAuth === 'delegated');
  const client = needsClient ? processClient(o) : undefined;
  let server: HealthServer | undefined;
  let metrics: AgentMetricsSink;
  try {
    if (opts.listen !== '') {
      // prom-client is loaded only when /metrics is first read.
      const defaultMetrics = o.defaultMetrics ?? true;
      const served = deferAgentMetrics(async () => (await import('./health/agent-metrics.js')).createAgentMetrics({ defaultMetrics }));
      metrics = served;
      server = await startHealthServer({
        listen: opts.listen,
        ...(o.plainHttp ? {} : { tls: servingTls(o) }),
        checker,
        metrics: served,
        ...(client && opts.serving.metricsAuth === 'delegated' ? { metricsAuthorizer: createDelegatedAuthorizer({ client, clock }) } : {}),
        log: o.log,
      });
    } else {
      metrics = createPlainAgentMetrics();
    }
  } catch (err) {
    client?.close();
    throw err;
  }
  const stopCtl = new AbortController();
  const state: SpokeAgentStatus = { phase: electing ? 'electing' : 'starting', leading: !electing, runs: 0, bootstraps: 0 };
  const input: LoopInput = { ...o, clock, metrics, checker, state };
  watchFilesForChange(
    {
      files: opts.terminateOnFiles,
      pollMs: opts.timings.terminateOnFilesPollMs,
      clock,
      onUnreadable: (file) => o.log.warn('unable to read the initial content of a --terminate-on-files file', { file }),
      onChange: (file) => {
        o.log.info('exiting because a --terminate-on-files file changed', { file });
        stopCtl.abort();
      },
    },
    stopCtl.signal,
  );
  const run = electing && client ? runElected(input, client, stopCtl.signal) : runLoop(input, stopCtl.signal);
  const done = run.then(async (code) => {
    state.phase = 'stopped';
    state.exitCode = code;
    await server?.close();
    client?.close();
    return code;
  });
  return {
    status: () => ({ ...state }),
    metrics,
    healthUrl: server?.url ?? '',
    healthCaPem: server?.caPem ?? '',
    done,
    async stop() {
      stopCtl.abort();
      return done;
    },
  };
}

/**
 * The start sequence under leader election: it runs only while this replica holds the lock. A
 * lost lock ends the agent with exit code 1 (OCM's agent exits and is restarted, to campaign again).
 */
async function runElected(o: LoopInput, client: KubeClient, signal: AbortSignal): Promise<number> {
  const le = o.options.leaderElection;
  const namespace = le.namespace !== '' ? le.namespace : o.options.namespace;
  const identity = o.identity ?? `${hostname()}_${randomUUID()}`;
  // Without an operator nobody created the namespace yet; the lock needs it before anything runs.
  await ensureComponentNamespace(client, namespace, o.log, signal).catch(() => undefined);
  const electionCtl = new AbortController();
  const onStop = (): void => electionCtl.abort();
  signal.addEventListener('abort', onStop, { once: true });
  let code = 0;
  try {
    const outcome = await runWithLeaderElection({
      client,
      namespace,
      name: le.name,
      identity,
      leaseDurationMs: le.leaseDurationMs,
      renewDeadlineMs: le.renewDeadlineMs,
      retryPeriodMs: le.retryPeriodMs,
      releaseOnCancel: le.releaseOnCancel,
      log: o.log,
      clock: o.clock,
      signal: electionCtl.signal,
      onStartedLeading: async (leading) => {
        o.state.leading = true;
        code = await runLoop(o, leading);
        // The agent ended on its own (a configuration error, --exit-on-restart): give the lock up.
        electionCtl.abort();
      },
      onStoppedLeading: () => {
        o.state.leading = false;
      },
    });
    if (outcome === 'lost') {
      o.state.lastError = `leader election lost: the lease ${namespace}/${le.name} could not be renewed within ${le.renewDeadlineMs} ms`;
      o.log.error('leaderelection lost', { lease: `${namespace}/${le.name}` });
      return 1;
    }
    return code;
  } finally {
    signal.removeEventListener('abort', onStop);
  }
}

interface LoopInput extends StartSpokeAgentOptions {
  clock: Clock;
  metrics: AgentMetricsSink;
  checker: HubKubeconfigHealthChecker;
  state: SpokeAgentStatus;
}

async function runLoop(o: LoopInput, signal: AbortSignal): Promise<number> {
  const random = o.random ?? Math.random;
  const timings = o.options.timings;
  let failures = 0;
  for (;;) {
    if (signal.aborted) return 0;
    const runCtl = new AbortController();
    // Every controller, informer and request of a run listens on this signal.
    setMaxListeners(0, runCtl.signal);
    const onStop = (): void => runCtl.abort();
    signal.addEventListener('abort', onStop, { once: true });
    let restartReason: string | undefined;
    const cancel = (reason: string): void => {
      if (runCtl.signal.aborted) return;
      restartReason = reason;
      runCtl.abort();
    };
    const liveness = startLiveness(o, cancel, runCtl.signal);
    o.state.runs++;
    let startError: Error | undefined;
    try {
      await runSpokeAgentOnce(
        {
          options: o.options,
          log: o.log,
          clock: o.clock,
          random,
          checker: o.checker,
          cancel,
          userAgent: o.userAgent ?? 'ocm-ts-agent',
          onPhase: (phase, names) => {
            o.state.phase = phase;
            if (phase === 'bootstrap') o.state.bootstraps++;
            if (names) {
              o.state.clusterName = names.clusterName;
              o.state.agentId = names.agentId;
            }
            for (const p of ['starting', 'bootstrap', 'main']) o.metrics.phase.set({ phase: p }, p === phase ? 1 : 0);
          },
        },
        runCtl.signal,
      );
    } catch (err) {
      startError = toError(err);
    } finally {
      liveness.cancel();
      runCtl.abort();
      signal.removeEventListener('abort', onStop);
    }
    if (startError instanceof AgentConfigError) {
      o.log.error('Error during Validating', { err: startError });
      o.state.lastError = startError.message;
      return 1;
    }
    if (signal.aborted) return 0;
    if (startError !== undefined) {
      o.state.lastError = startError.message;
      o.log.error('registration agent start failed', { err: startError });
      if (o.options.exitOnRestart) return 1;
      const delay = Math.min(timings.restartBackoffMs * 2 ** failures, 30_000);
      failures++;
      o.state.phase = 'restarting';
      o.log.info('restarting the registration agent after a failed start', { retryInMs: delay });
      try {
        await o.clock.sleep(delay, signal);
      } catch {
        return 0;
      }
    } else {
      failures = 0;
      o.log.info('registration agent restart requested', { reason: restartReason ?? 'unknown' });
      if (o.options.exitOnRestart) return 1;
      o.state.phase = 'restarting';
    }
    o.metrics.restarts.inc();
  }
}

/** In-process stand-in for the kubelet liveness probe on `hub-kube-config`. */
function startLiveness(o: LoopInput, cancel: (reason: string) => void, signal: AbortSignal): { cancel(): void } {
  const period = o.options.timings.livenessPeriodMs;
  if (period <= 0) return { cancel() {} };
  let failures = 0;
  let timer: { cancel(): void } | undefined;
  const tick = (): void => {
    if (signal.aborted) return;
    const failure = o.checker.evaluate();
    o.metrics.hubKubeconfigValid.set(failure === undefined ? 1 : 0);
    failures = failure === undefined ? 0 : failures + 1;
    if (failure !== undefined) o.log.warn('liveness check failed', { check: 'hub-kube-config', reason: failure, failures });
    if (failures >= o.options.timings.livenessFailureThreshold) {
      cancel(`liveness check hub-kube-config failed: ${failure}`);
      return;
    }
    timer = o.clock.setTimeout(tick, period);
  };
  timer = o.clock.setTimeout(tick, period);
  return { cancel: () => timer?.cancel() };
}
