import type { Command } from 'commander';
import { createKubeClient } from '../client/rest-client.js';
import { realClock } from '../util/clock.js';
import { acceptCluster, AcceptError } from './accept.js';
import { resolveKubeconfigPath } from './kubeconfig-flag.js';
import { parseDurationFlag } from './duration-flag.js';

/** Comma-separated and repeatable: `--x a,b --x c` → [a, b, c]; empty entries dropped. */
const collectList = (v: string, prev: string[] = []): string[] => [...prev, ...v.split(',').map((s) => s.trim()).filter((s) => s !== '')];

export function registerAcceptCommand(program: Command): void {
  program
    .command('accept')
    .description('accept managed clusters on the hub: approve their pending CSRs and set spec.hubAcceptsClient')
    .argument('<cluster...>', 'names of the clusters to accept')
    .option('--kubeconfig <file>', 'hub admin kubeconfig (default: $KUBECONFIG, then ~/.kube/config)')
    .option('--wait', 'wait until each cluster has joined', false)
    .option('--timeout <duration>', 'how long --wait waits (e.g. 90s, 5m)', '5m')
    .option(
      '--bootstrap-users <users>',
      'requesters trusted like bootstrap tokens, e.g. the service account of a bootstrap kubeconfig ' +
        '(CSRs are approved only from bootstrap tokens, these users, or the cluster\'s own agent); comma-separated, repeatable',
      collectList,
    )
    .addHelpText(
      'after',
      '\nOnly CSRs whose subject is exactly the cluster\'s agent identity (CN system:open-cluster-management:<cluster>:<agent>,\n' +
        'O system:open-cluster-management:<cluster> [+ system:open-cluster-management:managed-clusters]), for the\n' +
        'kubernetes.io/kube-apiserver-client signer with client-auth usages, are approved. Any other CSR labelled with the\n' +
        'cluster is reported with the reason and left pending.',
    )
    .action(async (clusters: string[], flags: { kubeconfig?: string; wait: boolean; timeout: string; bootstrapUsers?: string[] }) => {
      const timeoutMs = parseDurationFlag('--timeout', flags.timeout);
      const bootstrapUsers = flags.bootstrapUsers ?? [];
      const client = createKubeClient({ kubeconfigPath: resolveKubeconfigPath(flags.kubeconfig) });
      const ac = new AbortController();
      const onSignal = () => ac.abort(new Error('interrupted'));
      process.once('SIGINT', onSignal);
      try {
        for (const name of clusters) {
          await acceptCluster(
            { client, clock: realClock, signal: ac.signal, wait: flags.wait, timeoutMs, bootstrapUsers, say: (l) => process.stdout.write(l + '\n') },
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
