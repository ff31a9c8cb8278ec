// `ocm-ts agent`: the registration agent. Flags keep OCM's names and defaults (its own, controllercmd's
// and the common options'), so the klusterlet operator's Deployment runs it unchanged; `_` is
// accepted in place of `-` in flag names. Bad flags, and OCM flags ocm-ts does not implement: one
// line, exit 2. OCM's validation failures: OCM's message, exit 1. SIGINT/SIGTERM stop the agent
// cleanly (exit 0), and so does a change of a `--terminate-on-files` file.
//
// Hidden flags shorten timings OCM hardcodes (for tests): --bootstrap-poll-period,
// --register-resync-period, --secret-dump-resync-period, --addon-lease-sync-period,
// --informer-resync-period, --cache-sync-timeout, --liveness-period, --liveness-failure-threshold,
// --restart-backoff, --hub-timeout-resync-period, --hub-timeout-startup-grace,
// --terminate-on-files-poll-period (Go duration syntax except the threshold).

import { existsSync } from 'node:fs';
import { Command, InvalidArgumentError, Option } from 'commander';
import { FeatureGateError, parseFeatureGates, SPOKE_FEATURE_DEFAULTS } from '../api/feature-gates.js';
import { serviceAccountNamespace } from '../agent/agent-clients.js';
import { defaultAgentOptions, type AgentTimings, type SpokeAgentOptions } from '../agent/options/agent-options.js';
import { DurationError, parseGoDuration } from '../util/duration.js';
import { createLogger, isLogLevel, type LogLevel } from '../util/logger.js';
import { parseListenAddress, ServingConfigError } from '../util/secure-serving.js';
import { parseTlsServingFlags, TlsFlagError } from '../util/tls-flags.js';
import { LeaderElectionConfigError, validateLeaderElectionTimings } from '../client/leader-election.js';
import type { SpokeAgentHandle } from '../agent/spoke-agent.js';
import { CliUsageError } from './usage-error.js';

/**
 * Flags OCM's agent takes (library-go's `--config`, the logging flags of component-base and klog)
 * that ocm-ts does not implement: refused by name rather than silently ignored.
 */
const UNSUPPORTED_OCM_FLAGS: Readonly<Record<string, string>> = {
  '--config': "library-go's operator config file is not read by ocm-ts; use --tls-min-version, --tls-cipher-suites and --listen",
  '-v': 'klog verbosity: use --log-level',
  '--v': 'klog verbosity: use --log-level',
  '--vmodule': 'klog per-file verbosity: use --log-level',
  '--logging-format': 'ocm-ts always logs JSON lines',
  '--log-flush-frequency': 'ocm-ts writes log lines unbuffered',
  '--log-json-split-stream': 'ocm-ts logs to stderr',
  '--log-json-info-buffer-size': 'ocm-ts writes log lines unbuffered',
  '--log-text-split-stream': 'ocm-ts logs to stderr',
  '--log-text-info-buffer-size': 'ocm-ts writes log lines unbuffered',
  '--add-dir-header': 'klog header flags: ocm-ts logs JSON lines',
  '--alsologtostderr': 'ocm-ts logs to stderr',
  '--logtostderr': 'ocm-ts logs to stderr',
  '--log-backtrace-at': 'klog backtraces are not implemented',
  '--log-dir': 'ocm-ts logs to stderr',
  '--log-file': 'ocm-ts logs to stderr',
  '--log-file-max-size': 'ocm-ts logs to stderr',
  '--one-output': 'ocm-ts logs to stderr',
  '--skip-headers': 'klog header flags: ocm-ts logs JSON lines',
  '--skip-log-headers': 'klog header flags: ocm-ts logs JSON lines',
  '--stderrthreshold': 'use --log-level',
};

/** Throws a usage error naming the first OCM flag in `args` that ocm-ts does not implement. */
function refuseUnsupportedFlags(args: readonly string[]): void {
  for (const a of args) {
    if (a === '--') return;
    if (!a.startsWith('-')) continue;
    const name = a.split('=')[0]!;
    const why = Object.hasOwn(UNSUPPORTED_OCM_FLAGS, name) ? UNSUPPORTED_OCM_FLAGS[name] : undefined;
    if (why !== undefined) throw new CliUsageError(`flag ${name} of OCM's agent is not implemented by ocm-ts (${why})`);
  }
}

