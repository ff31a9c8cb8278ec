// Options of the registration agent, with OCM's flag names and defaults: one plain object, filled
// by the CLI (or a test), validated and completed by ./validate-options.ts. Timings OCM hardcodes
// are grouped in `timings` so tests can shorten them (the CLI exposes them as hidden flags).
// An agent embedded in a process (tests, the demo) serves nothing and runs no leader election by
// default; the CLI turns both on with OCM's defaults (HTTPS on 0.0.0.0:8443, a 137 s lease).

import type { SecureVersion } from 'node:tls';
import { names } from '../../api/constants.js';
import { SPOKE_FEATURE_DEFAULTS, type FeatureGates } from '../../api/feature-gates.js';

export interface AgentTimings {
  /** Poll period of "hub kubeconfig is valid" while bootstrapping (OCM: 1 s). */
  bootstrapPollMs: number;
  /** Resync of the register secret controllers BootstrapController and RegisterController (OCM: 5 min). Drives certificate rotation checks. */
  registerResyncMs: number;
  /** Resync of HubKubeconfigSecretController, which dumps the hub kubeconfig secret to files (OCM: 5 min). */
  secretDumpResyncMs: number;
  /** Resync of the add-on lease controller (OCM: 30 s). */
  addonLeaseSyncMs: number;
  /** Informer resync of the management / spoke / hub informers (OCM: 10 min). */
  informerResyncMs: number;
  /** Informer cache sync timeout before the agent gives up (OCM: 10 min). */
  cacheSyncTimeoutMs: number;
  /**
   * Period of the in-process liveness check standing in for the kubelet probe on `/healthz`
   * (Deployment: every 10 s, 3 failures restart the container). 0 = off.
   */
  livenessPeriodMs: number;
  livenessFailureThreshold: number;
  /** Delay before re-running the start sequence after a failed start (doubles up to 30 s). */
  restartBackoffMs: number;
  /** Poll period of the `--terminate-on-files` watch (library-go's file observer: 10 s). */
  terminateOnFilesPollMs: number;
  /** MultipleHubs: check period of HubTimeoutController (OCM: 1 min). */
  hubTimeoutResyncMs: number;
  /** MultipleHubs: HubTimeoutController takes no decision this soon after it was created (OCM: 10 s, stale leases after a hub switch). */
  hubTimeoutStartupGraceMs: number;
}

const DEFAULT_TIMINGS: Readonly<AgentTimings> = Object.freeze({
  bootstrapPollMs: 1000,
  registerResyncMs: 5 * 60_000,
  secretDumpResyncMs: 5 * 60_000,
  addonLeaseSyncMs: 30_000,
  informerResyncMs: 10 * 60_000,
  cacheSyncTimeoutMs: 10 * 60_000,
  livenessPeriodMs: 10_000,
  livenessFailureThreshold: 3,
  restartBackoffMs: 1000,
  hubTimeoutResyncMs: 60_000,
  hubTimeoutStartupGraceMs: 10_000,
  terminateOnFilesPollMs: 10_000,
});

/** Leader election of agent replicas (controllercmd's flags and defaults). */
interface AgentLeaderElection {
  /** `--disable-leader-election`. */
  disabled: boolean;
  /** `--namespace`: namespace of the lock; '' = the component namespace. */
  namespace: string;
  /** Lease name: controllercmd's `<component>-lock`. */
  name: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  /** Give the lock up when the agent stops (client-go's ReleaseOnCancel); false = as a crash would. */
  releaseOnCancel: boolean;
}

/** The health and metrics listener. */
interface AgentServing {
  /** `--listen` (`host:port`); '' = not served. */
  listen: string;
  /** From `--tls-min-version` and `--tls-cipher-suites` (../../util/tls-flags.ts). */
  tls: { minVersion: SecureVersion; ciphers?: string };
  /**
   * Directory of a serving certificate (`tls.crt`, `tls.key`), used when both files are there, as
   * library-go does with /var/run/secrets/serving-cert; otherwise one is made in memory.
   */
  certDir: string;
  /** `--metrics-auth`: `delegated` (TokenReview + SubjectAccessReview) or `none`. */
  metricsAuth: 'delegated' | 'none';
}

