// Which of OCM's hub registration drivers run, and what becomes of the other drivers' flags. ocm-ts
// implements the CSR driver only: naming `awsirsa` or `grpc` is refused at start-up rather than
// silently running a hub that can never accept those clusters. Pure.

export const CSR_DRIVER = 'csr';

/** The flags of drivers and features ocm-ts does not implement, as OCM's hub takes them. */
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
  grpc: 'grpc is not implemented by ocm-ts (no gRPC registration server or signer); use csr',
};

/**
 * The enabled drivers (OCM's default: csr). Unknown names are skipped as OCM skips them, with a
 * warning; `awsirsa` and `grpc` are refused.
 */
export function resolveRegistrationDrivers(
  drivers: readonly string[] | undefined,
  flags: UnimplementedDriverFlags,
): { drivers: readonly string[]; warnings: string[] } {
  const warnings: string[] = [];
  const wanted = (drivers ?? [CSR_DRIVER]).map((d) => d.trim()).filter((d) => d !== '');
  const enabled: string[] = [];
  for (const d of wanted) {
    const refusal = REFUSED[d];
    if (refusal !== undefined) throw new RegistrationDriverError(`--enabled-registration-drivers: ${refusal}`);
    if (d === CSR_DRIVER) {
      if (!enabled.includes(d)) enabled.push(d);
    } else {
      warnings.push(`--enabled-registration-drivers: unknown driver ${JSON.stringify(d)} ignored`);
    }
  }
  if (enabled.length === 0) warnings.push('--enabled-registration-drivers: no driver enabled, so no CSR is approved by the hub');
  // Without their driver OCM ignores these; say so rather than ignore them silently.
  const unused: [string, boolean][] = [
    ['--hub-cluster-arn', (flags.hubClusterArn ?? '') !== ''],
    ['--auto-approved-arn-patterns', (flags.autoApprovedArnPatterns ?? []).length > 0],
    ['--aws-resource-tags', (flags.awsResourceTags ?? []).length > 0],
    ['--auto-approved-grpc-users', (flags.autoApprovedGrpcUsers ?? []).length > 0],
    ['--grpc-ca-file', (flags.grpcCaFile ?? '') !== ''],
    ['--grpc-key-file', (flags.grpcKeyFile ?? '') !== ''],
  ];
  for (const [flag, given] of unused) {
    if (given) warnings.push(`${flag} ignored: its registration driver is not enabled`);
  }
  return { drivers: Object.freeze(enabled), warnings };
}
