// The bootstrap phase, run only when the hub kubeconfig holds no valid credentials: with the
// bootstrap kubeconfig's short-lived identity, OCM's ManagedClusterCreatingController makes sure the
// cluster's ManagedCluster exists on the hub, and the register secret controller
// BootstrapController@cluster:<name> creates a CSR, waits for its certificate and saves it in the
// hub kubeconfig secret. Both stop, and the bootstrap client is closed, once the wait for the hub
// kubeconfig has ended.

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
import { createRunScope, runWhenSynced } from './run-scope.js';

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
}

/** How long a ManagedCluster write in flight may outlive the phase: two webhook timeouts of kube-apiserver (10 s each) and some. */
const WRITE_GRACE_MS = 30_000;

export interface BootstrapControllers {
  /** Stops the controllers and waits for them; the driver is left without a hub. */
  stop(): Promise<void>;
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
  // A ManagedCluster create already sent outlives the phase (up to WRITE_GRACE_MS): with
  // auto-approval the hub may sign the CSR, which ends the phase, while the hub's admission webhooks
  // still hold the create; aborting it then would leave the cluster without a ManagedCluster, since
  // only this phase creates it.
  const writes = new AbortController();
  const abortWrites = (): void => writes.abort();
  signal.addEventListener('abort', abortWrites, { once: true });
  const scope = createRunScope();
  scope.onEnd(() => bootstrapClient.close());
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
    writeSignal: writes.signal,
    clusterAnnotations: opts.clusterAnnotations,
    spokeExternalServerUrls: opts.spokeExternalServerUrls,
    ...(i.spokeCaBundle ? { spokeCaBundle: i.spokeCaBundle } : {}),
    random: i.random,
    log,
    clock,
  });
  csrInformer.start(phase.signal);
  scope.start([creatingController], phase.signal, log);
  scope.track(
    runWhenSynced({
      controller: { name: bootstrapController.controller.name, run: (s) => bootstrapController.run(s) },
      caches: [csrInformer],
      what: 'bootstrap hub CSR',
      gate: { signal: phase.signal, clock, timeoutMs: opts.timings.cacheSyncTimeoutMs },
      cancel: i.cancel,
      log,
    }),
  );
  return {
    async stop() {
      const grace = setTimeout(abortWrites, WRITE_GRACE_MS);
      phase.abort();
      signal.removeEventListener('abort', stopPhase);
      await scope.end();
      clearTimeout(grace);
      signal.removeEventListener('abort', abortWrites);
    },
  };
}
