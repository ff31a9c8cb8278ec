import type { Command } from 'commander';
import type { ManagedCluster } from '../api/cluster.js';
import { createKubeClient } from '../client/rest-client.js';
import { resourceTypes } from '../client/resource-types.js';
import { toYaml } from '../util/yaml.js';
import { renderClusters } from './cluster-table.js';
import { resolveKubeconfigPath } from './kubeconfig-flag.js';
import { CliUsageError } from './usage-error.js';

const OUTPUTS = ['wide', 'json', 'yaml'] as const;
type Output = (typeof OUTPUTS)[number] | undefined;

export function registerGetCommand(program: Command): void {
  program
    .command('get')
    .description('list objects on the hub; supported: clusters (managedclusters)')
    .argument('<resource>', 'clusters | managedclusters | mcl')
    .argument('[name]', 'only this cluster')
    .option('--kubeconfig <file>', 'hub kubeconfig (default: $KUBECONFIG, then ~/.kube/config)')
    .option('-o, --output <format>', `output format: ${OUTPUTS.join('|')}`)
    .action(async (resource: string, name: string | undefined, flags: { kubeconfig?: string; output?: string }) => {
      if (!['clusters', 'cluster', 'managedclusters', 'managedcluster', 'mcl', 'mcls'].includes(resource)) {
        throw new CliUsageError(`unknown resource "${resource}": ocm-ts get supports "clusters"`);
      }
      const output = flags.output as Output;
      if (output !== undefined && !OUTPUTS.includes(output)) {
        throw new CliUsageError(`unknown output format "${flags.output}": use one of ${OUTPUTS.join(', ')}`);
      }
      const client = createKubeClient({ kubeconfigPath: resolveKubeconfigPath(flags.kubeconfig) });
      try {
        const mc = client.resource<ManagedCluster>(resourceTypes.managedClusters);
        const items = name ? [await mc.get(name)] : (await mc.list()).items;
        if (output === 'json' || output === 'yaml') {
          const doc = name
            ? { apiVersion: 'cluster.open-cluster-management.io/v1', kind: 'ManagedCluster', ...items[0] }
            : { apiVersion: 'v1', kind: 'List', metadata: {}, items: items.map((i) => ({ apiVersion: 'cluster.open-cluster-management.io/v1', kind: 'ManagedCluster', ...i })) };
          process.stdout.write(output === 'json' ? JSON.stringify(doc, null, 4) + '\n' : toYaml(doc));
          return;
        }
        process.stdout.write(renderClusters(items, Date.now(), output === 'wide' ? 'wide' : 'table'));
      } finally {
        client.close();
      }
    });
}
