// Hub controller options: parsed once, validated, frozen.

import { HUB_FEATURE_DEFAULTS, parseFeatureGates, type FeatureGates } from '../api/feature-gates.js';
import type { ResourceType } from '../client/types.js';
import { resolveImporterOptions, type ImporterOptions, type ImporterOptionsInput } from './importer/importer-options.js';
import { GRPC_DEFAULTS, type GrpcDriverSettings, type GrpcServerSettings } from './grpc/grpc-settings.js';
import { resolveRegistrationDrivers, type UnimplementedDriverFlags } from './registration-drivers.js';

const DEFAULT_GC_RESOURCE_LIST: readonly string[] = [
  'addon.open-cluster-management.io/v1beta1/managedclusteraddons',
  'work.open-cluster-management.io/v1/manifestworks',
];

export interface HubOptions {
  featureGates: FeatureGates;
  /** Bootstrap users whose CSRs are auto-approved (gate ManagedClusterAutoApproval). */
  autoApprovedCsrUsers: readonly string[];
  /** `--labels`: added to every resource the hub creates for clusters. */
  labels: Readonly<Record<string, string>>;
  /** Ordered GC resource list (group/version/resource). */
  gcResources: readonly ResourceType[];
  /** `--enabled-registration-drivers` once validated: `csr`, `grpc`, both or nothing. */
  registrationDrivers: readonly string[];
  /** The gRPC driver's settings, when it is enabled. */
  grpc?: Readonly<GrpcDriverSettings>;
  /** The cluster importer's settings (used with the ClusterImporter gate). */
  importer: Readonly<ImporterOptions>;
  timings: HubTimings;
}

interface HubTimings {
  /** Informer resync (30 min). */
  resyncMs: number;
  /** RBAC cleanup and GC requeue while resources remain (5 s). */
  cleanupRequeueMs: number;
  /** default/global set repair tick (10 s). */
  defaultSetResyncMs: number;
}

const DEFAULT_HUB_TIMINGS: Readonly<HubTimings> = Object.freeze({
  resyncMs: 30 * 60 * 1000,
  cleanupRequeueMs: 5000,
  defaultSetResyncMs: 10_000,
});

export class HubOptionsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HubOptionsError';
  }
}

/** `k1=v1,k2=v2` → map; OCM's error texts for `--labels`. */
export function parseLabelsFlag(spec: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (spec.trim() === '') return out;
  for (const part of spec.split(',')) {
    const kv = part.split('=');
    if (kv.length !== 2) throw new HubOptionsError(`unexpected label spec: ${part}`);
    const [k, v] = kv as [string, string];
    if (k === '') throw new HubOptionsError('unexpected empty label key');
    out[k] = v;
  }
  return out;
}

/** Parses `group/version/resource` entries; invalid entries are returned separately (logged by the caller). */
export function parseGcResourceList(list: readonly string[]): { resources: ResourceType[]; invalid: string[] } {
  const resources: ResourceType[] = [];
  const invalid: string[] = [];
  for (const entry of list) {
    const parts = entry.split('/');
    if (parts.length !== 3 || parts.some((p) => p === '')) {
      invalid.push(entry);
      continue;
    }
    const [group, version, resource] = parts as [string, string, string];
    resources.push(Object.freeze({ group, version, resource, kind: '', namespaced: true }));
  }
  return { resources, invalid };
}

function resolveGrpcSettings(flags: { caFile: string; keyFile: string; autoApprovedUsers: readonly string[] }, input: HubOptionsInput): Readonly<GrpcDriverSettings> {
  const signing = input.grpcSigningDurationMs ?? GRPC_DEFAULTS.signingDurationMs;
  if (!Number.isFinite(signing) || signing <= 0) throw new HubOptionsError('--grpc-signing-duration must be positive');
  const s = input.grpcServer ?? {};
  const heartbeat = s.heartbeatIntervalMs ?? GRPC_DEFAULTS.heartbeatIntervalMs;
  if (!Number.isFinite(heartbeat) || heartbeat <= 0) throw new HubOptionsError('--broker-heartbeat-interval must be positive');
  if ((s.certFile === undefined) !== (s.keyFile === undefined)) throw new HubOptionsError('--grpc-tls-cert-file and --grpc-tls-key-file go together');
  const server: GrpcServerSettings = {
    listen: s.listen ?? GRPC_DEFAULTS.listen,
    heartbeatIntervalMs: heartbeat,
    heartbeatDisabled: s.heartbeatDisabled === true,
    ...(s.certFile !== undefined ? { certFile: s.certFile, keyFile: s.keyFile! } : {}),
    ...(s.clientCaFile !== undefined ? { clientCaFile: s.clientCaFile } : {}),
  };
  return Object.freeze({ ...flags, signingDurationMs: signing, server: Object.freeze(server) });
}

