// `ocm-ts hub`: the hub registration controllers.
//   Against an existing cluster:  ocm-ts hub --kubeconfig FILE [--listen HOST:PORT] [flags]
//   In a pod on the hub cluster:  ocm-ts hub [flags]   (in-cluster service account)
//   Embedded (own API server):    ocm-ts hub --data-dir DIR [--listen HOST:PORT] [flags]
// `--webhook-listen` also serves OCM's admission webhooks (as `ocm-ts webhook`) beside the
// controllers on an existing cluster; the embedded API server admits in process instead.
// `--listen` is the API server's address in embedded mode (as for `ocm-ts apiserver`), and OCM's
// health/metrics address otherwise (HTTPS, default 0.0.0.0:8443 as OCM's); `--metrics-listen` names
// the latter in both modes. Outside embedded mode the replicas elect a leader with OCM's Lease
// (`--disable-leader-election` to run at once); OCM's other flags are in ./hub-flags.ts.
// Embedded mode writes DIR/admin.kubeconfig and DIR/bootstrap.kubeconfig (a bootstrap token bound only to
// OCM's bootstrap ClusterRole). Prints one ready line on stdout; logs JSON lines on stderr.

import { existsSync } from 'node:fs';
import { Command, Option } from 'commander';
import { FeatureGateError } from '../api/feature-gates.js';
import type { ListenAddress } from '../apiserver/embedded.js';
import { createKubeClient } from '../client/rest-client.js';
import type { KubeClient } from '../client/types.js';
import { inClusterConfig, isInCluster } from '../client/in-cluster.js';
import { loadKubeconfigFile } from '../client/kubeconfig.js';
import type { HubDashboard } from '../dashboard/hub-dashboard.js';
import { HubOptionsError, resolveHubOptions, type HubOptions } from '../hub/options.js';
import { realClock } from '../util/clock.js';
import { createLogger, isLogLevel, type LogLevel } from '../util/logger.js';
import { parseListen as parseHostPort } from './apiserver-command.js';
import { parseDurationFlag } from './duration-flag.js';
import { CliUsageError } from './usage-error.js';
import { webhookServing, type WebhookCommandOptions } from './webhook-command.js';
import { addOcmHubFlags, resolveOcmHubFlags, type OcmHubFlags, type OcmHubFlagsRaw } from './hub-flags.js';
import { parseIntFlag } from './int-flag.js';
import { DEFAULT_INFLIGHT_LIMITS, type InflightLimits } from '../apiserver/http/inflight-limit.js';
import { parseInflightFlags } from './inflight-flags.js';

/** The dashboard's default address: loopback only. */
const DEFAULT_DASHBOARD_LISTEN = '127.0.0.1:8088';
/** OCM's health and metrics address for the registration controller. */
const DEFAULT_METRICS_LISTEN = '0.0.0.0:8443';

interface HubCommandRaw extends OcmHubFlagsRaw {
  kubeconfig?: string;
  dataDir?: string;
  apiserverListen?: string;
  metricsListen?: string;
  clusterSigningDuration?: string;
  maxConnectionsPerAddress?: string;
  maxRequestsInflight?: string;
  maxMutatingRequestsInflight?: string;
  bootstrapTokenTtl?: string;
  autoApprovedCsrUsers?: string[];
  clusterAutoApprovalUsers?: string[];
  featureGates?: string[];
  labels?: string;
  gcResourceList?: string[];
  listen?: string;
  logLevel?: string;
  webhookListen?: string;
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  writeCaFile?: string;
  tlsSan?: string[];
  dashboard?: boolean;
  dashboardListen?: string;
}

export interface HubCommandOptions {
  mode: 'embedded' | 'kubeconfig' | 'in-cluster';
  kubeconfig?: string;
  dataDir?: string;
  apiserverListen: ListenAddress;
  clusterSigningDurationMs?: number;
  /** Embedded mode: connections the API server admits from one client address. */
  maxConnectionsPerAddress?: number;
  /** Embedded mode: the API server's in-flight request limits given on the command line. */
  inflightLimits?: Partial<InflightLimits>;
  bootstrapTokenTtlMs: number;
  listen?: string;
  logLevel: LogLevel;
  hub: Readonly<HubOptions>;
  warnings: string[];
  webhook?: WebhookCommandOptions['serving'];
  ocm: OcmHubFlags;
  /** Serve the web dashboard here (loopback unless told otherwise). */
  dashboard?: ListenAddress;
}

