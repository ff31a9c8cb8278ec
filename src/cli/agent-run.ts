// Runs the registration agent from its parsed flags: validates them into the agent's options and
// runs it in the foreground until a signal or its own failure. Free of commander, so that the agent
// started through ./agent-flag-parser.ts never loads it; shared by `agent` and `join`.

import { existsSync } from 'node:fs';
import { FeatureGateError, parseFeatureGates, SPOKE_FEATURE_DEFAULTS } from '../api/feature-gates.js';
import { serviceAccountNamespace } from '../agent/agent-clients.js';
import { defaultAgentOptions, type AgentTimings, type SpokeAgentOptions } from '../agent/options/agent-options.js';
import { createLogger, isLogLevel, type LogLevel } from '../util/logger.js';
import { parseListenAddress, ServingConfigError } from '../util/secure-serving.js';
import { parseTlsServingFlags, TlsFlagError } from '../util/tls-flags.js';
import { LeaderElectionConfigError, validateLeaderElectionTimings } from '../client/leader-election.js';
import type { SpokeAgentHandle } from '../agent/spoke-agent.js';
import type { RawFlags } from './agent-flags.js';
import { CliUsageError } from './usage-error.js';

/** The timing flags and the agent timing each one sets. */
const TIMING_FLAGS: ReadonlyArray<readonly [keyof RawFlags, keyof AgentTimings]> = [
  ['bootstrapPollPeriod', 'bootstrapPollMs'],
  ['registerResyncPeriod', 'registerResyncMs'],
  ['secretDumpResyncPeriod', 'secretDumpResyncMs'],
  ['addonLeaseSyncPeriod', 'addonLeaseSyncMs'],
  ['informerResyncPeriod', 'informerResyncMs'],
  ['cacheSyncTimeout', 'cacheSyncTimeoutMs'],
  ['livenessPeriod', 'livenessPeriodMs'],
  ['livenessFailureThreshold', 'livenessFailureThreshold'],
  ['restartBackoff', 'restartBackoffMs'],
  ['hubTimeoutResyncPeriod', 'hubTimeoutResyncMs'],
  ['hubTimeoutStartupGrace', 'hubTimeoutStartupGraceMs'],
  ['terminateOnFilesPollPeriod', 'terminateOnFilesPollMs'],
];

/** Flags → options (throws CliUsageError for values the flag parsers do not check). */
function agentOptionsFromFlags(f: RawFlags): SpokeAgentOptions {
  const d = defaultAgentOptions();
  let featureGates;
  try {
    featureGates = parseFeatureGates(f.featureGates, SPOKE_FEATURE_DEFAULTS);
  } catch (err) {
    if (err instanceof FeatureGateError) throw new CliUsageError(`invalid argument ${JSON.stringify(f.featureGates.join(','))} for "--feature-gates" flag: ${err.message}`);
    throw err;
  }
  let tls;
  try {
    tls = parseTlsServingFlags(f.tlsMinVersion, f.tlsCipherSuites);
  } catch (err) {
    if (err instanceof TlsFlagError) throw new CliUsageError(`invalid TLS flags: ${err.message}`);
    throw err;
  }
  if (f.listen !== '') {
    try {
      parseListenAddress(f.listen);
    } catch (err) {
      if (err instanceof ServingConfigError) throw new CliUsageError(`--listen: ${err.message}`);
      throw err;
    }
  }
  if (f.metricsAuth !== 'delegated' && f.metricsAuth !== 'none') throw new CliUsageError(`invalid argument ${JSON.stringify(f.metricsAuth)} for "--metrics-auth" flag: delegated or none`);
  const leaderElection = {
    ...d.leaderElection,
    disabled: f.disableLeaderElection,
    namespace: f.namespace,
    leaseDurationMs: f.leaderElectionLeaseDuration,
    renewDeadlineMs: f.leaderElectionRenewDeadline,
    retryPeriodMs: f.leaderElectionRetryPeriod,
  };
  if (!leaderElection.disabled) {
    try {
      validateLeaderElectionTimings(leaderElection);
    } catch (err) {
      if (err instanceof LeaderElectionConfigError) throw new CliUsageError(`leader election: ${err.message}`);
      throw err;
    }
  }
  const t = { ...d.timings };
  for (const [flag, timing] of TIMING_FLAGS) {
    const v = f[flag];
    if (typeof v === 'number') t[timing] = v;
  }
  return {
    ...d,
    kubeconfig: f.kubeconfig,
    spokeKubeconfig: f.spokeKubeconfig,
    clusterName: f.spokeClusterName,
    agentId: f.agentId,
    hubKubeconfigDir: f.hubKubeconfigDir,
    hubKubeconfig: f.hubKubeconfig,
    namespace: f.componentNamespace ?? serviceAccountNamespace() ?? d.namespace,
    bootstrapKubeconfig: f.bootstrapKubeconfig,
    bootstrapKubeconfigSecret: f.bootstrapKubeconfigSecret,
    bootstrapKubeconfigs: f.bootstrapKubeconfigs,
    hubConnectionTimeoutSeconds: f.hubConnectionTimeoutSeconds,
    hubKubeconfigSecret: f.hubKubeconfigSecret,
    spokeExternalServerUrls: f.spokeExternalServerUrls,
    clusterHealthcheckPeriodMs: f.clusterHealthcheckPeriod,
    maxCustomClusterClaims: f.maxCustomClusterClaims,
    reservedClusterClaimSuffixes: f.reservedClusterClaimSuffixes,
    clusterAnnotations: f.clusterAnnotations,
    registrationAuth: f.registrationAuth,
    addonKubeclientRegistrationAuth: f.addonKubeclientRegistrationAuth,
    clientCertExpirationSeconds: f.clientCertExpirationSeconds,
    addonTokenExpirationSeconds: f.addonTokenExpirationSeconds,
    hubClusterArn: f.hubClusterArn,
    managedClusterArn: f.managedClusterArn,
    managedClusterRoleSuffix: f.managedClusterRoleSuffix,
    grpcBootstrapConfig: f.grpcBootstrapConfig,
    grpcConfig: f.grpcConfig,
    featureGates,
    listen: f.listen,
    serving: { ...d.serving, tls, metricsAuth: f.metricsAuth },
    leaderElection,
    kubeApiQps: f.kubeApiQps,
    kubeApiBurst: f.kubeApiBurst,
    hubKubeApiQps: f.hubKubeApiQps,
    hubKubeApiBurst: f.hubKubeApiBurst,
    terminateOnFiles: f.terminateOnFiles,
    exitOnRestart: f.exitOnRestart,
    timings: t,
  };
}

