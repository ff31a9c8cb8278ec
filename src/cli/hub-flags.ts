// The flags of OCM's `registration controller` that `ocm-ts hub` takes beside its own, so that the
// cluster-manager operator's Deployment arguments work unchanged: the registration drivers and
// their settings, the cluster importer's settings, leader election, client throttling and the TLS of the
// health endpoint. Values ocm-ts cannot honour are refused with one line naming the flag.

import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Option, type Command } from 'commander';
import { validateLeaderElectionTimings } from '../client/leader-election.js';
import { serviceAccountNamespace } from '../client/in-cluster.js';
import { DEFAULT_HUB_NAMESPACE, HUB_LOCK_DEFAULTS, type HubLeaderElection } from '../hub/hub-lock.js';
import type { ImporterOptionsInput } from '../hub/importer/importer-options.js';
import type { GrpcServerSettings } from '../hub/grpc/grpc-settings.js';
import type { UnimplementedDriverFlags } from '../hub/registration-drivers.js';
import { errorMessage } from '../util/errors.js';
import { parseTlsServingFlags, type TlsServingFlags } from '../util/tls-flags.js';
import { parseDurationFlag } from './duration-flag.js';
import { CliUsageError } from './usage-error.js';

export interface OcmHubFlagsRaw {
  enabledRegistrationDrivers?: string[];
  hubClusterArn?: string;
  autoApprovedArnPatterns?: string[];
  awsResourceTags?: string[];
  autoApprovedGrpcUsers?: string[];
  grpcCaFile?: string;
  grpcKeyFile?: string;
  grpcSigningDuration?: string;
  grpcServerBindport?: string;
  grpcTlsCertFile?: string;
  grpcTlsKeyFile?: string;
  grpcClientCaFile?: string;
  brokerHeartbeatInterval?: string;
  brokerHeartbeatDisabled?: boolean;
  hubApiserverUrl?: string;
  agentImage?: string;
  bootstrapServiceaccount?: string;
  importRenderers?: string[];
  imagePullSecretName?: string;
  disableLeaderElection?: boolean;
  leaderElectionLeaseDuration?: string;
  leaderElectionRenewDeadline?: string;
  leaderElectionRetryPeriod?: string;
  kubeApiQps?: string;
  kubeApiBurst?: string;
  namespace?: string;
  tlsMinVersion?: string;
  tlsCipherSuites?: string;
}

export interface OcmHubFlags {
  /** undefined = OCM's default (csr). */
  enabledRegistrationDrivers?: string[];
  unimplementedDriverFlags: UnimplementedDriverFlags;
  /** `--grpc-signing-duration`, when given. */
  grpcSigningDurationMs?: number;
  /** The gRPC server's flags (used with the grpc driver). */
  grpcServer: Partial<GrpcServerSettings>;
  /** The importer's flags, validated with the hub options (they depend on the ClusterImporter gate). */
  importer: ImporterOptionsInput;
  /** undefined with --disable-leader-election. */
  leaderElection?: HubLeaderElection;
  throttle: { qps: number; burst: number };
  tls: TlsServingFlags;
}

const splitList = (v: string, prev: string[] = []): string[] => [...prev, ...v.split(',').map((s) => s.trim()).filter((s) => s !== '')];

