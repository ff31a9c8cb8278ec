// Options of the registration agent, with OCM's flag names and defaults: one plain object, filled
// by the CLI (or a test), validated and completed by ./validate-options.ts. Timings OCM hardcodes
// are grouped in `timings` so tests can shorten them (the CLI exposes them as hidden flags).

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
});

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
  /** Component namespace (`--namespace`). */
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
  /** `host:port` of the health/metrics server; '' = not served. */
  listen: string;
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
    exitOnRestart: false,
    timings: { ...DEFAULT_TIMINGS },
  };
}

export function gateEnabled(opts: Pick<SpokeAgentOptions, 'featureGates'>, gate: string): boolean {
  return opts.featureGates[gate] ?? SPOKE_FEATURE_DEFAULTS[gate] ?? false;
}