const splitList = (v: string, prev: string[] = []): string[] => [...prev, ...v.split(',').map((s) => s.trim()).filter((s) => s !== '')];
const collect = (v: string, prev: string[] = []): string[] => [...prev, v];

function validateHubOptions(raw: HubCommandRaw): HubCommandOptions {
  if (!raw.dataDir && !raw.kubeconfig && !isInCluster()) {
    throw new CliUsageError('either --data-dir (embedded API server) or --kubeconfig (existing cluster) is required outside a pod');
  }
  if (raw.dataDir && raw.kubeconfig) throw new CliUsageError('--data-dir and --kubeconfig are mutually exclusive');
  if (!raw.dataDir) {
    for (const [flag, v] of [['--apiserver-listen', raw.apiserverListen], ['--cluster-signing-duration', raw.clusterSigningDuration], ['--bootstrap-token-ttl', raw.bootstrapTokenTtl], ['--max-connections-per-address', raw.maxConnectionsPerAddress], ['--max-requests-inflight', raw.maxRequestsInflight], ['--max-mutating-requests-inflight', raw.maxMutatingRequestsInflight]] as const) {
      if (v !== undefined) throw new CliUsageError(`${flag} needs --data-dir`);
    }
  }
  const level = raw.logLevel ?? 'info';
  if (!isLogLevel(level)) throw new CliUsageError(`--log-level must be trace, debug, info, warn or error, got "${level}"`);
  const ocm = resolveOcmHubFlags(raw, { needsLock: !raw.dataDir });
  let hub: Readonly<HubOptions>;
  let warnings: string[];
  try {
    ({ options: hub, warnings } = resolveHubOptions({
      featureGates: raw.featureGates ?? [],
      autoApprovedCsrUsers: raw.autoApprovedCsrUsers ?? [],
      clusterAutoApprovalUsers: raw.clusterAutoApprovalUsers ?? [],
      labels: raw.labels ?? '',
      ...(raw.gcResourceList ? { gcResourceList: raw.gcResourceList } : {}),
      ...(ocm.enabledRegistrationDrivers ? { enabledRegistrationDrivers: ocm.enabledRegistrationDrivers } : {}),
      unimplementedDriverFlags: ocm.unimplementedDriverFlags,
      ...(ocm.grpcSigningDurationMs !== undefined ? { grpcSigningDurationMs: ocm.grpcSigningDurationMs } : {}),
      grpcServer: ocm.grpcServer,
      importer: ocm.importer,
    }));
  } catch (err) {
    if (err instanceof HubOptionsError || err instanceof FeatureGateError) throw new CliUsageError(err.message);
    throw err;
  }
  // Embedded mode: --listen is the API server's address; otherwise OCM's health/metrics address.
  const metricsFlag = raw.metricsListen !== undefined ? '--metrics-listen' : '--listen';
  const metricsRaw = raw.metricsListen ?? (raw.dataDir ? undefined : raw.listen ?? DEFAULT_METRICS_LISTEN);
  let listen: string | undefined;
  if (metricsRaw !== undefined) {
    const hp = /^(?:\[[^\]]+\]|[^:[\]]*):(\d{1,5})$/.exec(metricsRaw);
    if (!hp || Number(hp[1]) > 65535) throw new CliUsageError(`${metricsFlag} must be HOST:PORT (or :PORT), got "${metricsRaw}"`);
    listen = metricsRaw;
  }
  const apiserverRaw = raw.apiserverListen ?? (raw.dataDir ? raw.listen : undefined);
  const apiserverFlag = raw.apiserverListen !== undefined ? '--apiserver-listen' : '--listen';
  const ttl = raw.bootstrapTokenTtl !== undefined ? parseDurationFlag('--bootstrap-token-ttl', raw.bootstrapTokenTtl) : 24 * 3600_000;
  if (ttl <= 0) throw new CliUsageError('--bootstrap-token-ttl must be positive');
  const signing = raw.clusterSigningDuration !== undefined ? parseDurationFlag('--cluster-signing-duration', raw.clusterSigningDuration) : undefined;
  if (signing !== undefined && signing <= 0) throw new CliUsageError('--cluster-signing-duration must be positive');
  const perAddress = raw.maxConnectionsPerAddress !== undefined ? parseIntFlag('--max-connections-per-address', raw.maxConnectionsPerAddress, 1) : undefined;
  const inflightLimits = parseInflightFlags(raw);
  let apiserverListen: ListenAddress;
  try {
    apiserverListen = parseHostPort(apiserverRaw ?? '127.0.0.1:6443');
  } catch {
    throw new CliUsageError(`${apiserverFlag} must be HOST:PORT, got "${apiserverRaw ?? ''}"`);
  }
  let webhook: WebhookCommandOptions['serving'] | undefined;
  if (raw.webhookListen !== undefined) {
    if (raw.dataDir) throw new CliUsageError('--webhook-listen needs --kubeconfig or a pod: the embedded API server runs OCM admission itself');
    webhook = webhookServing('--webhook-listen', raw.webhookListen, raw);
  } else {
    for (const [flag, v] of [['--tls-cert-file', raw.tlsCertFile], ['--tls-private-key-file', raw.tlsPrivateKeyFile], ['--write-ca-file', raw.writeCaFile], ['--tls-san', raw.tlsSan]] as const) {
      if (v !== undefined) throw new CliUsageError(`${flag} needs --webhook-listen`);
    }
  }
  let dashboard: ListenAddress | undefined;
  if (raw.dashboardListen !== undefined && !raw.dashboard) throw new CliUsageError('--dashboard-listen needs --dashboard');
  if (raw.dashboard) {
    try {
      dashboard = parseHostPort(raw.dashboardListen ?? DEFAULT_DASHBOARD_LISTEN);
    } catch {
      throw new CliUsageError(`--dashboard-listen must be HOST:PORT, got "${raw.dashboardListen ?? ''}"`);
    }
  }
  // Checked last, so that every flag mistake is reported before a missing file.
  if (raw.kubeconfig && !existsSync(raw.kubeconfig)) throw new CliUsageError(`--kubeconfig ${raw.kubeconfig}: no such file`);
  return Object.freeze({
    mode: raw.dataDir ? 'embedded' : raw.kubeconfig ? 'kubeconfig' : 'in-cluster',
    ...(raw.kubeconfig ? { kubeconfig: raw.kubeconfig } : {}),
    ...(raw.dataDir ? { dataDir: raw.dataDir } : {}),
    apiserverListen,
    ...(signing !== undefined ? { clusterSigningDurationMs: signing } : {}),
    ...(perAddress !== undefined ? { maxConnectionsPerAddress: perAddress } : {}),
    ...(inflightLimits ? { inflightLimits } : {}),
    bootstrapTokenTtlMs: ttl,
    ...(listen !== undefined ? { listen } : {}),
    logLevel: level as LogLevel,
    hub,
    warnings,
    ...(webhook ? { webhook } : {}),
    ocm,
    ...(dashboard ? { dashboard } : {}),
  });
}

