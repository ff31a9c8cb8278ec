// `ocm-ts fleet`: the fleet simulator. N real registration agents, in this process or in worker
// processes of this CLI (the hidden `ocm-ts fleet-worker`), against one hub, either given by its
// bootstrap kubeconfig or started here (`--hub-data-dir`, in a child process).
import type { Command } from 'commander';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { realClock } from '../util/clock.js';
import { createLogger, type LogLevel } from '../util/logger.js';
import { parseDurationFlag } from './duration-flag.js';
import { CliUsageError } from './usage-error.js';

interface FleetFlags {
  clusters: string;
  hubKubeconfig?: string;
  hubAdminKubeconfig?: string;
  hubDataDir?: string;
  workDir?: string;
  namePrefix: string;
  leaseDuration?: string;
  clusterSigningDuration?: string;
  autoApproval: boolean;
  joinRate?: string;
  progressInterval: string;
  hubRestart?: string;
  output: string;
  logLevel: string;
  spokeProcess?: boolean;
  workers?: string;
}

function nonNegativeInteger(flag: string, raw: string): number {
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isInteger(n) || n < 0) throw new CliUsageError(`${flag} must be a whole number, 0 or more, got "${raw}"`);
  return n;
}

function positive(flag: string, raw: string, integer: boolean): number {
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) throw new CliUsageError(`${flag} must be a positive ${integer ? 'whole number' : 'number'}, got "${raw}"`);
  return n;
}

export function registerFleetCommand(program: Command): void {
  program
    .command('fleet')
    .description('simulate a fleet: N real registration agents, in this process or in worker processes, joining one hub; prints progress until Ctrl-C')
    .option('--clusters <n>', 'number of clusters (agents)', '10')
    .option('--hub-kubeconfig <file>', 'bootstrap kubeconfig of an existing hub')
    .option('--hub-admin-kubeconfig <file>', 'with --hub-kubeconfig: an admin kubeconfig of that hub (needed for --lease-duration)')
    .option('--hub-data-dir <dir>', 'start an embedded hub with its state in DIR, in its own child process')
    .option('--work-dir <dir>', 'the shared spoke API server and the agents\' hub kubeconfigs (default: a temporary directory, removed at exit)')
    .option('--name-prefix <prefix>', 'cluster names are PREFIX1..PREFIXN', 'fleet-')
    .option('--lease-duration <d>', 'spec.leaseDurationSeconds of every cluster (default: the hub\'s, 60s)')
    .option('--cluster-signing-duration <d>', 'with --hub-data-dir: lifetime of the agents\' client certificates')
    .option('--no-auto-approval', 'with --hub-data-dir: do not auto-approve CSRs and accept clusters (someone else must)')
    .option('--join-rate <n>', 'agents started per second (default: all at once)')
    .option('--progress-interval <d>', 'period of the progress line', '2s')
    .option('--hub-restart <down>', 'with --hub-data-dir: once all are Available, SIGKILL the hub, keep it down this long, start it again and measure the recovery')
    .option('--spoke-process', 'run the shared spoke API server in its own child process (frees this process for the agents)')
    .option('--workers <n>', 'run the agents in N worker processes (0: in this process); default: 0 up to 1,000 clusters, else enough workers for at most 2,500 agents each')
    .option('--output <format>', 'final figures at exit: text or json', 'text')
    .option('--log-level <level>', 'agents\' log level: debug, info, warn or error', 'error')
    .action(async (flags: FleetFlags) => {
      const clusters = positive('--clusters', flags.clusters, true);
      if ((flags.hubKubeconfig === undefined) === (flags.hubDataDir === undefined)) throw new CliUsageError('give exactly one of --hub-kubeconfig and --hub-data-dir');
      if (flags.output !== 'text' && flags.output !== 'json') throw new CliUsageError(`--output must be text or json, got "${flags.output}"`);
      if (!['debug', 'info', 'warn', 'error'].includes(flags.logLevel)) throw new CliUsageError(`--log-level must be debug, info, warn or error, got "${flags.logLevel}"`);
      const local = flags.hubDataDir !== undefined;
      if (!local && (flags.clusterSigningDuration !== undefined || flags.hubRestart !== undefined || !flags.autoApproval)) {
        throw new CliUsageError('--cluster-signing-duration, --no-auto-approval and --hub-restart need --hub-data-dir');
      }
      const leaseMs = flags.leaseDuration !== undefined ? parseDurationFlag('--lease-duration', flags.leaseDuration) : undefined;
      if (leaseMs !== undefined && (leaseMs < 1000 || leaseMs % 1000 !== 0)) throw new CliUsageError('--lease-duration must be a whole number of seconds, at least 1s');
      if (leaseMs !== undefined && !local && flags.hubAdminKubeconfig === undefined) throw new CliUsageError('--lease-duration with --hub-kubeconfig needs --hub-admin-kubeconfig');
      const signingMs = flags.clusterSigningDuration !== undefined ? parseDurationFlag('--cluster-signing-duration', flags.clusterSigningDuration) : undefined;
      const joinRate = flags.joinRate !== undefined ? positive('--join-rate', flags.joinRate, false) : undefined;
      const progressMs = Math.max(200, parseDurationFlag('--progress-interval', flags.progressInterval));
      const restartMs = flags.hubRestart !== undefined ? parseDurationFlag('--hub-restart', flags.hubRestart) : undefined;
      const { defaultWorkerCount } = await import('../fleet/worker-pool.js');
      const workers = flags.workers !== undefined ? nonNegativeInteger('--workers', flags.workers) : defaultWorkerCount(clusters);
      const cli = { script: process.argv[1]!, execArgv: process.execArgv };

      const ac = new AbortController();
      const stop = (): void => ac.abort(new Error('interrupted'));
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      const workDir = flags.workDir !== undefined ? resolve(flags.workDir) : await mkdtemp(join(tmpdir(), 'ocm-ts-fleet-'));
      const tty = process.stderr.isTTY;
      try {
        const { runFleet } = await import('../fleet/run-fleet.js');
        const { formatReport } = await import('../fleet/figures.js');
        const report = await runFleet(
          {
            clusters,
            namePrefix: flags.namePrefix,
            hub: local
              ? { kind: 'local', dataDir: resolve(flags.hubDataDir!), cli, autoApproval: flags.autoApproval, ...(signingMs !== undefined ? { clusterSigningDurationMs: signingMs } : {}) }
              : { kind: 'external', bootstrapKubeconfig: resolve(flags.hubKubeconfig!), ...(flags.hubAdminKubeconfig !== undefined ? { adminKubeconfig: resolve(flags.hubAdminKubeconfig) } : {}) },
            workDir,
            ...(flags.spokeProcess ? { spokeProcess: cli } : {}),
            ...(workers > 0 ? { workers: { count: workers, cli, logLevel: flags.logLevel as LogLevel } } : {}),
            ...(leaseMs !== undefined ? { leaseDurationSeconds: leaseMs / 1000 } : {}),
            ...(joinRate !== undefined ? { joinRatePerSecond: joinRate } : {}),
            log: createLogger({ level: flags.logLevel as 'error' }),
            clock: realClock,
            progressIntervalMs: progressMs,
            ...(restartMs !== undefined ? { hubRestartDownMs: restartMs } : {}),
            // On a terminal the progress line is redrawn in place; elsewhere each is its own line.
            say: (line) => process.stderr.write(tty && line.startsWith('fleet: joined') ? `\r\x1b[K${line}` : `${tty ? '\r\x1b[K' : ''}${line}\n`),
          },
          ac.signal,
        );
        if (tty) process.stderr.write('\n');
        process.stdout.write(flags.output === 'json' ? `${JSON.stringify(report)}\n` : formatReport(report));
      } finally {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        if (flags.workDir === undefined) await rm(workDir, { recursive: true, force: true });
      }
    });
}