export function addOcmHubFlags(cmd: Command): Command {
  const opt = (flags: string, help: string, parse?: (v: string, prev: string[]) => string[]): Option => {
    const o = new Option(flags, help);
    return parse ? o.argParser(parse) : o;
  };
  return cmd
    .addOption(opt('--enabled-registration-drivers <drivers>', 'registration drivers: csr (default), grpc (a CloudEvents gRPC server for agents); awsirsa is refused', splitList))
    .addOption(opt('--hub-cluster-arn <arn>', 'awsirsa driver only: ignored, as that driver is refused').hideHelp())
    .addOption(opt('--auto-approved-arn-patterns <patterns>', 'awsirsa driver only: ignored, as that driver is refused', splitList).hideHelp())
    .addOption(opt('--aws-resource-tags <tags>', 'awsirsa driver only: ignored, as that driver is refused', splitList).hideHelp())
    .addOption(opt('--auto-approved-grpc-users <users>', 'grpc driver: bootstrap users whose gRPC registrations are auto-approved (gate ManagedClusterAutoApproval)', splitList))
    .addOption(opt('--grpc-ca-file <file>', 'grpc driver: CA certificate (PEM) that signs and verifies agents\' gRPC client certificates'))
    .addOption(opt('--grpc-key-file <file>', 'grpc driver: key (PEM) of --grpc-ca-file'))
    .addOption(opt('--grpc-signing-duration <d>', 'grpc driver: lifetime of signed gRPC client certificates (default 720h)'))
    .addOption(opt('--grpc-server-bindport <port>', 'grpc driver: port of the gRPC CloudEvents server, on every interface (default 8090)'))
    .addOption(opt('--grpc-tls-cert-file <file>', 'grpc driver: serving certificate of the gRPC server (default: one issued at start by the gRPC CA)'))
    .addOption(opt('--grpc-tls-key-file <file>', 'grpc driver: key of --grpc-tls-cert-file'))
    .addOption(opt('--grpc-client-ca-file <file>', 'grpc driver: CA bundle verifying client certificates (default --grpc-ca-file)'))
    .addOption(opt('--broker-heartbeat-interval <d>', 'grpc driver: heartbeat interval on subscription streams (default 10s)'))
    .option('--broker-heartbeat-disabled', 'grpc driver: send no heartbeats on subscription streams')
    .addOption(opt('--hub-apiserver-url <url>', 'importer (gate ClusterImporter): hub URL in the bootstrap kubeconfig of imported clusters (default: kube-public/cluster-info)'))
    .addOption(opt('--agent-image <image>', 'importer: image of the agent installed on imported clusters (default: the chart values\' image, else ocm-ts:latest)'))
    .addOption(opt('--bootstrap-serviceaccount <ns/name>', 'importer: service account whose token the imported agents bootstrap with (default open-cluster-management/agent-registration-bootstrap)'))
    .addOption(opt('--import-renderers <renderers>', 'importer: ordered render-auto, render-from-config-secret (default render-from-config-secret; empty = render-auto)', splitList))
    .addOption(opt('--image-pull-secret-name <name>', 'importer: pull secret in the hub namespace copied to imported clusters (default open-cluster-management-image-pull-credentials)'))
    .option('--disable-leader-election', 'run the controllers at once instead of only while holding the Lease registration-controller-lock')
    .option('--leader-election-lease-duration <d>', 'how long a stopped leader keeps the lock (default 137s)')
    .option('--leader-election-renew-deadline <d>', 'the leader gives up when it could not renew for this long (default 107s)')
    .option('--leader-election-retry-period <d>', 'interval between attempts to take or renew the lock (default 26s)')
    .option('--namespace <ns>', 'namespace of the leader election Lease (default: the pod\'s, else open-cluster-management-hub)')
    .option('--kube-api-qps <n>', 'API requests per second once the burst is spent (default 50)')
    .option('--kube-api-burst <n>', 'API requests sent at once before throttling (default 100)')
    .option('--tls-min-version <v>', 'health/metrics HTTPS: VersionTLS12 (default) or VersionTLS13')
    .option('--tls-cipher-suites <suites>', 'health/metrics HTTPS: IANA names of the TLS 1.2 cipher suites, comma-separated');
}

function positiveNumber(flag: string, raw: string | undefined, dflt: number, integer: boolean): number {
  if (raw === undefined) return dflt;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    throw new CliUsageError(`${flag} must be a positive ${integer ? 'integer' : 'number'}, got "${raw}"`);
  }
  return n;
}

/** A replica's holder identity: the pod name (host name in a pod) and a random suffix, as library-go's. */
function leaderIdentity(): string {
  return `${process.env['POD_NAME'] ?? hostname()}_${randomBytes(8).toString('hex')}`;
}

/** The gRPC server's flags, as OCM's gRPC server names them. */
function resolveGrpcServerFlags(raw: OcmHubFlagsRaw): Partial<GrpcServerSettings> {
  const out: Partial<GrpcServerSettings> = {};
  if (raw.grpcServerBindport !== undefined) {
    const p = Number(raw.grpcServerBindport);
    if (!/^\d{1,5}$/.test(raw.grpcServerBindport) || p > 65535) throw new CliUsageError(`--grpc-server-bindport must be a port number, got "${raw.grpcServerBindport}"`);
    out.listen = `:${p}`;
  }
  if ((raw.grpcTlsCertFile === undefined) !== (raw.grpcTlsKeyFile === undefined)) throw new CliUsageError('--grpc-tls-cert-file and --grpc-tls-key-file go together');
  if (raw.grpcTlsCertFile !== undefined) {
    out.certFile = raw.grpcTlsCertFile;
    out.keyFile = raw.grpcTlsKeyFile!;
  }
  if (raw.grpcClientCaFile !== undefined) out.clientCaFile = raw.grpcClientCaFile;
  if (raw.brokerHeartbeatInterval !== undefined) {
    const ms = parseDurationFlag('--broker-heartbeat-interval', raw.brokerHeartbeatInterval);
    if (ms <= 0) throw new CliUsageError('--broker-heartbeat-interval must be positive');
    out.heartbeatIntervalMs = ms;
  }
  if (raw.brokerHeartbeatDisabled) out.heartbeatDisabled = true;
  return out;
}

