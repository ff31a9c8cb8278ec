// The flags of `ocm-ts agent`, defined once: their names, help, defaults and value parsers. Two
// parsers read this table: commander (./agent-command.ts: help, every usage error) and a
// commander-free one (./agent-flag-parser.ts), which lets the long-running agent start without
// loading commander at all. Neither module may define a flag of its own, so the two cannot diverge.
//
// Flags keep OCM's names and defaults (its own, controllercmd's and the common options'), so the
// klusterlet operator's Deployment runs the agent unchanged; `_` is accepted in place of `-` in
// flag names. Hidden flags shorten timings OCM hardcodes (for tests); they take Go's duration
// syntax, except the liveness failure threshold.

import { SPOKE_FEATURE_DEFAULTS } from '../api/feature-gates.js';
import { defaultAgentOptions } from '../agent/options/agent-options.js';
import { DurationError, parseGoDuration } from '../util/duration.js';

/** How a flag's text becomes its value; none (the flag's own text, or true for a switch) when absent. */
type FlagValueKind = 'int' | 'float' | 'duration' | 'list' | 'csv-list' | 'map';

type FlagDefault = string | number | boolean | string[] | Record<string, string>;

export interface AgentFlag {
  /** commander's form: `--name <value>` for a flag that takes a value, `--name` for a switch. */
  readonly spec: string;
  readonly description: string;
  /** The value when the flag is not given; absent flags without one are absent from RawFlags. */
  readonly default?: FlagDefault;
  /** Shown by --help in place of the default value. */
  readonly defaultText?: string;
  readonly value?: FlagValueKind;
  readonly hidden?: boolean;
}

