// The agent's watch on its own namespace of the management cluster, started before the bootstrap
// and kept for the whole run: OCM's HubKubeconfigSecretController copies the hub kubeconfig secret
// to files whenever it changes, and the bootstrap kubeconfig event handler restarts the agent when
// the bootstrap kubeconfig secret is updated or deleted. The informer's first list must load before
// the run goes on, since both register secret controllers read the same informer.

import type { Secret } from '../../api/core.js';
import { createInformerFactory } from '../../client/informer-factory.js';
import { resourceTypes } from '../../client/resource-types.js';
import type { Informer, KubeClient } from '../../client/types.js';
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { registerBootstrapKubeconfigHandler } from '../bootstrap-handler/bootstrap-kubeconfig-handler.js';
import type { AgentTimings, SpokeAgentOptions } from '../options/agent-options.js';
import { createHubKubeconfigSecretController } from '../secret-dump/dump-secret.js';
import { waitSynced, type RunScope } from './run-scope.js';
import { createWakeup, type Wakeup } from './wait-for-hub-kubeconfig.js';

export interface AgentSecretsInput {
  options: Pick<SpokeAgentOptions, 'namespace' | 'hubKubeconfigSecret' | 'hubKubeconfigDir' | 'bootstrapKubeconfigSecret'> & {
    timings: Pick<AgentTimings, 'informerResyncMs' | 'secretDumpResyncMs' | 'cacheSyncTimeoutMs'>;
  };
  managementClient: KubeClient;
  log: Logger;
  clock: Clock;
  /** Cancels the run (a restart). */
  cancel(reason: string): void;
}

export interface AgentSecrets {
  /** Secrets of the agent's namespace, for the register secret controllers. */
  secretInformer: Informer<Secret>;
  /** Wakes when new hub kubeconfig files were written. */
  filesChanged: Wakeup;
}

export async function watchAgentSecrets(i: AgentSecretsInput, scope: RunScope, signal: AbortSignal): Promise<AgentSecrets> {
  const { options: opts, log, clock } = i;
  const informers = createInformerFactory(i.managementClient, { log, clock, resyncMs: opts.timings.informerResyncMs, dropManagedFields: true });
  const secretInformer = informers.informerFor<Secret>(resourceTypes.secrets, { namespace: opts.namespace });
  registerBootstrapKubeconfigHandler({ secretInformer, secretName: opts.bootstrapKubeconfigSecret, log, cancel: i.cancel });
  const filesChanged = createWakeup();
  const dumper = createHubKubeconfigSecretController({
    onDumped: () => filesChanged.wake(),
    secretInformer,
    namespace: opts.namespace,
    name: opts.hubKubeconfigSecret,
    dir: opts.hubKubeconfigDir,
    resyncMs: opts.timings.secretDumpResyncMs,
    log,
    clock,
  });
  scope.start([{ name: 'HubKubeconfigSecretController', run: (s) => dumper.run(s) }], signal, log);
  informers.start(signal);
  await waitSynced([informers], 'management', { signal, clock, timeoutMs: opts.timings.cacheSyncTimeoutMs });
  return { secretInformer, filesChanged };
}
