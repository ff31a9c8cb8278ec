// The bootstrap phase, run only when the hub kubeconfig holds no valid credentials: with the
// bootstrap kubeconfig's short-lived identity, OCM's ManagedClusterCreatingController makes sure the
// cluster's ManagedCluster exists on the hub, and the register secret controller
// BootstrapController@cluster:<name> creates a CSR, waits for its certificate and saves it in the
// hub kubeconfig secret. Both stop once the wait for the hub kubeconfig has ended, except a creating
// controller that has not seen the ManagedCluster exist yet: a hub that signs bootstrap CSRs without
// waiting for the cluster (auto-approval, as OCM's) may end the phase while the create is still
// failing against a hub starved by a join storm, and nothing else ever creates the cluster. That
// controller goes on in the run's scope until it succeeds; the bootstrap client closes after it.

import { setMaxListeners } from 'node:events';
import type { Secret } from '../../api/core.js';
import type { Informer, ResourceClient } from '../../client/types.js';
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { createCreatingController } from '../managedcluster/creating-controller.js';
import type { AgentTimings, SpokeAgentOptions } from '../options/agent-options.js';
import { noopStatusUpdater } from '../register/driver.js';
import { createRegisterSecretController } from '../register/secret-controller.js';
import type { BootstrapHub } from './bootstrap-hub.js';
import { clusterCsrInformer, watchClusterCsrs } from './cluster-csrs.js';
import { openHubClient } from './hub-client.js';
import type { AgentNames } from './prepare.js';
import { createRunScope, runWhenSynced, untilAborted, type RunScope } from './run-scope.js';

export interface BootstrapPhaseInput {
  options: Pick<SpokeAgentOptions, 'namespace' | 'hubKubeconfigSecret' | 'clusterAnnotations' | 'spokeExternalServerUrls' | 'hubKubeApiQps' | 'hubKubeApiBurst'> & {
    timings: Pick<AgentTimings, 'informerResyncMs' | 'registerResyncMs' | 'cacheSyncTimeoutMs'>;
  };
  names: AgentNames;
  hub: BootstrapHub;
  spokeCaBundle: Buffer | undefined;
  /** Secrets of the agent's namespace on the management cluster, and their informer. */
  secrets: ResourceClient<Secret>;
  secretInformer: Informer<Secret>;
  log: Logger;
  clock: Clock;
  random: () => number;
  userAgent: string;
  /** Cancels the run (a restart). */
  cancel(reason: string): void;
  /** The run's scope: keeps a creating controller that outlives the phase. */
  runScope: RunScope;
}

export interface BootstrapControllers {
  /**
   * Stops the controllers and waits for them; the driver is left without a hub. With `joined` (the
   * hub kubeconfig became valid), a creating controller that has not succeeded yet is left running
   * in the run's scope instead, until it succeeds or the run ends.
   */
  stop(joined: boolean): Promise<void>;
}

export function startBootstrapControllers(i: BootstrapPhaseInput, signal: AbortSignal): BootstrapControllers {
  const { options: opts, names, hub, log, clock } = i;
  const bootstrapClient = openHubClient({ phase: 'bootstrap', transport: hub.transport, kubeconfigFile: hub.kubeconfigFile, clusterName: names.clusterName,
    rateLimit: { qps: opts.hubKubeApiQps, burst: opts.hubKubeApiBurst }, log, clock, random: i.random, userAgent: i.userAgent });
  // The phase ends before the run does: its own signal, aborted by either.
  const phase = new AbortController();
  setMaxListeners(0, phase.signal);
  const stopPhase = (): void => phase.abort();
  signal.addEventListener('abort', stopPhase, { once: true });
  // The creating controller's own signal: the run's end, or its success once the phase is over.
  const creating = new AbortController();
  const stopCreating = (): void => creating.abort();
  signal.addEventListener('abort', stopCreating, { once: true });
  const scope = createRunScope();
  scope.onEnd(() => hub.driver.setHub(undefined));

  const csrInformer = clusterCsrInformer({ hubClient: bootstrapClient, clusterName: names.clusterName, driver: hub.driver, resyncMs: opts.timings.informerResyncMs, log, clock });
  const bootstrapController = createRegisterSecretController({
    name: `BootstrapController@cluster:${names.clusterName}`,
    secretNamespace: opts.namespace,
    secretName: opts.hubKubeconfigSecret,
    additionalData: hub.additionalData,
    driver: hub.driver,
    // Nothing to report yet: the ManagedCluster's status is written with the hub credentials.
    statusUpdater: noopStatusUpdater,
    secrets: i.secrets,
    secretInformer: i.secretInformer,
    resyncMs: opts.timings.registerResyncMs,
    log,
    clock,
  });
  watchClusterCsrs(csrInformer, names.clusterName, () => bootstrapController.enqueue());
  const creatingController = createCreatingController({
    clusterName: names.clusterName,
    bootstrapClient,
    clusterAnnotations: opts.clusterAnnotations,
    spokeExternalServerUrls: opts.spokeExternalServerUrls,
    ...(i.spokeCaBundle ? { spokeCaBundle: i.spokeCaBundle } : {}),
    random: i.random,
    log,
    clock,
  });
  csrInformer.start(phase.signal);
  const creatingRun = creatingController.run(creating.signal).catch((err: unknown) => {
    if (!creating.signal.aborted) log.error('controller stopped with an error', { controller: creatingController.name, err });
  });
  let created = false;
  void creatingController.done.then(() => (created = true));
  // The CSR goes after the cluster's first create attempt: a hub that has no ManagedCluster for a
  // CSR approves it at once (there is no acceptance to wait for), and in a join storm, where creates
  // wait behind the bootstrap identity's share of the hub, the agent then got its certificate before
  // its cluster was accepted and its main phase met a hub without its RBAC, and backed off.
  const afterFirstCreate = async (s: AbortSignal): Promise<void> => {
    await Promise.race([creatingController.firstAttempt, untilAborted(s)]);
    if (!s.aborted) await bootstrapController.run(s);
  };
  scope.track(
    runWhenSynced({
      controller: { name: bootstrapController.controller.name, run: afterFirstCreate },
      caches: [csrInformer],
      what: 'bootstrap hub CSR',
      gate: { signal: phase.signal, clock, timeoutMs: opts.timings.cacheSyncTimeoutMs },
      cancel: i.cancel,
      log,
    }),
  );
  return {
    async stop(joined) {
      phase.abort();
      signal.removeEventListener('abort', stopPhase);
      await scope.end();
      const finished = creatingRun.finally(() => {
        signal.removeEventListener('abort', stopCreating);
        bootstrapClient.close();
      });
      void creatingController.done.then(stopCreating);
      if (created || !joined || signal.aborted) {
        stopCreating();
        await finished;
        return;
      }
      log.info('the ManagedCluster is not on the hub yet; its creating controller goes on with the bootstrap credentials until it is');
      i.runScope.track(finished);
    },
  };
}
