// The registration agent process: runs the start sequence (./spoke-agent-run.ts) and runs it again
// in-process whenever the agent "restarts", where OCM's agent would exit and be restarted by the
// kubelet: the bootstrap kubeconfig secret changed or was deleted, the hub kubeconfig health check
// keeps failing, HubAcceptController or HubTimeoutController asks to select another hub, or the
// start failed. With `exitOnRestart` it returns a non-zero exit code instead, leaving the restart to
// a supervisor. Invalid options return exit code 1 (OCM's "Error during Validating").
//
// The kubelet's liveness probe on /healthz is emulated in-process: the `hub-kube-config` check is
// evaluated every `timings.livenessPeriodMs`; `livenessFailureThreshold` consecutive failures
// restart the start sequence (which then re-bootstraps when the hub kubeconfig is invalid).

import { setMaxListeners } from 'node:events';
import { realClock, type Clock } from '../util/clock.js';
import { toError } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
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
import { runSpokeAgentOnce, type AgentPhase } from './spoke-agent-run.js';

export interface StartSpokeAgentOptions {
  options: SpokeAgentOptions;
  log: Logger;
  clock?: Clock;
  random?: () => number;
  userAgent?: string;
  /** Registers default process metrics when metrics are served (default true). */
  defaultMetrics?: boolean;
}

interface SpokeAgentStatus {
  phase: AgentPhase | 'restarting' | 'stopped';
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
  /** The agent's metrics; `registry` is set when they are served (`options.listen`). */
  readonly metrics: AgentMetricsSink;
  /** Base URL of the health/metrics server ('' when `listen` is empty). */
  readonly healthUrl: string;
  /** Resolves with the exit code once the agent stopped on its own or via stop(). */
  readonly done: Promise<number>;
  /** Stops the agent and waits for it; resolves with the exit code (0 when stopped cleanly). */
  stop(): Promise<number>;
}

export async function startSpokeAgent(o: StartSpokeAgentOptions): Promise<SpokeAgentHandle> {
  const clock = o.clock ?? realClock;
  const checker = createHubKubeconfigHealthChecker();
  let server: HealthServer | undefined;
  let metrics: AgentMetricsSink;
  if (o.options.listen !== '') {
    // prom-client is loaded only when /metrics is served.
    const { createAgentMetrics } = await import('./health/agent-metrics.js');
    const served = createAgentMetrics({ defaultMetrics: o.defaultMetrics ?? true });
    metrics = served;
    server = await startHealthServer({ listen: o.options.listen, checker, metrics: served, log: o.log });
  } else {
    metrics = createPlainAgentMetrics();
  }
  const stopCtl = new AbortController();
  const state: SpokeAgentStatus = { phase: 'starting', runs: 0, bootstraps: 0 };
  const done = runLoop({ ...o, clock, metrics, checker, state }, stopCtl.signal).then(async (code) => {
    state.phase = 'stopped';
    state.exitCode = code;
    await server?.close();
    return code;
  });
  return {
    status: () => ({ ...state }),
    metrics,
    healthUrl: server?.url ?? '',
    done,
    async stop() {
      stopCtl.abort();
      return done;
    },
  };
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