export interface SpokeAgentOptions {
  /** Management cluster kubeconfig (`--kubeconfig`). Empty = in-cluster service account. */
  kubeconfig: string;
  /** Spoke cluster kubeconfig (`--spoke-kubeconfig`); empty = the management config. */
  spokeKubeconfig: string;
  /** `--spoke-cluster-name` / `--cluster-name`. */
  clusterName: string;
  /** `--agent-id`. */
  agentId: string;
  hubKubeconfigDir: string;
  /** `--hub-kubeconfig`; completed to `<dir>/kubeconfig`. */
  hubKubeconfig: string;
  /**
   * Component namespace, where the agent's secrets live: `--component-namespace`, else the service
   * account's namespace file, else open-cluster-management-agent (OCM has no flag for it).
   */
  namespace: string;
  bootstrapKubeconfig: string;
  bootstrapKubeconfigSecret: string;
  bootstrapKubeconfigs: string[];
  hubConnectionTimeoutSeconds: number;
  hubKubeconfigSecret: string;
  spokeExternalServerUrls: string[];
  clusterHealthcheckPeriodMs: number;
  maxCustomClusterClaims: number;
  reservedClusterClaimSuffixes: string[];
  clusterAnnotations: Record<string, string>;
  /** `--registration-auth`: '' / 'csr' (CSR driver), 'awsirsa', 'grpc'. */
  registrationAuth: string;
  addonKubeclientRegistrationAuth: string;
  clientCertExpirationSeconds: number;
  addonTokenExpirationSeconds: number;
  hubClusterArn: string;
  managedClusterArn: string;
  managedClusterRoleSuffix: string;
  grpcBootstrapConfig: string;
  grpcConfig: string;
  featureGates: FeatureGates;
  /** `host:port` of the HTTPS health/metrics server; '' = not served. Shortcut for serving.listen. */
  listen: string;
  serving: Omit<AgentServing, 'listen'>;
  leaderElection: AgentLeaderElection;
  /** `--kube-api-qps` / `--kube-api-burst`: management and spoke clients (OCM: 50 / 100). */
  kubeApiQps: number;
  kubeApiBurst: number;
  /** `--hub-kube-api-qps` / `--hub-kube-api-burst`: hub clients (OCM: 50 / 100). */
  hubKubeApiQps: number;
  hubKubeApiBurst: number;
  /** `--terminate-on-files`: the agent stops (exit 0) when one of these files changes. */
  terminateOnFiles: string[];
  /** Exit (non-zero) instead of re-running the start sequence in-process on a restart trigger. */
  exitOnRestart: boolean;
  timings: AgentTimings;
}

/** OCM's flag defaults. */
export function defaultAgentOptions(): SpokeAgentOptions {
  return {
    kubeconfig: '',
    spokeKubeconfig: '',
    clusterName: '',
    agentId: '',
    hubKubeconfigDir: names.hubKubeconfigDir,
    hubKubeconfig: '',
    namespace: names.agentNamespace,
    bootstrapKubeconfig: '',
    bootstrapKubeconfigSecret: names.bootstrapSecret,
    bootstrapKubeconfigs: [],
    hubConnectionTimeoutSeconds: 600,
    hubKubeconfigSecret: names.hubKubeconfigSecret,
    spokeExternalServerUrls: [],
    clusterHealthcheckPeriodMs: 60_000,
    maxCustomClusterClaims: 20,
    reservedClusterClaimSuffixes: [],
    clusterAnnotations: {},
    registrationAuth: '',
    addonKubeclientRegistrationAuth: 'csr',
    clientCertExpirationSeconds: 0,
    addonTokenExpirationSeconds: 31_536_000,
    hubClusterArn: '',
    managedClusterArn: '',
    managedClusterRoleSuffix: '',
    grpcBootstrapConfig: '',
    grpcConfig: '',
    featureGates: Object.freeze({ ...SPOKE_FEATURE_DEFAULTS }),
    listen: '',
    serving: { tls: { minVersion: 'TLSv1.2' }, certDir: '/var/run/secrets/serving-cert', metricsAuth: 'delegated' },
    leaderElection: {
      disabled: true,
      namespace: '',
      name: 'registration-agent-lock',
      leaseDurationMs: 137_000,
      renewDeadlineMs: 107_000,
      retryPeriodMs: 26_000,
      releaseOnCancel: true,
    },
    kubeApiQps: 50,
    kubeApiBurst: 100,
    hubKubeApiQps: 50,
    hubKubeApiBurst: 100,
    terminateOnFiles: [],
    exitOnRestart: false,
    timings: { ...DEFAULT_TIMINGS },
  };
}

export function gateEnabled(opts: Pick<SpokeAgentOptions, 'featureGates'>, gate: string): boolean {
  return opts.featureGates[gate] ?? SPOKE_FEATURE_DEFAULTS[gate] ?? false;
}
