// `ocm-ts webhook`: OCM's registration admission webhook server, for a real kube-apiserver that
// calls it through the Mutating/ValidatingWebhookConfigurations of deploy/hub/webhook.yaml.
//   ocm-ts webhook [--listen 0.0.0.0:9443] [--tls-cert-file F --tls-private-key-file F | --write-ca-file F]
//                  [--tls-min-version V] [--tls-cipher-suites S] [--kubeconfig FILE]
//                  [--feature-gates DefaultClusterSet=true] [--log-level info]
// Prints one ready line on stdout; logs JSON lines on stderr.

import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { FeatureGateError, HUB_FEATURE_DEFAULTS, parseFeatureGates } from '../api/feature-gates.js';
import { inClusterConfig, isInCluster } from '../client/in-cluster.js';
import { createKubeClient } from '../client/rest-client.js';
import type { RegistrationWebhookOptions } from '../hub/webhook/registration-webhook.js';
import { createLogger, type LogLevel } from '../util/logger.js';
import { ServingConfigError, parseListenAddress } from '../util/secure-serving.js';
import { TlsFlagError, parseTlsServingFlags } from '../util/tls-flags.js';
import { CliUsageError } from './usage-error.js';

export interface WebhookCommandRaw {
  listen?: string;
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  writeCaFile?: string;
  tlsSan?: string[];
  tlsMinVersion?: string;
  tlsCipherSuites?: string;
  kubeconfig?: string;
  featureGates?: string[];
  logLevel?: string;
}

/** The serving flags `ocm-ts hub --webhook-listen` shares with `ocm-ts webhook`. */
export interface WebhookServingFlags {
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  writeCaFile?: string;
  tlsSan?: string[];
  tlsMinVersion?: string;
  tlsCipherSuites?: string;
}

export interface WebhookCommandOptions {
  serving: Pick<RegistrationWebhookOptions, 'listen' | 'tls' | 'writeCaFile'>;
  kubeconfig?: string;
  defaultClusterSet: boolean;
  logLevel: LogLevel;
}

const splitList = (v: string, prev: string[] = []): string[] => [...prev, ...v.split(',').map((s) => s.trim()).filter((s) => s !== '')];
const collect = (v: string, prev: string[] = []): string[] => [...prev, v];

/** Validates the serving flags; `listenFlag` names the listen flag in messages. */
export function webhookServing(listenFlag: string, listenRaw: string, raw: WebhookServingFlags): WebhookCommandOptions['serving'] {
  try {
    parseListenAddress(listenRaw);
  } catch (err) {
    if (!(err instanceof ServingConfigError)) throw err;
    throw new CliUsageError(`${listenFlag} must be HOST:PORT with a port 0-65535, got "${listenRaw}"`);
  }
  if ((raw.tlsCertFile === undefined) !== (raw.tlsPrivateKeyFile === undefined)) {
    throw new CliUsageError('--tls-cert-file and --tls-private-key-file go together');
  }
  if (raw.tlsCertFile !== undefined && raw.writeCaFile !== undefined) {
    throw new CliUsageError('--write-ca-file writes the CA of a generated certificate: omit it with --tls-cert-file');
  }
  if (raw.tlsCertFile !== undefined && raw.tlsSan !== undefined) {
    throw new CliUsageError('--tls-san names the generated certificate: omit it with --tls-cert-file');
  }
  for (const [flag, file] of [['--tls-cert-file', raw.tlsCertFile], ['--tls-private-key-file', raw.tlsPrivateKeyFile]] as const) {
    if (file !== undefined && !existsSync(file)) throw new CliUsageError(`${flag} ${file}: no such file`);
  }
  let versions;
  try {
    versions = parseTlsServingFlags(raw.tlsMinVersion ?? '', raw.tlsCipherSuites ?? '');
  } catch (err) {
    if (err instanceof TlsFlagError) throw new CliUsageError(err.message);
    throw err;
  }
  return {
    listen: listenRaw,
    tls: {
      ...versions,
      ...(raw.tlsCertFile !== undefined ? { certFile: raw.tlsCertFile, keyFile: raw.tlsPrivateKeyFile! } : {}),
      ...(raw.tlsSan !== undefined ? { sans: raw.tlsSan } : {}),
    },
    ...(raw.writeCaFile !== undefined ? { writeCaFile: raw.writeCaFile } : {}),
  };
}