export interface HubOptionsInput {
  featureGates?: readonly string[] | FeatureGates;
  autoApprovedCsrUsers?: readonly string[];
  /** Deprecated `--cluster-auto-approval-users`; replaced by autoApprovedCsrUsers when that is non-empty. */
  clusterAutoApprovalUsers?: readonly string[];
  labels?: string | Readonly<Record<string, string>>;
  gcResourceList?: readonly string[];
  /** `--enabled-registration-drivers` (default csr; awsirsa is refused). */
  enabledRegistrationDrivers?: readonly string[];
  /** Flags of the drivers other than csr: the gRPC driver's are used when it is enabled, others warned about. */
  unimplementedDriverFlags?: UnimplementedDriverFlags;
  /** `--grpc-signing-duration` in milliseconds (default 720h). */
  grpcSigningDurationMs?: number;
  /** The gRPC server's listener and heartbeat (defaults: OCM's). */
  grpcServer?: Partial<GrpcServerSettings>;
  /** `--hub-apiserver-url`, `--agent-image`, `--bootstrap-serviceaccount`, `--import-renderers`, `--image-pull-secret-name`. */
  importer?: ImporterOptionsInput;
  timings?: Partial<HubTimings>;
}

/** Validates and freezes; throws HubOptionsError / FeatureGateError on bad input (one line naming the flag). */
export function resolveHubOptions(input: HubOptionsInput = {}): { options: Readonly<HubOptions>; warnings: string[] } {
  const warnings: string[] = [];
  const gates = Array.isArray(input.featureGates) || input.featureGates === undefined
    ? parseFeatureGates((input.featureGates as readonly string[] | undefined) ?? [], HUB_FEATURE_DEFAULTS)
    : Object.freeze({ ...HUB_FEATURE_DEFAULTS, ...(input.featureGates as FeatureGates) });
  const labels = typeof input.labels === 'string' ? parseLabelsFlag(input.labels) : { ...(input.labels ?? {}) };
  const users = (input.autoApprovedCsrUsers ?? []).filter((u) => u !== '');
  const legacy = (input.clusterAutoApprovalUsers ?? []).filter((u) => u !== '');
  const gc = parseGcResourceList(input.gcResourceList ?? DEFAULT_GC_RESOURCE_LIST);
  for (const bad of gc.invalid) warnings.push(`invalid gc resource ${JSON.stringify(bad)}: expected group/version/resource; skipped`);
  let drivers: readonly string[];
  let grpc: Readonly<GrpcDriverSettings> | undefined;
  let importer: Readonly<ImporterOptions>;
  try {
    const r = resolveRegistrationDrivers(input.enabledRegistrationDrivers, input.unimplementedDriverFlags ?? {});
    drivers = r.drivers;
    warnings.push(...r.warnings);
    if (r.grpc) grpc = resolveGrpcSettings(r.grpc, input);
    const i = resolveImporterOptions(input.importer ?? {}, gates['ClusterImporter'] === true);
    importer = i.options;
    warnings.push(...i.warnings);
  } catch (err) {
    throw new HubOptionsError(err instanceof Error ? err.message : String(err));
  }
  const timings = { ...DEFAULT_HUB_TIMINGS, ...(input.timings ?? {}) };
  for (const [k, v] of Object.entries(timings)) {
    if (!Number.isFinite(v) || v < 0) throw new HubOptionsError(`timing ${k} must be a non-negative number of milliseconds`);
  }
  const options: HubOptions = {
    featureGates: gates,
    autoApprovedCsrUsers: Object.freeze(users.length > 0 ? users : legacy),
    labels: Object.freeze(labels),
    gcResources: Object.freeze(gc.resources),
    registrationDrivers: drivers,
    ...(grpc ? { grpc } : {}),
    importer,
    timings: Object.freeze(timings),
  };
  return { options: Object.freeze(options), warnings };
}