function untilSignal(ac: AbortController): Promise<string> {
  return new Promise((resolve) => {
    const stop = (sig: string): void => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      ac.abort(new Error(`stopped by ${sig}`));
      resolve(sig);
    };
    const onInt = (): void => stop('SIGINT');
    const onTerm = (): void => stop('SIGTERM');
    process.on('SIGINT', onInt);
    process.on('SIGTERM', onTerm);
  });
}

async function runHub(opts: HubCommandOptions): Promise<void> {
  const log = createLogger({ level: opts.logLevel });
  for (const w of opts.warnings) log.error(w);
  const ac = new AbortController();
  const stopped = untilSignal(ac);
  // Health and metrics are served over HTTPS, as OCM's are, with a certificate made at start.
  const serving = opts.listen !== undefined ? { listen: opts.listen, tls: opts.ocm.tls } : {};
  const common = { log, clock: realClock, signal: ac.signal, ...serving };
  if (opts.mode === 'embedded') {
    // Components are loaded only when the command runs: other commands stay light.
    const { startEmbeddedHub } = await import('../embedded/embedded-hub.js');
    const hub = await startEmbeddedHub({
      ...common,
      dataDir: opts.dataDir!,
      apiserverListen: opts.apiserverListen,
      bootstrapTokenTtlMs: opts.bootstrapTokenTtlMs,
      ...(opts.clusterSigningDurationMs !== undefined ? { clusterSigningDurationMs: opts.clusterSigningDurationMs } : {}),
      ...(opts.maxConnectionsPerAddress !== undefined ? { connectionLimits: { maxConnectionsPerAddress: opts.maxConnectionsPerAddress } } : {}),
      ...(opts.inflightLimits ? { inflightLimits: opts.inflightLimits } : {}),
      hubOptions: opts.hub,
    });
    let dashboard: HubDashboard | undefined;
    if (opts.dashboard) {
      const { startEmbeddedHubDashboard } = await import('../dashboard/hub-dashboard.js');
      try {
        dashboard = await startEmbeddedHubDashboard({ hub, listen: opts.dashboard, clock: realClock, log, signal: ac.signal });
      } catch (err) {
        ac.abort(err);
        await hub.close();
        throw err;
      }
    }
    process.stdout.write(
      `ocm-ts hub ready: apiserver ${hub.url} admin-kubeconfig ${hub.adminKubeconfigPath} bootstrap-kubeconfig ${hub.bootstrapKubeconfigPath}` +
        ` (token expires ${hub.bootstrapTokenExpiresAt})${hub.manager.metricsUrl ? ` metrics ${hub.manager.metricsUrl}/metrics` : ''}` +
        `${hub.manager.grpcPort !== undefined ? ` grpc :${hub.manager.grpcPort}` : ''}` +
        `${dashboard ? ` dashboard ${dashboard.url}/ (token: ${dashboard.tokenPath ?? ''})` : ''}\n`,
    );
    const sig = await stopped;
    log.info('stopping', { signal: sig });
    await dashboard?.close();
    await hub.close();
    return;
  }
  const { startHubManager } = await import('../hub/hub-manager.js');
  const target = opts.mode === 'kubeconfig' ? { kubeconfigPath: opts.kubeconfig! } : { client: createKubeClient(inClusterConfig(), { log }) };
  const manager = await startHubManager({
    ...common,
    ...target,
    options: opts.hub,
    throttle: opts.ocm.throttle,
    ...(opts.ocm.leaderElection ? { leaderElection: opts.ocm.leaderElection } : {}),
  });
  let webhook: { url: string; close(): Promise<void> } | undefined;
  let webhookClient: KubeClient | undefined;
  if (opts.webhook) {
    const { startRegistrationWebhook } = await import('../hub/webhook/registration-webhook.js');
    webhookClient = target.client ?? createKubeClient({ kubeconfigPath: opts.kubeconfig! }, { log });
    try {
      webhook = await startRegistrationWebhook({
        ...opts.webhook, client: webhookClient, defaultClusterSet: opts.hub.featureGates['DefaultClusterSet'] === true, log: log.child({ component: 'webhook' }),
      });
    } catch (err) {
      // A webhook that cannot listen must not leave the controllers running headless.
      ac.abort(err);
      await manager.done;
      if (webhookClient !== target.client) webhookClient.close();
      throw err;
    }
  }
  let dashboard: HubDashboard | undefined;
  if (opts.dashboard) {
    const { startExternalHubDashboard } = await import('../dashboard/hub-dashboard.js');
    const config = opts.mode === 'kubeconfig' ? loadKubeconfigFile(opts.kubeconfig!).config : inClusterConfig();
    dashboard = await startExternalHubDashboard({ config, listen: opts.dashboard, clock: realClock, log });
  }
  process.stdout.write(`ocm-ts hub ready: ${opts.mode === 'kubeconfig' ? `kubeconfig ${opts.kubeconfig!}` : 'in-cluster'}` +
    `${manager.metricsUrl ? ` metrics ${manager.metricsUrl}/metrics` : ''}${manager.grpcPort !== undefined ? ` grpc :${manager.grpcPort}` : ''}${webhook ? ` webhook ${webhook.url}` : ''}${dashboard ? ` dashboard ${dashboard.url}/` : ''}\n`);
  // A replica that lost the Lease exits, as OCM's does, so that it restarts as a candidate.
  const sig = await Promise.race([stopped, manager.done.then(() => undefined)]);
  if (sig !== undefined) log.info('stopping', { signal: sig });
  else ac.abort(new Error('leader election lost'));
  await webhook?.close();
  await dashboard?.close();
  await manager.done;
  if (webhookClient !== target.client) webhookClient?.close();
  if (manager.lostLeadership()) throw new Error('leader election lost');
}

