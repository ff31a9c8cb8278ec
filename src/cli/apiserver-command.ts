// `ocm-ts apiserver --data-dir DIR [--listen HOST:PORT]`: runs the embedded Kubernetes-compatible
// API server. Prints one line with the URL on stdout when ready; logs JSON lines on stderr.
// `--ocm-admission` applies OCM's ManagedCluster and ManagedClusterSetBinding admission in process,
// so another hub controller (OCM's own) can run against it as it would against a kube-apiserver
// with OCM's webhooks installed.

import type { Command } from 'commander';
import type { ListenAddress } from '../apiserver/embedded.js';
import { createLogger, isLogLevel, type LogLevel } from '../util/logger.js';
import { parseDurationFlag } from './duration-flag.js';
import { CliUsageError } from './usage-error.js';
import { DEFAULT_INFLIGHT_LIMITS, type InflightLimits } from '../apiserver/http/inflight-limit.js';
import { parseInflightFlags, type RawInflightFlags } from './inflight-flags.js';

interface ApiserverCommandOptions {
  dataDir: string;
  listen: ListenAddress;
  logLevel: LogLevel;
  tokenAuthFile?: string;
  clusterSigningDurationMs?: number;
  ocmAdmission: boolean;
  serveV1beta1Csr: boolean;
  inflightLimits?: Partial<InflightLimits>;
}

interface RawApiserverOptions extends RawInflightFlags {
  dataDir?: string;
  listen?: string;
  logLevel?: string;
  tokenAuthFile?: string;
  clusterSigningDuration?: string;
  ocmAdmission?: boolean;
  serveV1beta1Csr?: boolean;
}

/** Parses `HOST:PORT` (IPv6 as `[::1]:PORT`). */
export function parseListen(v: string): ListenAddress {
  const m = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(v);
  if (!m) throw new CliUsageError(`--listen must be HOST:PORT, got "${v}"`);
  const host = m[1] ?? m[2] ?? '';
  const port = Number(m[3]);
  if (host === '' || port > 65535) throw new CliUsageError(`--listen must be HOST:PORT with a port 0-65535, got "${v}"`);
  return { host, port };
}

function validateApiserverOptions(raw: RawApiserverOptions): ApiserverCommandOptions {
  if (!raw.dataDir) throw new CliUsageError('--data-dir is required');
  const level = raw.logLevel ?? 'info';
  if (!isLogLevel(level)) throw new CliUsageError(`--log-level must be trace, debug, info, warn or error, got "${level}"`);
  const inflightLimits = parseInflightFlags(raw);
  return Object.freeze({
    dataDir: raw.dataDir,
    listen: parseListen(raw.listen ?? '127.0.0.1:6443'),
    logLevel: level as LogLevel,
    ...(raw.tokenAuthFile ? { tokenAuthFile: raw.tokenAuthFile } : {}),
    ...(raw.clusterSigningDuration !== undefined ? { clusterSigningDurationMs: parseDurationFlag('--cluster-signing-duration', raw.clusterSigningDuration) } : {}),
    ocmAdmission: raw.ocmAdmission === true,
    serveV1beta1Csr: raw.serveV1beta1Csr === true,
    ...(inflightLimits ? { inflightLimits } : {}),
  });
}

async function runApiserver(opts: ApiserverCommandOptions): Promise<void> {
  const log = createLogger({ level: opts.logLevel });
  // Loaded only when the command runs, so other commands do not pay for the server's modules.
  const { startEmbeddedApiServer } = await import('../apiserver/embedded.js');
  const admission = opts.ocmAdmission ? (await import('../apiserver/admission/index.js')).ocmAdmissionPlugins() : [];
  const server = await startEmbeddedApiServer({
    dataDir: opts.dataDir, listen: opts.listen, log, admission,
    ...(opts.tokenAuthFile ? { tokenFile: opts.tokenAuthFile } : {}),
    ...(opts.clusterSigningDurationMs !== undefined ? { clusterSigningDurationMs: opts.clusterSigningDurationMs } : {}),
    ...(opts.serveV1beta1Csr ? { serveV1beta1Csr: true } : {}),
    ...(opts.inflightLimits ? { inflightLimits: opts.inflightLimits } : {}),
  });
  process.stdout.write(`ocm-ts apiserver listening on ${server.url}\n`);
  log.info('admin kubeconfig', { path: server.adminKubeconfigPath });
  await new Promise<void>((resolve) => {
    const stop = (signal: string): void => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      log.info('stopping', { signal });
      server.close().then(resolve, (err: unknown) => {
        log.error('error while stopping', { err });
        resolve();
      });
    };
    const onInt = (): void => stop('SIGINT');
    const onTerm = (): void => stop('SIGTERM');
    process.on('SIGINT', onInt);
    process.on('SIGTERM', onTerm);
  });
}

export function registerApiserverCommand(program: Command): void {
  program
    .command('apiserver')
    .description('run the embedded Kubernetes-compatible API server (HTTPS, SQLite)')
    .option('--data-dir <dir>', 'directory for state.db, pki/ and admin.kubeconfig')
    .option('--listen <host:port>', 'address to listen on (port 0 = a free port)', '127.0.0.1:6443')
    .option('--token-auth-file <file>', 'static bearer tokens (CSV: token,user,uid,"group1,group2")')
    .option('--cluster-signing-duration <duration>', 'lifetime of certificates the CSR signer issues (20s, 1h, or seconds; default 8760h)')
    .option('--ocm-admission', "apply OCM's ManagedCluster and ManagedClusterSetBinding admission (for OCM's own hub controller)")
    .option('--serve-v1beta1-csr', 'serve CertificateSigningRequests as certificates.k8s.io/v1beta1 instead of v1, like kube-apiserver before 1.19')
    .option('--max-requests-inflight <n>', `read-only requests served at once before answering 429 (kube-apiserver's flag; default ${DEFAULT_INFLIGHT_LIMITS.maxRequestsInflight}, 0 = no limit)`)
    .option('--max-mutating-requests-inflight <n>', `mutating requests served at once before answering 429 (default ${DEFAULT_INFLIGHT_LIMITS.maxMutatingRequestsInflight}, 0 = no limit)`)
    .option('--log-level <level>', 'trace (debug with a timed line per step), debug, info, warn or error', 'info')
    .action(async (raw: RawApiserverOptions) => {
      await runApiserver(validateApiserverOptions(raw));
    });
}
