// `ocm-ts doctor CLUSTER`: checks each link of a cluster's registration in order and says what is
// wrong with the first broken one and how to fix it. Exit 0 when every link holds, 1 otherwise.
import type { Command } from 'commander';
import { existsSync } from 'node:fs';
import { resolveKubeconfigPath } from './kubeconfig-flag.js';
import { parseDurationFlag } from './duration-flag.js';
import { CliUsageError } from './usage-error.js';

interface DoctorFlags {
  kubeconfig?: string;
  spokeKubeconfig?: string;
  bootstrapKubeconfig?: string;
  agentUrl?: string;
  output?: string;
  timeout: string;
}

/** Set by the action: the exit code main() returns (commander actions return nothing). */
export class DoctorUnhealthy extends Error {
  constructor() {
    super('a link of the registration is broken');
    this.name = 'DoctorUnhealthy';
  }
}

export function registerDoctorCommand(program: Command): void {
  program
    .command('doctor')
    .description("check every link of a managed cluster's registration, in order, and say how to fix the first broken one")
    .argument('<cluster>', 'name of the managed cluster')
    .option('--kubeconfig <file>', 'hub admin kubeconfig (default: $KUBECONFIG, then ~/.kube/config)')
    .option('--spoke-kubeconfig <file>', "the managed cluster's kubeconfig: also checks the bootstrap and hub kubeconfig secrets there")
    .option('--bootstrap-kubeconfig <file>', "a bootstrap kubeconfig to check (default: the spoke's bootstrap-hub-kubeconfig secret)")
    .option('--agent-url <url>', "base URL of the agent's health server (e.g. https://127.0.0.1:8443): checks /healthz")
    .option('-o, --output <format>', 'json for scripts')
    .option('--timeout <duration>', 'timeout of each request', '10s')
    .addHelpText('after', '\nExit code: 0 when every link holds, 1 when one is broken, 2 for a usage mistake.')
    .action(async (cluster: string, flags: DoctorFlags) => {
      if (flags.output !== undefined && flags.output !== 'json') throw new CliUsageError(`unknown output format "${flags.output}": use json`);
      for (const [flag, path] of [['--spoke-kubeconfig', flags.spokeKubeconfig], ['--bootstrap-kubeconfig', flags.bootstrapKubeconfig]] as const) {
        if (path !== undefined && !existsSync(path)) throw new CliUsageError(`${flag} ${path}: no such file`);
      }
      if (flags.agentUrl !== undefined && !/^https?:\/\/[^/]+/.test(flags.agentUrl)) throw new CliUsageError(`--agent-url must be an http(s) URL, got "${flags.agentUrl}"`);
      const timeoutMs = parseDurationFlag('--timeout', flags.timeout);
      const hubKubeconfig = resolveKubeconfigPath(flags.kubeconfig);
      const [{ gatherFacts }, { runChecks }, { buildReport, renderReport }] = await Promise.all([import('../doctor/gather.js'), import('../doctor/checks.js'), import('../doctor/report.js')]);
      const facts = await gatherFacts({
        cluster,
        hubKubeconfig,
        ...(flags.spokeKubeconfig !== undefined ? { spokeKubeconfig: flags.spokeKubeconfig } : {}),
        ...(flags.bootstrapKubeconfig !== undefined ? { bootstrapKubeconfig: flags.bootstrapKubeconfig } : {}),
        ...(flags.agentUrl !== undefined ? { agentUrl: flags.agentUrl } : {}),
        timeoutMs,
        now: () => Date.now(),
      });
      const report = buildReport(cluster, facts.hub.server, runChecks(facts, { cluster, hubKubeconfig, ...(flags.spokeKubeconfig !== undefined ? { spokeKubeconfig: flags.spokeKubeconfig } : {}) }));
      process.stdout.write(flags.output === 'json' ? JSON.stringify(report, null, 2) + '\n' : renderReport(report));
      if (!report.healthy) throw new DoctorUnhealthy();
    });
}