/** The agent's options and log level from its flags; throws CliUsageError for a bad value. */
export function agentSettingsFromFlags(raw: RawFlags): { options: SpokeAgentOptions; level: LogLevel } {
  const level = raw.logLevel;
  if (!isLogLevel(level)) throw new CliUsageError(`invalid argument ${JSON.stringify(level)} for "--log-level" flag`);
  return { options: agentOptionsFromFlags(raw), level };
}

/**
 * A file named on the command line that is not there is a usage mistake (exit 2), not something
 * to retry: the restart loop is for files that change while the agent runs.
 */
function checkAgentFiles(opts: SpokeAgentOptions): void {
  const files: [string, string][] = [
    ['--kubeconfig', opts.kubeconfig],
    ['--spoke-kubeconfig', opts.spokeKubeconfig],
    ['--bootstrap-kubeconfig', opts.bootstrapKubeconfig],
    ...opts.bootstrapKubeconfigs.map((p): [string, string] => ['--bootstrap-kubeconfigs', p]),
  ];
  for (const [flag, path] of files) {
    if (path !== '' && !existsSync(path)) throw new CliUsageError(`${flag} ${path}: no such file`);
  }
}

/**
 * Runs the agent in this process until SIGINT/SIGTERM (exit 0) or its own failure (thrown).
 * `onStarted` sees the running agent (its health URL). Shared by `agent` and `join`.
 */
export async function runAgentInForeground(opts: SpokeAgentOptions, level: LogLevel, onStarted?: (handle: SpokeAgentHandle) => void): Promise<void> {
  checkAgentFiles(opts);
  const log = createLogger({ level, fields: { component: 'registration-agent' } });
  const ctl = new AbortController();
  const onSignal = (sig: NodeJS.Signals): void => {
    log.info('received signal, stopping', { signal: sig });
    ctl.abort();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  // Keep the event loop alive while the agent waits on aborts (its timers are unref'd).
  const keepAlive = setInterval(() => {}, 1 << 30);
  try {
    // Loaded only when the command runs: `ocm-ts --help` and other commands stay light.
    const { startSpokeAgent } = await import('../agent/spoke-agent.js');
    const handle = await startSpokeAgent({ options: opts, log });
    ctl.signal.addEventListener('abort', () => void handle.stop(), { once: true });
    onStarted?.(handle);
    const code = await handle.done;
    if (code !== 0) throw new Error(handle.status().lastError ?? `registration agent exited with code ${code}${opts.exitOnRestart ? ' (--exit-on-restart)' : ''}`);
  } finally {
    clearInterval(keepAlive);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/** `ocm-ts agent`: runs the agent its flags describe, in the foreground. */
export async function runAgentFromFlags(raw: RawFlags): Promise<void> {
  const { options, level } = agentSettingsFromFlags(raw);
  await runAgentInForeground(options, level);
}