/** The `hub` command; `run` receives the validated options (tests pass their own). */
export function buildHubCommand(run: (opts: HubCommandOptions) => Promise<void>): Command {
  const cmd = new Command('hub')
    .description('run the hub registration controllers, against --kubeconfig or an embedded API server (--data-dir)')
    .option('--kubeconfig <file>', 'kubeconfig of an existing hub cluster (controllers only)')
    .option('--data-dir <dir>', 'embedded mode: run the API server with state in DIR; writes DIR/admin.kubeconfig and DIR/bootstrap.kubeconfig')
    .addOption(new Option('--apiserver-listen <host:port>', 'same as --listen in embedded mode').hideHelp())
    .option('--metrics-listen <host:port>', 'address for the controllers\' /healthz and /metrics')
    .option('--cluster-signing-duration <d>', 'embedded mode: lifetime of certificates signed for CSRs (Go duration or seconds; default 1 year)')
    .option('--max-connections-per-address <n>', 'embedded mode: connections the API server admits from one client address (default: a quarter of its connection limit, at least 1024); raise it when many agents share one address (NAT, a local fleet)')
    .option('--max-requests-inflight <n>', `embedded mode: read-only requests the API server serves at once before answering 429 (kube-apiserver's flag; default ${DEFAULT_INFLIGHT_LIMITS.maxRequestsInflight}, 0 = no limit)`)
    .option('--max-mutating-requests-inflight <n>', `embedded mode: mutating requests the API server serves at once before answering 429 (default ${DEFAULT_INFLIGHT_LIMITS.maxMutatingRequestsInflight}, 0 = no limit)`)
    .option('--bootstrap-token-ttl <d>', 'embedded mode: lifetime of the bootstrap token (default 24h); reused on restart while valid')
    .option('--auto-approved-csr-users <users>', 'bootstrap users whose CSRs are auto-approved (gate ManagedClusterAutoApproval); comma-separated, repeatable', splitList)
    .option('--cluster-auto-approval-users <users>', 'deprecated: use --auto-approved-csr-users', splitList)
    .option('--feature-gates <gates>', 'A=true,B=false (DefaultClusterSet, ManagedClusterAutoApproval, ResourceCleanup, ...); repeatable', collect)
    .option('--labels <k=v,...>', 'labels added to every resource the hub creates for clusters')
    .option('--gc-resource-list <gvrs>', 'ordered group/version/resource list deleted on cluster removal', splitList)
    .option('--listen <host:port>', 'with --data-dir: the API server address (default 127.0.0.1:6443, port 0 = a free port); otherwise the /healthz and /metrics address')
    .option('--log-level <level>', 'trace (debug with a timed line per step), debug, info, warn or error', 'info')
    .option('--webhook-listen <host:port>', 'also serve OCM\'s admission webhooks here (as ocm-ts webhook); not with --data-dir')
    .option('--tls-cert-file <file>', 'with --webhook-listen: serving certificate (PEM); default: a generated self-signed one')
    .option('--tls-private-key-file <file>', 'with --webhook-listen: key of --tls-cert-file (PEM)')
    .option('--write-ca-file <file>', 'with --webhook-listen and a generated certificate: write its CA here (PEM)')
    .option('--tls-san <names>', 'with --webhook-listen: extra DNS names or IPs of the generated certificate', splitList)
    .option('--dashboard', 'serve the web dashboard over HTTPS (sign-in with a bearer token or, embedded, the admin client certificate)')
    .option('--dashboard-listen <host:port>', `with --dashboard: its address (default ${DEFAULT_DASHBOARD_LISTEN}; port 0 = a free port)`)
    .action(async (raw: HubCommandRaw) => {
      await run(validateHubOptions(raw));
    });
  return addOcmHubFlags(cmd);
}

export function registerHubCommand(program: Command): void {
  const cmd = buildHubCommand(runHub);
  // addCommand() does not inherit exitOverride/output settings the way command() does.
  cmd.copyInheritedSettings(program);
  program.addCommand(cmd);
}