/**
 * `ocm-ts fleet-worker` (hidden): one worker process of `ocm-ts fleet`, which forks it with an IPC
 * channel and tells it which agents to run. Ctrl-C reaches every process of the terminal's group:
 * a worker leaves the stop to its coordinator, which first collects the final figures. SIGTERM
 * stops it at once; so does the loss of its channel (the coordinator is gone).
 */
export function registerFleetWorkerCommand(program: Command): void {
  program
    .command('fleet-worker', { hidden: true })
    .description('one worker process of ocm-ts fleet (started by it, not by hand)')
    .action(async () => {
      const send = process.send?.bind(process);
      if (!send) throw new CliUsageError('fleet-worker runs only as a worker process of ocm-ts fleet');
      const { runFleetWorker } = await import('../fleet/worker.js');
      const ac = new AbortController();
      const ignore = (): void => {};
      const stop = (): void => ac.abort();
      process.on('SIGINT', ignore);
      process.once('SIGTERM', stop);
      try {
        await runFleetWorker(
          {
            send: (msg) => void send(msg),
            onMessage: (fn) => void process.on('message', fn),
            onDisconnect: (fn) => void process.once('disconnect', fn),
            connected: () => process.connected === true,
            disconnect: () => process.disconnect?.(),
          },
          ac.signal,
        );
      } finally {
        process.off('SIGINT', ignore);
        process.off('SIGTERM', stop);
        // The agents are stopped; a handle some library keeps open must not keep the process alive.
        setTimeout(() => process.exit(), 2000).unref();
      }
    });
}