/** The flags as parsed, before validation: one field per flag, named as commander names it. */
export interface RawFlags {
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

/**
 * The agent's flags, in the order --help lists them. Built on each call: list and map defaults are
 * fresh objects for each parse.
 */
export function agentFlags(): readonly AgentFlag[] {
  const d = defaultAgentOptions();
  const hidden = (spec: string, description: string, value: FlagValueKind = 'duration'): AgentFlag => ({ spec, description, value, hidden: true });
  return [
    { spec: '--kubeconfig <path>', description: 'kubeconfig of the management cluster (where the hub kubeconfig secret lives); in-cluster config when empty', default: '' },
    { spec: '--spoke-kubeconfig <path>', description: 'kubeconfig of the spoke cluster; the management config when empty', default: '' },
    { spec: '--spoke-cluster-name <name>', description: 'name of the spoke cluster (alias: --cluster-name)', default: '' },
    { spec: '--agent-id <id>', description: 'ID of the agent', default: '' },
    { spec: '--hub-kubeconfig-dir <dir>', description: 'directory where the hub kubeconfig secret is dumped', default: d.hubKubeconfigDir },
    { spec: '--hub-kubeconfig <path>', description: 'hub kubeconfig path (default <hub-kubeconfig-dir>/kubeconfig)', default: '' },
    { spec: '--namespace <ns>', description: 'namespace of the leader election lock (default: the component namespace)', default: '' },
    { spec: '--component-namespace <ns>', description: `ocm-ts: namespace of the agent's secrets (default: the service account namespace, else ${d.namespace})` },
    { spec: '--bootstrap-kubeconfig <path>', description: 'path of the bootstrap kubeconfig', default: '' },
    { spec: '--bootstrap-kubeconfig-secret <name>', description: 'name of the bootstrap kubeconfig secret in the component namespace', default: d.bootstrapKubeconfigSecret },
    { spec: '--bootstrap-kubeconfigs <path>', description: 'bootstrap kubeconfig files for MultipleHubs (repeatable)', value: 'list', default: [] },
    { spec: '--hub-connection-timeout-seconds <n>', description: 'MultipleHubs: lease staleness timeout before switching hubs', value: 'int', default: d.hubConnectionTimeoutSeconds },
    { spec: '--hub-kubeconfig-secret <name>', description: 'name of the secret storing the hub credentials', default: d.hubKubeconfigSecret },
    { spec: '--spoke-external-server-urls <url>', description: 'spoke API server URL reported to the hub (repeatable)', value: 'list', default: [] },
    { spec: '--cluster-healthcheck-period <duration>', description: 'resync period of the cluster status controller', value: 'duration', default: d.clusterHealthcheckPeriodMs, defaultText: '1m' },
    { spec: '--max-custom-cluster-claims <n>', description: 'max number of custom cluster claims exposed', value: 'int', default: d.maxCustomClusterClaims },
    { spec: '--reserved-cluster-claim-suffixes <list>', description: 'cluster claim name suffixes treated as reserved (comma-separated)', value: 'csv-list', default: [] },
    { spec: '--cluster-annotations <k=v,...>', description: 'annotations set on the ManagedCluster at creation (agent.open-cluster-management.io prefix only)', value: 'map', default: {} },
    { spec: '--registration-auth <type>', description: 'registration driver: csr (default), awsirsa, grpc', default: '' },
    { spec: '--addon-kubeclient-registration-auth <type>', description: 'addon kubeClient registration auth: csr or token', default: d.addonKubeclientRegistrationAuth },
    { spec: '--client-cert-expiration-seconds <n>', description: 'requested client certificate lifetime (0 = signer default; else >= 3600)', value: 'int', default: 0 },
    { spec: '--addon-token-expiration-seconds <n>', description: 'addon token lifetime (token auth)', value: 'int', default: d.addonTokenExpirationSeconds },
    { spec: '--hub-cluster-arn <arn>', description: 'AWS IRSA: hub EKS cluster ARN (not supported by ocm-ts)', default: '' },
    { spec: '--managed-cluster-arn <arn>', description: 'AWS IRSA: managed EKS cluster ARN (not supported by ocm-ts)', default: '' },
    { spec: '--managed-cluster-role-suffix <s>', description: 'AWS IRSA: IAM role suffix (not supported by ocm-ts)', default: '' },
    { spec: '--grpc-bootstrap-config <path>', description: 'with --registration-auth grpc: OCM gRPC config (config.yaml) to join with', default: '' },
    { spec: '--grpc-config <path>', description: 'with --registration-auth grpc: OCM gRPC config the agent writes once joined (usually <hub-kubeconfig-dir>/config.yaml)', default: '' },
    { spec: '--feature-gates <A=true,B=false>', description: `feature gates (${Object.keys(SPOKE_FEATURE_DEFAULTS).join(', ')})`, value: 'list', default: [] },
    { spec: '--listen <addr>', description: 'host:port of the HTTPS /healthz, /livez, /readyz and /metrics server (empty = none)', default: '0.0.0.0:8443' },
    { spec: '--tls-min-version <v>', description: 'minimum TLS version of the serving endpoint: VersionTLS12 (default) or VersionTLS13', default: '' },
    { spec: '--tls-cipher-suites <suites>', description: "comma-separated IANA names of the TLS 1.2 cipher suites of the serving endpoint (default: Node's)", default: '' },
    { spec: '--metrics-auth <mode>', description: 'ocm-ts: /metrics access: delegated (TokenReview + SubjectAccessReview) or none', default: 'delegated' },
    { spec: '--disable-leader-election', description: 'disable leader election', default: false },
    { spec: '--leader-election-lease-duration <d>', description: 'how long a leader that stopped renewing keeps the lock', value: 'duration', default: 137_000, defaultText: '137s' },
    { spec: '--leader-election-renew-deadline <d>', description: 'how long the leader retries renewing before it stops leading', value: 'duration', default: 107_000, defaultText: '107s' },
    { spec: '--leader-election-retry-period <d>', description: 'wait between attempts to acquire or renew the lock', value: 'duration', default: 26_000, defaultText: '26s' },
    { spec: '--kube-api-qps <qps>', description: 'QPS of the management and spoke cluster clients', value: 'float', default: d.kubeApiQps },
    { spec: '--kube-api-burst <n>', description: 'burst of the management and spoke cluster clients', value: 'int', default: d.kubeApiBurst },
    { spec: '--hub-kube-api-qps <qps>', description: 'QPS of the hub clients', value: 'float', default: d.hubKubeApiQps },
    { spec: '--hub-kube-api-burst <n>', description: 'burst of the hub clients', value: 'int', default: d.hubKubeApiBurst },
    { spec: '--terminate-on-files <file>', description: 'stop (exit 0) when this file changes (repeatable)', value: 'list', default: [] },
    { spec: '--exit-on-restart', description: 'exit non-zero instead of restarting the start sequence in-process', default: false },
    { spec: '--log-level <level>', description: 'trace (debug with a timed line per step), debug, info, warn or error', default: 'info' },
    hidden('--bootstrap-poll-period <d>', 'bootstrap wait poll period (1s)'),
    hidden('--register-resync-period <d>', 'register secret controller resync (5m)'),
    hidden('--secret-dump-resync-period <d>', 'hub kubeconfig secret dump resync (5m)'),
    hidden('--addon-lease-sync-period <d>', 'addon lease controller period (30s)'),
    hidden('--informer-resync-period <d>', 'informer resync (10m)'),
    hidden('--cache-sync-timeout <d>', 'informer cache sync timeout (10m)'),
    hidden('--liveness-period <d>', 'in-process liveness check period (10s; 0 = off)'),
    hidden('--liveness-failure-threshold <n>', 'in-process liveness failures before a restart (3)', 'int'),
    hidden('--restart-backoff <d>', 'first delay before re-running a failed start (1s)'),
    hidden('--hub-timeout-resync-period <d>', 'MultipleHubs: hub timeout controller check period (1m)'),
    hidden('--terminate-on-files-poll-period <d>', '--terminate-on-files poll period (10s)'),
    hidden('--hub-timeout-startup-grace <d>', 'MultipleHubs: hub timeout controller grace period after start (10s)'),
  ];
}

/** `--kube-api-qps <qps>` → `--kube-api-qps`. */
export function flagName(flag: AgentFlag): string {
  return flag.spec.split(' ')[0]!;
}

/** Whether the flag takes a value (`--name <value>`) rather than being a switch. */
export function takesValue(flag: AgentFlag): boolean {
  return flag.spec.includes(' <');
}

/** The RawFlags field of a flag, as commander names it: `--kube-api-qps` → `kubeApiQps`. */
export function flagKey(flag: AgentFlag): string {
  return flagName(flag)
    .slice(2)
    .split('-')
    .reduce((key, word) => key + word[0]!.toUpperCase() + word.slice(1));
}

/** A flag's value that cannot be parsed; the message is pflag's, naming the flag. */
export class FlagValueError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FlagValueError';
  }
}

