import type { Command } from 'commander';
import { createKubeClient } from '../client/rest-client.js';
import { realClock } from '../util/clock.js';
import { acceptCluster, AcceptError } from './accept.js';
import { resolveKubeconfigPath } from './kubeconfig-flag.js';
import { parseDurationFlag } from './duration-flag.js';

export function registerAcceptCommand(program: Command): void {
  program
    .command('accept')
    .description('accept managed clusters on the hub: approve their pending CSRs and set spec.hubAcceptsClient')
    .argument('<cluster...>', 'names of the clusters to accept')
    .option('--kubeconfig <file>', 'hub admin kubeconfig (default: $KUBECONFIG, then ~/.kube/config)')
    .option('--wait', 'wait until each cluster has joined', false)
    .option('--timeout <duration>', 'how long --wait waits (e.g. 90s, 5m)', '5m')
    .action(async (clusters: string[], flags: { kubeconfig?: string; wait: boolean; timeout: string }) => {
      const timeoutMs = parseDurationFlag('--timeout', flags.timeout);
      const client = createKubeClient({ kubeconfigPath: resolveKubeconfigPath(flags.kubeconfig) });
      const ac = new AbortController();
      const onSignal = () => ac.abort(new Error('interrupted'));
      process.once('SIGINT', onSignal);
      try {
        for (const name of clusters) {
          await acceptCluster(
            { client, clock: realClock, signal: ac.signal, wait: flags.wait, timeoutMs, say: (l) => process.stdout.write(l + '\n') },
            name,
          );
        }
      } catch (err) {
        if (err instanceof AcceptError) throw new Error(err.message);
        throw err;
      } finally {
        process.off('SIGINT', onSignal);
        client.close();
      }
    });
}
