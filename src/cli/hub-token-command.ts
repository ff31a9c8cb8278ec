// `ocm-ts hub token`: prints a bootstrap kubeconfig for joining clusters (stdout), with the token's
// expiry and the join command on stderr, so that `ocm-ts hub token ... > bootstrap.kubeconfig` works.
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { loadKubeconfigFile } from '../client/kubeconfig.js';
import { createKubeClient } from '../client/rest-client.js';
import { parseDurationFlag } from './duration-flag.js';
import { findOrCreateBootstrapToken, hubCaPem, renderBootstrapKubeconfig } from './hub-token.js';
import { resolveKubeconfigPath } from './kubeconfig-flag.js';
import { CliUsageError } from './usage-error.js';

interface HubTokenFlags {
  kubeconfig?: string;
  dataDir?: string;
  ttl: string;
  create: boolean;
}

const JOIN_HINT = 'join a cluster with: ocm-ts join --hub-kubeconfig BOOTSTRAP_KUBECONFIG --cluster-name NAME --kubeconfig SPOKE_KUBECONFIG';

async function runHubToken(flags: HubTokenFlags): Promise<void> {
  const ttlMs = parseDurationFlag('--ttl', flags.ttl);
  if (ttlMs < 60_000) throw new CliUsageError(`--ttl must be at least 1m, got "${flags.ttl}"`);
  if (flags.dataDir !== undefined && flags.kubeconfig === undefined && !flags.create) {
    // The embedded hub keeps a valid bootstrap kubeconfig in its data directory.
    const path = join(flags.dataDir, 'bootstrap.kubeconfig');
    if (!existsSync(path)) throw new CliUsageError(`${path} does not exist: is ${flags.dataDir} the --data-dir of \`ocm-ts hub\`?`);
    process.stdout.write(await readFile(path, 'utf8'));
    process.stderr.write(`${JOIN_HINT}\n`);
    return;
  }
  const kubeconfigPath = flags.kubeconfig ?? (flags.dataDir !== undefined ? join(flags.dataDir, 'admin.kubeconfig') : resolveKubeconfigPath(undefined));
  if (!existsSync(kubeconfigPath)) throw new CliUsageError(`kubeconfig ${kubeconfigPath} does not exist`);
  const { config } = loadKubeconfigFile(kubeconfigPath);
  const client = createKubeClient(config);
  try {
    const tok = await findOrCreateBootstrapToken(client, { ttlMs, create: flags.create, nowMs: Date.now() });
    if (!tok) throw new Error(`the hub at ${config.server} has no bootstrap token for system:bootstrappers:managedcluster with time left; pass --create to make one (valid for --ttl)`);
    const caPem = await hubCaPem(client, config.caPem);
    process.stdout.write(renderBootstrapKubeconfig({ server: config.server, caPem, token: tok.token }));
    const id = tok.token.split('.')[0];
    process.stderr.write(`${tok.created ? 'created' : 'using'} bootstrap token ${id}, expires at ${new Date(tok.expiresAtMs).toISOString()}\n${JOIN_HINT}\n`);
  } finally {
    client.close();
  }
}

/** Adds `token` under the `hub` command. */
export function registerHubTokenCommand(hub: Command): void {
  // `hub` has --kubeconfig and --data-dir too: without this it would take them from `hub token ...`
  // (the program enables positional options as well, which this needs).
  hub.enablePositionalOptions();
  hub
    .command('token')
    .description('print a bootstrap kubeconfig for joining managed clusters (like clusteradm get token); --create makes a token when none is valid')
    .option('--kubeconfig <file>', 'hub admin kubeconfig (default: DIR/admin.kubeconfig with --data-dir, else $KUBECONFIG, then ~/.kube/config)')
    .option('--data-dir <dir>', 'the embedded hub\'s data directory: prints DIR/bootstrap.kubeconfig')
    .option('--ttl <duration>', 'lifetime of a token made by --create (a token with less than a tenth of it left is not handed out)', '24h')
    .option('--create', 'create a bootstrap token when the hub has none with time left', false)
    .action(async (flags: HubTokenFlags) => runHubToken(flags));
}