export function validateWebhookOptions(raw: WebhookCommandRaw, env: NodeJS.ProcessEnv = process.env): WebhookCommandOptions {
  const level = raw.logLevel ?? 'info';
  if (!['debug', 'info', 'warn', 'error'].includes(level)) throw new CliUsageError(`--log-level must be debug, info, warn or error, got "${level}"`);
  let gates;
  try {
    gates = parseFeatureGates(raw.featureGates ?? [], HUB_FEATURE_DEFAULTS);
  } catch (err) {
    if (err instanceof FeatureGateError) throw new CliUsageError(`--feature-gates: ${err.message}`);
    throw err;
  }
  const serving = webhookServing('--listen', raw.listen ?? '0.0.0.0:9443', raw);
  if (!raw.kubeconfig && !isInCluster(env)) throw new CliUsageError('--kubeconfig is required outside a pod (SubjectAccessReviews go to the hub)');
  if (raw.kubeconfig && !existsSync(raw.kubeconfig)) throw new CliUsageError(`--kubeconfig ${raw.kubeconfig}: no such file`);
  return Object.freeze({
    serving,
    ...(raw.kubeconfig ? { kubeconfig: raw.kubeconfig } : {}),
    defaultClusterSet: gates.DefaultClusterSet === true,
    logLevel: level as LogLevel,
  });
}

function untilSignal(): Promise<string> {
  return new Promise((resolve) => {
    const stop = (sig: string): void => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      resolve(sig);
    };
    const onInt = (): void => stop('SIGINT');
    const onTerm = (): void => stop('SIGTERM');
    process.on('SIGINT', onInt);
    process.on('SIGTERM', onTerm);
  });
}

async function runWebhook(opts: WebhookCommandOptions): Promise<void> {
  const log = createLogger({ level: opts.logLevel });
  const stopped = untilSignal();
  const client = createKubeClient(opts.kubeconfig ? { kubeconfigPath: opts.kubeconfig } : inClusterConfig(), { log });
  const { startRegistrationWebhook } = await import('../hub/webhook/registration-webhook.js');
  let webhook;
  try {
    webhook = await startRegistrationWebhook({ ...opts.serving, client, defaultClusterSet: opts.defaultClusterSet, log });
  } catch (err) {
    client.close();
    throw err;
  }
  process.stdout.write(`ocm-ts webhook ready: ${webhook.url}${opts.serving.writeCaFile ? ` ca-file ${opts.serving.writeCaFile}` : ''}\n`);
  const sig = await stopped;
  log.info('stopping', { signal: sig });
  await webhook.close();
  client.close();
}

export function registerWebhookCommand(program: Command): void {
  program
    .command('webhook')
    .description("run OCM's registration admission webhook server (ManagedCluster, ManagedClusterSetBinding) for a real kube-apiserver")
    .option('--listen <host:port>', 'HTTPS address (port 0 = a free port)', '0.0.0.0:9443')
    .option('--tls-cert-file <file>', 'serving certificate (PEM); default: a generated self-signed one')
    .option('--tls-private-key-file <file>', 'key of --tls-cert-file (PEM)')
    .option('--write-ca-file <file>', 'with a generated certificate: write its CA here (PEM), for the webhook configurations\' caBundle')
    .option('--tls-san <names>', 'extra DNS names or IPs of the generated certificate; comma-separated, repeatable', splitList)
    .option('--tls-min-version <v>', 'VersionTLS12 (default) or VersionTLS13')
    .option('--tls-cipher-suites <suites>', 'IANA names of the TLS 1.2 cipher suites, comma-separated (default: Node\'s)')
    .option('--kubeconfig <file>', 'the hub cluster, for SubjectAccessReviews and namespace lookups (default: in-cluster)')
    .option('--feature-gates <gates>', 'A=true,B=false (DefaultClusterSet); repeatable', collect)
    .option('--log-level <level>', 'debug, info, warn or error', 'info')
    .action(async (raw: WebhookCommandRaw) => {
      await runWebhook(validateWebhookOptions(raw));
    });
}
