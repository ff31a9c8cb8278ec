// `ocm-ts join`: joins the cluster of --kubeconfig to the hub of a bootstrap kubeconfig, like
// `clusteradm join`: prepares the spoke (CRDs, agent namespace, bootstrap secret) and runs the
// registration agent in the foreground with the flags `ocm-ts agent` takes; or, with
// --print-manifests, prints what to apply on a real cluster instead.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { KubeconfigError, loadKubeconfigFile } from '../client/kubeconfig.js';
import { createKubeClient } from '../client/rest-client.js';
import { realClock } from '../util/clock.js';
import { toYaml } from '../util/yaml.js';
import { buildAgentCommand } from './agent-command.js';
import { runAgentInForeground } from './agent-run.js';
import { joinManifests } from './join-manifests.js';
import { resolveKubeconfigPath } from './kubeconfig-flag.js';
import { CliUsageError } from './usage-error.js';

interface JoinFlags {
  hubKubeconfig: string;
  clusterName: string;
  kubeconfig?: string;
  hubKubeconfigDir?: string;
  listen: string;
  logLevel: string;
  printManifests: boolean;
  image: string;
}

/** The bootstrap kubeconfig's text, checked to be one (its server and credentials are the agent's concern). */
function readBootstrapKubeconfig(path: string): { text: string; server: string } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new CliUsageError(`--hub-kubeconfig ${path}: no such file`);
  }
  try {
    return { text, server: loadKubeconfigFile(path).config.server };
  } catch (err) {
    if (err instanceof KubeconfigError) throw new CliUsageError(`--hub-kubeconfig ${path}: ${err.message}`);
    throw err;
  }
}

/** The agent's arguments for this join; the user's own (after `--`) come last and win. */
function agentArgsForJoin(o: { spokeKubeconfig: string; clusterName: string; bootstrapKubeconfig: string; hubKubeconfigDir: string; listen: string; logLevel: string }, extra: readonly string[]): string[] {
  return [
    '--kubeconfig', o.spokeKubeconfig,
    '--spoke-cluster-name', o.clusterName,
    '--bootstrap-kubeconfig', o.bootstrapKubeconfig,
    '--hub-kubeconfig-dir', o.hubKubeconfigDir,
    // One agent in the foreground: no lock to wait for after an unclean stop.
    '--disable-leader-election',
    '--listen', o.listen,
    // The health endpoint is on loopback; delegated /metrics needs a TokenReview API the embedded server has not.
    '--metrics-auth', 'none',
    '--log-level', o.logLevel,
    ...extra,
  ];
}

async function runJoin(flags: JoinFlags, extra: string[]): Promise<void> {
  if (flags.clusterName === '') throw new CliUsageError('--cluster-name is required');
  const bootstrapPath = resolve(flags.hubKubeconfig);
  const bootstrap = readBootstrapKubeconfig(bootstrapPath);
  if (flags.printManifests) {
    const docs = joinManifests({ clusterName: flags.clusterName, image: flags.image, bootstrapKubeconfig: bootstrap.text });
    process.stdout.write(docs.map((d) => toYaml(d)).join('---\n'));
    return;
  }
  const spokeKubeconfig = resolve(resolveKubeconfigPath(flags.kubeconfig));
  const hubKubeconfigDir = resolve(flags.hubKubeconfigDir ?? join(dirname(spokeKubeconfig), `hub-kubeconfig-${flags.clusterName}`));
  const say = (line: string): void => void process.stdout.write(`${line}\n`);
  const client = createKubeClient({ kubeconfigPath: spokeKubeconfig });
  const ac = new AbortController();
  const onSignal = (): void => ac.abort(new Error('interrupted'));
  process.once('SIGINT', onSignal);
  try {
    const { prepareSpokeForJoin } = await import('./join.js');
    await prepareSpokeForJoin(client, { bootstrapKubeconfig: bootstrap.text, clock: realClock, signal: ac.signal, say });
  } catch (err) {
    if (ac.signal.aborted) return;
    throw err;
  } finally {
    process.off('SIGINT', onSignal);
    client.close();
  }
  const args = agentArgsForJoin({ spokeKubeconfig, clusterName: flags.clusterName, bootstrapKubeconfig: bootstrapPath, hubKubeconfigDir, listen: flags.listen, logLevel: flags.logLevel }, extra);
  const agent = buildAgentCommand((opts, level) =>
    runAgentInForeground(opts, level, (handle) => {
      say(`registration agent of cluster ${flags.clusterName} started: hub ${bootstrap.server}, hub credentials in ${hubKubeconfigDir}${handle.healthUrl ? `, health ${handle.healthUrl}/healthz` : ''} (Ctrl-C stops it)`);
      say(`accept the cluster on the hub: ocm-ts accept ${flags.clusterName} --kubeconfig HUB_ADMIN_KUBECONFIG`);
    }),
  );
  agent.exitOverride().configureOutput({ writeErr: (s) => process.stderr.write(s) });
  await agent.parseAsync(args, { from: 'user' });
}

export function registerJoinCommand(program: Command): void {
  program
    .command('join')
    .description('join this cluster to a hub (like clusteradm join): prepare the cluster and run the registration agent in the foreground')
    .requiredOption('--hub-kubeconfig <file>', 'bootstrap kubeconfig of the hub (from `ocm-ts hub token`)')
    .requiredOption('--cluster-name <name>', 'name of this managed cluster on the hub')
    .option('--kubeconfig <file>', 'admin kubeconfig of the cluster to join (default: $KUBECONFIG, then ~/.kube/config)')
    .option('--hub-kubeconfig-dir <dir>', 'where the agent keeps its hub credentials (default: hub-kubeconfig-NAME beside --kubeconfig)')
    .option('--listen <host:port>', "the agent's HTTPS /healthz and /metrics (port 0 picks a free port; empty = none)", '127.0.0.1:0')
    .option('--log-level <level>', "the agent's log level (JSON lines on stderr)", 'info')
    .option('--print-manifests', 'print the manifests to apply on a real cluster (namespace, bootstrap secret, RBAC, Deployment) instead', false)
    .option('--image <image>', 'with --print-manifests: the ocm-ts image of the Deployment', 'ocm-ts:latest')
    .argument('[agent-flags...]', 'after --: more `ocm-ts agent` flags, e.g. -- --cluster-healthcheck-period 10s')
    .addHelpText('after', '\nThen accept the cluster on the hub: ocm-ts accept NAME --kubeconfig HUB_ADMIN_KUBECONFIG')
    .action(async (extra: string[], flags: JoinFlags) => runJoin(flags, extra));
}