/** Validates the OCM flags; `needsLock` is false in embedded mode, where a single hub owns its API server. */
export function resolveOcmHubFlags(raw: OcmHubFlagsRaw, opts: { needsLock: boolean }): OcmHubFlags {
  const grpcSigningDurationMs = raw.grpcSigningDuration !== undefined ? parseDurationFlag('--grpc-signing-duration', raw.grpcSigningDuration) : undefined;
  if (grpcSigningDurationMs !== undefined && grpcSigningDurationMs <= 0) throw new CliUsageError('--grpc-signing-duration must be positive');
  const grpcServer = resolveGrpcServerFlags(raw);
  const dur = (flag: string, v: string | undefined, dflt: number): number => (v === undefined ? dflt : parseDurationFlag(flag, v));
  const timings = {
    leaseDurationMs: dur('--leader-election-lease-duration', raw.leaderElectionLeaseDuration, HUB_LOCK_DEFAULTS.leaseDurationMs),
    renewDeadlineMs: dur('--leader-election-renew-deadline', raw.leaderElectionRenewDeadline, HUB_LOCK_DEFAULTS.renewDeadlineMs),
    retryPeriodMs: dur('--leader-election-retry-period', raw.leaderElectionRetryPeriod, HUB_LOCK_DEFAULTS.retryPeriodMs),
  };
  try {
    validateLeaderElectionTimings(timings);
  } catch (err) {
    throw new CliUsageError(`--leader-election-*: ${errorMessage(err)}`);
  }
  if (raw.namespace !== undefined && !/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(raw.namespace)) {
    throw new CliUsageError(`--namespace must be a namespace name, got "${raw.namespace}"`);
  }
  let tls: TlsServingFlags;
  try {
    tls = parseTlsServingFlags(raw.tlsMinVersion ?? '', raw.tlsCipherSuites ?? '');
  } catch (err) {
    throw new CliUsageError(errorMessage(err));
  }
  const namespace = raw.namespace ?? serviceAccountNamespace()?.trim() ?? DEFAULT_HUB_NAMESPACE;
  const unimplemented: UnimplementedDriverFlags = {
    ...(raw.hubClusterArn !== undefined ? { hubClusterArn: raw.hubClusterArn } : {}),
    ...(raw.autoApprovedArnPatterns !== undefined ? { autoApprovedArnPatterns: raw.autoApprovedArnPatterns } : {}),
    ...(raw.awsResourceTags !== undefined ? { awsResourceTags: raw.awsResourceTags } : {}),
    ...(raw.autoApprovedGrpcUsers !== undefined ? { autoApprovedGrpcUsers: raw.autoApprovedGrpcUsers } : {}),
    ...(raw.grpcCaFile !== undefined ? { grpcCaFile: raw.grpcCaFile } : {}),
    ...(raw.grpcKeyFile !== undefined ? { grpcKeyFile: raw.grpcKeyFile } : {}),
  };
  const importer: ImporterOptionsInput = {
    ...(raw.hubApiserverUrl !== undefined ? { hubApiServerUrl: raw.hubApiserverUrl } : {}),
    ...(raw.agentImage !== undefined ? { agentImage: raw.agentImage } : {}),
    ...(raw.bootstrapServiceaccount !== undefined ? { bootstrapServiceAccount: raw.bootstrapServiceaccount } : {}),
    ...(raw.importRenderers !== undefined ? { renderers: raw.importRenderers } : {}),
    ...(raw.imagePullSecretName !== undefined ? { imagePullSecretName: raw.imagePullSecretName } : {}),
    operatorNamespace: namespace === '' ? DEFAULT_HUB_NAMESPACE : namespace,
  };
  return {
    ...(raw.enabledRegistrationDrivers !== undefined ? { enabledRegistrationDrivers: raw.enabledRegistrationDrivers } : {}),
    unimplementedDriverFlags: unimplemented,
    ...(grpcSigningDurationMs !== undefined ? { grpcSigningDurationMs } : {}),
    grpcServer,
    importer,
    ...(opts.needsLock && !raw.disableLeaderElection
      ? { leaderElection: { namespace: namespace === '' ? DEFAULT_HUB_NAMESPACE : namespace, name: HUB_LOCK_DEFAULTS.name, identity: leaderIdentity(), ...timings } }
      : {}),
    throttle: { qps: positiveNumber('--kube-api-qps', raw.kubeApiQps, 50, false), burst: positiveNumber('--kube-api-burst', raw.kubeApiBurst, 100, true) },
    tls,
  };
}