function intValue(flag: string, v: string): number {
  if (!/^[-+]?\d+$/.test(v.trim())) throw new FlagValueError(`invalid argument ${JSON.stringify(v)} for "${flag}" flag: strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
  return Number(v);
}

/** Go's strconv.ParseFloat for a float32 flag (`--kube-api-qps=20.5`). */
function floatValue(flag: string, v: string): number {
  const t = v.trim();
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(t)) throw new FlagValueError(`invalid argument ${JSON.stringify(v)} for "${flag}" flag: strconv.ParseFloat: parsing ${JSON.stringify(v)}: invalid syntax`);
  return Number(t);
}

function durationValue(flag: string, v: string): number {
  try {
    return parseGoDuration(v);
  } catch (err) {
    if (err instanceof DurationError) throw new FlagValueError(`invalid argument ${JSON.stringify(v)} for "${flag}" flag: ${err.message}`);
    throw err;
  }
}

// A repeatable flag's previous value is the one its own parser returned, or its list default.
const listOf = (prev: unknown): string[] => (Array.isArray(prev) ? (prev as string[]) : []);
const mapOf = (prev: unknown): Record<string, string> => (typeof prev === 'object' && prev !== null ? (prev as Record<string, string>) : {});

function mapValue(flag: string, v: string, prev: Record<string, string>): Record<string, string> {
  const out = { ...prev };
  for (const item of v.split(',')) {
    if (item.trim() === '') continue;
    const eq = item.indexOf('=');
    if (eq < 0) throw new FlagValueError(`invalid argument ${JSON.stringify(v)} for "${flag}" flag: ${item} must be formatted as key=value`);
    out[item.slice(0, eq)] = item.slice(eq + 1);
  }
  return out;
}

/**
 * The flag's parser, called once per occurrence with the value so far (the default first), as
 * commander calls an option's argument parser; undefined for a flag whose last occurrence wins.
 * Throws FlagValueError for a value it cannot parse.
 */
export function valueParser(flag: AgentFlag): ((value: string, previous: unknown) => unknown) | undefined {
  const name = flagName(flag);
  switch (flag.value) {
    case undefined:
      return undefined;
    case 'int':
      return (v) => intValue(name, v);
    case 'float':
      return (v) => floatValue(name, v);
    case 'duration':
      return (v) => durationValue(name, v);
    case 'list':
      return (v, prev) => [...listOf(prev), v];
    case 'csv-list':
      return (v, prev) => [...listOf(prev), ...v.split(',').map((s) => s.trim()).filter((s) => s !== '')];
    case 'map':
      return (v, prev) => mapValue(name, v, mapOf(prev));
  }
}

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

/** The usage error for the first OCM flag in `args` that ocm-ts does not implement, if any. */
export function unsupportedFlagMessage(args: readonly string[]): string | undefined {
  for (const a of args) {
    if (a === '--') return undefined;
    if (!a.startsWith('-')) continue;
    const name = a.split('=')[0]!;
    const why = Object.hasOwn(UNSUPPORTED_OCM_FLAGS, name) ? UNSUPPORTED_OCM_FLAGS[name] : undefined;
    if (why !== undefined) return `flag ${name} of OCM's agent is not implemented by ocm-ts (${why})`;
  }
  return undefined;
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