/** `--spoke_cluster_name=x` → `--spoke-cluster-name=x` (flag names only, never values); `--cluster-name` → `--spoke-cluster-name`. */
export function normalizeFlagNames(args: readonly string[]): string[] {
  const out: string[] = [];
  let rest = false;
  for (const a of args) {
    if (rest || a === '--' || !a.startsWith('--')) {
      out.push(a);
      if (a === '--') rest = true;
      continue;
    }
    const eq = a.indexOf('=');
    const name = eq < 0 ? a : a.slice(0, eq);
    let flag = name.replace(/_/g, '-');
    // `--cluster-name` is an alias writing the same value as `--spoke-cluster-name`.
    if (flag === '--cluster-name') flag = '--spoke-cluster-name';
    out.push(flag + (eq < 0 ? '' : a.slice(eq)));
  }
  return out;
}

class AgentCommand extends Command {
  override parseOptions(argv: string[]): ReturnType<Command['parseOptions']> {
    const normalized = normalizeFlagNames(argv);
    refuseUnsupportedFlags(normalized);
    return super.parseOptions(normalized);
  }
}

function intArg(flag: string): (v: string) => number {
  return (v) => {
    if (!/^[-+]?\d+$/.test(v.trim())) throw new InvalidArgumentError(`invalid argument ${JSON.stringify(v)} for "${flag}" flag: strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
    return Number(v);
  };
}

/** Go's strconv.ParseFloat for a float32 flag (`--kube-api-qps=20.5`). */
function floatArg(flag: string): (v: string) => number {
  return (v) => {
    const t = v.trim();
    if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(t)) throw new InvalidArgumentError(`invalid argument ${JSON.stringify(v)} for "${flag}" flag: strconv.ParseFloat: parsing ${JSON.stringify(v)}: invalid syntax`);
    return Number(t);
  };
}

function durationArg(flag: string): (v: string) => number {
  return (v) => {
    try {
      return parseGoDuration(v);
    } catch (err) {
      if (err instanceof DurationError) throw new InvalidArgumentError(`invalid argument ${JSON.stringify(v)} for "${flag}" flag: ${err.message}`);
      throw err;
    }
  };
}

const collect = (v: string, prev: string[]): string[] => [...prev, v];
const collectCsv = (v: string, prev: string[]): string[] => [...prev, ...v.split(',').map((s) => s.trim()).filter((s) => s !== '')];

function collectMap(v: string, prev: Record<string, string>): Record<string, string> {
  const out = { ...prev };
  for (const item of v.split(',')) {
    if (item.trim() === '') continue;
    const eq = item.indexOf('=');
    if (eq < 0) throw new InvalidArgumentError(`invalid argument ${JSON.stringify(v)} for "--cluster-annotations" flag: ${item} must be formatted as key=value`);
    out[item.slice(0, eq)] = item.slice(eq + 1);
  }
  return out;
}

interface RawFlags {
  kubeconfig: string;
  spokeKubeconfig: string;
  spokeClusterName: string;
  agentId: string;
  hubKubeconfigDir: string;
  hubKubeconfig: string;
  namespace: string;
  componentNamespace?: string;
  bootstrapKubeconfig: string;
  bootstrapKubeconfigSecret: string;
  bootstrapKubeconfigs: string[];
  hubConnectionTimeoutSeconds: number;
  hubKubeconfigSecret: string;
  spokeExternalServerUrls: string[];
  clusterHealthcheckPeriod: number;
  maxCustomClusterClaims: number;
  reservedClusterClaimSuffixes: string[];
  clusterAnnotations: Record<string, string>;
  registrationAuth: string;
  addonKubeclientRegistrationAuth: string;
  clientCertExpirationSeconds: number;
  addonTokenExpirationSeconds: number;
  hubClusterArn: string;
  managedClusterArn: string;
  managedClusterRoleSuffix: string;
  grpcBootstrapConfig: string;
  grpcConfig: string;
  featureGates: string[];
  listen: string;
  tlsMinVersion: string;
  tlsCipherSuites: string;
  metricsAuth: string;
  disableLeaderElection: boolean;
  leaderElectionLeaseDuration: number;
  leaderElectionRenewDeadline: number;
  leaderElectionRetryPeriod: number;
  kubeApiQps: number;
  kubeApiBurst: number;
  hubKubeApiQps: number;
  hubKubeApiBurst: number;
  terminateOnFiles: string[];
  exitOnRestart: boolean;
  logLevel: string;
  bootstrapPollPeriod?: number;
  registerResyncPeriod?: number;
  secretDumpResyncPeriod?: number;
  addonLeaseSyncPeriod?: number;
  informerResyncPeriod?: number;
  cacheSyncTimeout?: number;
  livenessPeriod?: number;
  livenessFailureThreshold?: number;
  restartBackoff?: number;
  hubTimeoutResyncPeriod?: number;
  hubTimeoutStartupGrace?: number;
  terminateOnFilesPollPeriod?: number;
}

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

/** Flags → options (throws CliUsageError for values commander cannot check). */
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

/** Builds the `agent` command (exported for tests: parse with `.parseAsync(args, { from: 'user' })`). */
export function buildAgentCommand(run: (opts: SpokeAgentOptions, logLevel: LogLevel) => Promise<void>): Command {
  const d = defaultAgentOptions();
  const hidden = (flags: string, desc: string, parse: (v: string) => number): Option => new Option(flags, desc).argParser(parse).hideHelp();
  const cmd = new AgentCommand('agent')
    .description('Run the klusterlet registration agent: join a hub, keep the hub credentials rotated, report cluster status')
    .option('--kubeconfig <path>', 'kubeconfig of the management cluster (where the hub kubeconfig secret lives); in-cluster config when empty', '')
    .option('--spoke-kubeconfig <path>', 'kubeconfig of the spoke cluster; the management config when empty', '')
    .option('--spoke-cluster-name <name>', 'name of the spoke cluster (alias: --cluster-name)', '')
    .option('--agent-id <id>', 'ID of the agent', '')
    .option('--hub-kubeconfig-dir <dir>', 'directory where the hub kubeconfig secret is dumped', d.hubKubeconfigDir)
    .option('--hub-kubeconfig <path>', 'hub kubeconfig path (default <hub-kubeconfig-dir>/kubeconfig)', '')
    .option('--namespace <ns>', 'namespace of the leader election lock (default: the component namespace)', '')
    .option('--component-namespace <ns>', `ocm-ts: namespace of the agent's secrets (default: the service account namespace, else ${d.namespace})`)
    .option('--bootstrap-kubeconfig <path>', 'path of the bootstrap kubeconfig', '')
    .option('--bootstrap-kubeconfig-secret <name>', 'name of the bootstrap kubeconfig secret in the component namespace', d.bootstrapKubeconfigSecret)
    .option('--bootstrap-kubeconfigs <path>', 'bootstrap kubeconfig files for MultipleHubs (repeatable)', collect, [] as string[])
    .option('--hub-connection-timeout-seconds <n>', 'MultipleHubs: lease staleness timeout before switching hubs', intArg('--hub-connection-timeout-seconds'), d.hubConnectionTimeoutSeconds)
    .option('--hub-kubeconfig-secret <name>', 'name of the secret storing the hub credentials', d.hubKubeconfigSecret)
    .option('--spoke-external-server-urls <url>', 'spoke API server URL reported to the hub (repeatable)', collect, [] as string[])
    .addOption(
      new Option('--cluster-healthcheck-period <duration>', 'resync period of the cluster status controller')
        .default(d.clusterHealthcheckPeriodMs, '1m')
        .argParser(durationArg('--cluster-healthcheck-period')),
    )
    .option('--max-custom-cluster-claims <n>', 'max number of custom cluster claims exposed', intArg('--max-custom-cluster-claims'), d.maxCustomClusterClaims)
    .option('--reserved-cluster-claim-suffixes <list>', 'cluster claim name suffixes treated as reserved (comma-separated)', collectCsv, [] as string[])
    .option('--cluster-annotations <k=v,...>', 'annotations set on the ManagedCluster at creation (agent.open-cluster-management.io prefix only)', collectMap, {} as Record<string, string>)
    .option('--registration-auth <type>', 'registration driver: csr (default), awsirsa, grpc', '')
    .option('--addon-kubeclient-registration-auth <type>', 'addon kubeClient registration auth: csr or token', d.addonKubeclientRegistrationAuth)
    .option('--client-cert-expiration-seconds <n>', 'requested client certificate lifetime (0 = signer default; else >= 3600)', intArg('--client-cert-expiration-seconds'), 0)
    .option('--addon-token-expiration-seconds <n>', 'addon token lifetime (token auth)', intArg('--addon-token-expiration-seconds'), d.addonTokenExpirationSeconds)
    .option('--hub-cluster-arn <arn>', 'AWS IRSA: hub EKS cluster ARN (not supported by ocm-ts)', '')
    .option('--managed-cluster-arn <arn>', 'AWS IRSA: managed EKS cluster ARN (not supported by ocm-ts)', '')
    .option('--managed-cluster-role-suffix <s>', 'AWS IRSA: IAM role suffix (not supported by ocm-ts)', '')
    .option('--grpc-bootstrap-config <path>', 'with --registration-auth grpc: OCM gRPC config (config.yaml) to join with', '')
    .option('--grpc-config <path>', 'with --registration-auth grpc: OCM gRPC config the agent writes once joined (usually <hub-kubeconfig-dir>/config.yaml)', '')
    .option('--feature-gates <A=true,B=false>', `feature gates (${Object.keys(SPOKE_FEATURE_DEFAULTS).join(', ')})`, collect, [] as string[])
    .option('--listen <addr>', 'host:port of the HTTPS /healthz, /livez, /readyz and /metrics server (empty = none)', '0.0.0.0:8443')
    .option('--tls-min-version <v>', 'minimum TLS version of the serving endpoint: VersionTLS12 (default) or VersionTLS13', '')
    .option('--tls-cipher-suites <suites>', 'comma-separated IANA names of the TLS 1.2 cipher suites of the serving endpoint (default: Node\'s)', '')
    .option('--metrics-auth <mode>', 'ocm-ts: /metrics access: delegated (TokenReview + SubjectAccessReview) or none', 'delegated')
    .option('--disable-leader-election', 'disable leader election', false)
    .addOption(new Option('--leader-election-lease-duration <d>', 'how long a leader that stopped renewing keeps the lock').default(137_000, '137s').argParser(durationArg('--leader-election-lease-duration')))
    .addOption(new Option('--leader-election-renew-deadline <d>', 'how long the leader retries renewing before it stops leading').default(107_000, '107s').argParser(durationArg('--leader-election-renew-deadline')))
    .addOption(new Option('--leader-election-retry-period <d>', 'wait between attempts to acquire or renew the lock').default(26_000, '26s').argParser(durationArg('--leader-election-retry-period')))
    .option('--kube-api-qps <qps>', 'QPS of the management and spoke cluster clients', floatArg('--kube-api-qps'), d.kubeApiQps)
    .option('--kube-api-burst <n>', 'burst of the management and spoke cluster clients', intArg('--kube-api-burst'), d.kubeApiBurst)
    .option('--hub-kube-api-qps <qps>', 'QPS of the hub clients', floatArg('--hub-kube-api-qps'), d.hubKubeApiQps)
    .option('--hub-kube-api-burst <n>', 'burst of the hub clients', intArg('--hub-kube-api-burst'), d.hubKubeApiBurst)
    .option('--terminate-on-files <file>', 'stop (exit 0) when this file changes (repeatable)', collect, [] as string[])
    .option('--exit-on-restart', 'exit non-zero instead of restarting the start sequence in-process', false)
    .option('--log-level <level>', 'trace (debug with a timed line per step), debug, info, warn or error', 'info')
    .addOption(hidden('--bootstrap-poll-period <d>', 'bootstrap wait poll period (1s)', durationArg('--bootstrap-poll-period')))
    .addOption(hidden('--register-resync-period <d>', 'register secret controller resync (5m)', durationArg('--register-resync-period')))
    .addOption(hidden('--secret-dump-resync-period <d>', 'hub kubeconfig secret dump resync (5m)', durationArg('--secret-dump-resync-period')))
    .addOption(hidden('--addon-lease-sync-period <d>', 'addon lease controller period (30s)', durationArg('--addon-lease-sync-period')))
    .addOption(hidden('--informer-resync-period <d>', 'informer resync (10m)', durationArg('--informer-resync-period')))
    .addOption(hidden('--cache-sync-timeout <d>', 'informer cache sync timeout (10m)', durationArg('--cache-sync-timeout')))
    .addOption(hidden('--liveness-period <d>', 'in-process liveness check period (10s; 0 = off)', durationArg('--liveness-period')))
    .addOption(hidden('--liveness-failure-threshold <n>', 'in-process liveness failures before a restart (3)', intArg('--liveness-failure-threshold')))
    .addOption(hidden('--restart-backoff <d>', 'first delay before re-running a failed start (1s)', durationArg('--restart-backoff')))
    .addOption(hidden('--hub-timeout-resync-period <d>', 'MultipleHubs: hub timeout controller check period (1m)', durationArg('--hub-timeout-resync-period')))
    .addOption(hidden('--terminate-on-files-poll-period <d>', '--terminate-on-files poll period (10s)', durationArg('--terminate-on-files-poll-period')))
    .addOption(hidden('--hub-timeout-startup-grace <d>', 'MultipleHubs: hub timeout controller grace period after start (10s)', durationArg('--hub-timeout-startup-grace')))
    .action(async (raw: RawFlags) => {
      const level = raw.logLevel;
      if (!isLogLevel(level)) throw new CliUsageError(`invalid argument ${JSON.stringify(level)} for "--log-level" flag`);
      await run(agentOptionsFromFlags(raw), level);
    });
  return cmd;
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

export function registerAgentCommand(program: Command): void {
  const cmd = buildAgentCommand((opts, level) => runAgentInForeground(opts, level));
  // addCommand() does not inherit exitOverride/output settings the way command() does.
  cmd.copyInheritedSettings(program);
  program.addCommand(cmd);
}
