// The main phase, with the credentials the hub signed for this agent: the register secret controller
// RegisterController@cluster:<name> renews the client certificate before it expires (and records
// the rotation on the ManagedCluster), and the other main controllers keep the cluster's lease,
// status and add-ons up to date on the hub. Every informer of the phase is started here; the
// controllers wait for the caches they read.

import type { ManagedCluster } from '../../api/cluster.js';
import type { Secret } from '../../api/core.js';
import { createInformerFactory } from '../../client/informer-factory.js';
import { resourceTypes } from '../../client/resource-types.js';
import type { Informer, KubeClient, ResourceClient } from '../../client/types.js';
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import type { AgentClients } from '../agent-clients.js';
import type { AgentTimings, SpokeAgentOptions } from '../options/agent-options.js';
import { clusterStatusUpdater } from '../register/cluster-status-updater.js';
import { createRegisterSecretController } from '../register/secret-controller.js';
import type { BootstrapHub } from './bootstrap-hub.js';
import { clusterCsrInformer, watchClusterCsrs } from './cluster-csrs.js';
import { openHubClient, type HubClientInput } from './hub-client.js';
import { mainControllers, type MainControllersInput } from './main-controllers.js';
import type { AgentNames } from './prepare.js';
import { runWhenSynced, type RunScope } from './run-scope.js';

/** What the main phase's hub client is opened from: the hub kubeconfig (REST) or the gRPC transport. */
export interface HubConnectionInput extends Omit<HubClientInput, 'phase' | 'kubeconfigFile'> {
  hubKubeconfigFile: string;
}

/** The hub client of the main phase, closed when the scope ends. */
export function connectToHub(i: HubConnectionInput, scope: RunScope): KubeClient {
  // Built from the paths, so that a rotated certificate is read again.
  const hubClient = openHubClient({ phase: 'main', kubeconfigFile: i.hubKubeconfigFile, ...i });
  scope.onEnd(() => hubClient.close());
  i.log.info('Client config for hub is ready.', { reason: 'HubClientConfigReady' });
  return hubClient;
}

export interface MainPhaseInput {
  options: Pick<SpokeAgentOptions, 'namespace' | 'hubKubeconfigSecret'> &
    MainControllersInput['options'] & { timings: Pick<AgentTimings, 'informerResyncMs' | 'registerResyncMs' | 'cacheSyncTimeoutMs'> };
  names: AgentNames;
  hubClient: KubeClient;
  clients: Pick<AgentClients, 'spoke' | 'management'>;
  hub: BootstrapHub;
  /** Secrets of the agent's namespace on the management cluster, and their informer. */
  secrets: ResourceClient<Secret>;
  secretInformer: Informer<Secret>;
  log: Logger;
  clock: Clock;
  random: () => number;
  /** Cancels the run (a restart). */
  cancel(reason: string): void;
}

/** Starts the main phase's informers and controllers; returns the controllers' names. */
export function startMainPhase(i: MainPhaseInput, scope: RunScope, signal: AbortSignal): string[] {
  const { options: opts, names, hubClient, log, clock } = i;
  const clusterName = names.clusterName;
  const hubInformers = createInformerFactory(hubClient, { log, clock, resyncMs: opts.timings.informerResyncMs, dropManagedFields: true });
  const spokeInformers = createInformerFactory(i.clients.spoke, { log, clock, resyncMs: opts.timings.informerResyncMs, dropManagedFields: true });
  const csrInformer = clusterCsrInformer({ hubClient, clusterName, driver: i.hub.driver, resyncMs: opts.timings.informerResyncMs, log, clock });
  const clusterInformer = hubInformers.informerFor<ManagedCluster>(resourceTypes.managedClusters, { fieldSelector: `metadata.name=${clusterName}` });
  const registerController = createRegisterSecretController({
    name: `RegisterController@cluster:${clusterName}`,
    secretNamespace: opts.namespace,
    secretName: opts.hubKubeconfigSecret,
    additionalData: i.hub.additionalData,
    driver: i.hub.driver,
    statusUpdater: clusterStatusUpdater({ clusterName, clusters: hubClient.resource<ManagedCluster>(resourceTypes.managedClusters), lister: clusterInformer.lister, clock }),
    secrets: i.secrets,
    secretInformer: i.secretInformer,
    resyncMs: opts.timings.registerResyncMs,
    log,
    clock,
  });
  watchClusterCsrs(csrInformer, clusterName, () => registerController.enqueue());
  const others = mainControllers({
    options: opts,
    clusterName,
    hubClient,
    hubInformers,
    spokeClient: i.clients.spoke,
    spokeInformers,
    managementClient: i.clients.management,
    bootstrapKubeconfigFile: i.hub.kubeconfigFile,
    bootstrapServerUrl: i.hub.serverUrl,
    log,
    clock,
    random: i.random,
    cancel: i.cancel,
  });
  csrInformer.start(signal);
  hubInformers.start(signal);
  spokeInformers.start(signal);
  scope.track(
    runWhenSynced({
      controller: { name: registerController.controller.name, run: (s) => registerController.run(s) },
      caches: [csrInformer],
      what: 'hub CSR',
      gate: { signal, clock, timeoutMs: opts.timings.cacheSyncTimeoutMs },
      cancel: i.cancel,
      log,
    }),
  );
  scope.start(others, signal, log);
  return [registerController.controller.name, ...others.map((r) => r.name)];
}
