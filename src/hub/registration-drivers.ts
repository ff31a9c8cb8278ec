// Which of OCM's hub registration drivers run, and what becomes of the other drivers' flags. ocm-ts
// implements the CSR and gRPC drivers: naming `awsirsa` is refused at start-up rather than silently
// running a hub that can never accept those clusters. Pure.

export const CSR_DRIVER = 'csr';
export const GRPC_DRIVER = 'grpc';

/** The flags of the drivers other than csr, as OCM's hub takes them (awsirsa's are only warned about). */
export interface UnimplementedDriverFlags {
  hubClusterArn?: string;
  autoApprovedArnPatterns?: readonly string[];
  awsResourceTags?: readonly string[];
  autoApprovedGrpcUsers?: readonly string[];
  grpcCaFile?: string;
  grpcKeyFile?: string;
}

class RegistrationDriverError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RegistrationDriverError';
  }
}

const REFUSED: Readonly<Record<string, string>> = {
  awsirsa: 'awsirsa needs AWS (IAM roles and EKS access entries), which ocm-ts does not manage; use csr',
};

/** The gRPC driver's CA and bootstrap users, when it is enabled. */
export interface GrpcDriverFlags {
  caFile: string;
  keyFile: string;
  autoApprovedUsers: readonly string[];
}

/**
 * The enabled drivers (OCM's default: csr). Unknown names are skipped as OCM skips them, with a
 * warning; `awsirsa` is refused, and `grpc` needs its CA (`--grpc-ca-file`, `--grpc-key-file`).
 */
export function resolveRegistrationDrivers(
  drivers: readonly string[] | undefined,
  flags: UnimplementedDriverFlags,
): { drivers: readonly string[]; warnings: string[]; grpc?: GrpcDriverFlags } {
  const warnings: string[] = [];
  const wanted = (drivers ?? [CSR_DRIVER]).map((d) => d.trim()).filter((d) => d !== '');
  const enabled: string[] = [];
  for (const d of wanted) {
    const refusal = REFUSED[d];
    if (refusal !== undefined) throw new RegistrationDriverError(`--enabled-registration-drivers: ${refusal}`);
    if (d === CSR_DRIVER || d === GRPC_DRIVER) {
      if (!enabled.includes(d)) enabled.push(d);
    } else {
      warnings.push(`--enabled-registration-drivers: unknown driver ${JSON.stringify(d)} ignored`);
    }
  }
  if (enabled.length === 0) warnings.push('--enabled-registration-drivers: no driver enabled, so no CSR is approved by the hub');
  // Without their driver OCM ignores these; say so rather than ignore them silently.
  const grpcOn = enabled.includes(GRPC_DRIVER);
  const unused: [string, boolean][] = [
    ['--hub-cluster-arn', (flags.hubClusterArn ?? '') !== ''],
    ['--auto-approved-arn-patterns', (flags.autoApprovedArnPatterns ?? []).length > 0],
    ['--aws-resource-tags', (flags.awsResourceTags ?? []).length > 0],
    ['--auto-approved-grpc-users', !grpcOn && (flags.autoApprovedGrpcUsers ?? []).length > 0],
    ['--grpc-ca-file', !grpcOn && (flags.grpcCaFile ?? '') !== ''],
    ['--grpc-key-file', !grpcOn && (flags.grpcKeyFile ?? '') !== ''],
  ];
  for (const [flag, given] of unused) {
    if (given) warnings.push(`${flag} ignored: its registration driver is not enabled`);
  }
  if (!grpcOn) return { drivers: Object.freeze(enabled), warnings };
  // OCM's hub reads both files at start and fails without them.
  const caFile = flags.grpcCaFile ?? '';
  const keyFile = flags.grpcKeyFile ?? '';
  if (caFile === '' || keyFile === '') throw new RegistrationDriverError('--enabled-registration-drivers=grpc needs --grpc-ca-file and --grpc-key-file (the CA that signs agents\' gRPC client certificates)');
  const grpc = { caFile, keyFile, autoApprovedUsers: Object.freeze((flags.autoApprovedGrpcUsers ?? []).filter((u) => u !== '')) };
  return { drivers: Object.freeze(enabled), warnings, grpc };
}
