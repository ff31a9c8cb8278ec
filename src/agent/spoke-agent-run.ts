// One run of the agent's start sequence (spoke-agent.md §5): dump the hub kubeconfig secret, validate
// and complete options, decide whether to bootstrap (§4.2), run the bootstrap phase (C + D) until the
// hub kubeconfig is valid, then the main phase (E, F, G, H, I, K, L) until the signal aborts. Returns
// normally when the signal aborts; throws when a start step fails.

import { createHash, randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { hubSecretKeys, labels } from '../api/constants.js';
import type { ManagedCluster } from '../api/cluster.js';
import type { CertificateSigningRequest, Namespace, Secret } from '../api/core.js';
import { isAlreadyExists, isNotFound } from '../client/errors.js';
import { createInformer } from '../client/informer.js';
import { createInformerFactory } from '../client/informer-factory.js';
import { createKubeClient } from '../client/rest-client.js';
import { resourceTypes } from '../client/resource-types.js';
import type { Informer, KubeClient, ResourceClient } from '../client/types.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import type { AgentControllerSet, Runnable } from './agent-controllers.js';
import { buildAgentClients, spokeClusterCaBundle } from './agent-clients.js';
import { registerBootstrapKubeconfigHandler } from './bootstrap-handler/bootstrap-kubeconfig-handler.js';
import type { AgentMetricsSink, HubKubeconfigHealthChecker } from './health/health-server.js';
import { gateEnabled, type SpokeAgentOptions } from './options/agent-options.js';
import { AGENT_ID_ALPHABET, completeOptions, validateClusterName, validateRegistrationOptions } from './options/validate-options.js';
import { clusterStatusUpdater } from './register/cluster-status-updater.js';
import { isClusterCsr } from './register/csr/cert-checks.js';
import { createCsrDriver, type CsrDriver } from './register/csr/csr-driver.js';
import { noopStatusUpdater } from './register/driver.js';
import { buildHubKubeconfig } from './register/hub-kubeconfig.js';
import { createHubKubeconfigValidity, type SecretOption } from './register/hub-kubeconfig-validity.js';
import { loadCurrentCluster } from './register/raw-kubeconfig.js';
import { createRegisterSecretController } from './register/secret-controller.js';
import { createHubKubeconfigSecretController, dumpSecret } from './secret-dump/dump-secret.js';

/** A start failure that re-running cannot fix (OCM: "Error during Validating", exit 1). */
export class AgentConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AgentConfigError';
  }
}

export type AgentPhase = 'starting' | 'bootstrap' | 'main';

export interface RunOnceOptions {
  options: Readonly<SpokeAgentOptions>;
  controllers: AgentControllerSet;
  log: Logger;
  clock: Clock;
  random: () => number;
  checker: HubKubeconfigHealthChecker;
  metrics: AgentMetricsSink;
  /** Cancels this run (restart). */
  cancel(reason: string): void;
  onPhase(phase: AgentPhase, names?: { clusterName: string; agentId: string }): void;
  userAgent: string;
}

function readOptional(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function randomAgentId(random: () => number): string {
  let s = '';
  for (let i = 0; i < 5; i++) s += AGENT_ID_ALPHABET[Math.floor(random() * AGENT_ID_ALPHABET.length)]!;
  return s;
}

async function waitSynced(informer: { waitForSync(signal?: AbortSignal): Promise<void> }, signal: AbortSignal, timeoutMs: number, what: string, clock: Clock): Promise<void> {
  const ctl = new AbortController();
  const onAbort = (): void => ctl.abort();
  signal.addEventListener('abort', onAbort, { once: true });
  const timer = clock.setTimeout(() => ctl.abort(new Error(`timed out waiting for ${what} caches to sync`)), timeoutMs);
  try {
    await informer.waitForSync(ctl.signal);
  } catch (err) {
    if (signal.aborted) return;
    throw new Error(`failed to wait for ${what} caches to sync: ${(err as Error).message}`, { cause: err });
  } finally {
    timer.cancel();
    signal.removeEventListener('abort', onAbort);
  }
}

function startAll(runnables: Runnable[], signal: AbortSignal, log: Logger): Promise<void>[] {
  return runnables.map((r) =>
    r.run(signal).catch((err: unknown) => {
      if (!signal.aborted) log.error('controller stopped with an error', { controller: r.name, err });
    }),
  );
}

function csrInformerFor(client: KubeClient, clusterName: string, o: RunOnceOptions, log: Logger): Informer<CertificateSigningRequest> {
  return createInformer<CertificateSigningRequest>(client.resource<CertificateSigningRequest>(resourceTypes.certificateSigningRequests), {
    labelSelector: `${labels.clusterName}=${clusterName}`,
    resyncMs: o.options.timings.informerResyncMs,
    log,
    clock: o.clock,
  });
}

/**
 * The klusterlet operator creates the agent namespace before the agent runs; without an operator
 * (a cluster joined by hand) the agent creates it, so the hub kubeconfig secret has a home.
 * Lacking permission to do so is not fatal: saving the secret then reports the real problem.
 */
async function ensureComponentNamespace(client: KubeClient, namespace: string, log: Logger, signal: AbortSignal): Promise<void> {
  const namespaces = client.resource<Namespace>(resourceTypes.namespaces);
  try {
    await namespaces.get(namespace, { signal });
    return;
  } catch (err) {
    if (!isNotFound(err)) {
      log.warn('unable to check the agent namespace', { namespace, err });
      return;
    }
  }
  try {
    await namespaces.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }, { signal });
    log.info('created the agent namespace', { namespace });
  } catch (err) {
    if (!isAlreadyExists(err)) log.warn('unable to create the agent namespace', { namespace, err });
  }
}

export async function runSpokeAgentOnce(o: RunOnceOptions, signal: AbortSignal): Promise<void> {
  const opts = o.options;
  const log = o.log;
  o.onPhase('starting');
  log.info('Cluster name and agent ID', { clusterName: opts.clusterName, agentID: opts.agentId });

  const clients = buildAgentClients({ kubeconfig: opts.kubeconfig, spokeKubeconfig: opts.spokeKubeconfig, log, userAgent: o.userAgent });
  const closers: Array<() => void> = [() => clients.management.close(), () => clients.spoke !== clients.management && clients.spoke.close()];
  const tasks: Promise<void>[] = [];
  try {
    const secrets = clients.management.resource<Secret>(resourceTypes.secrets, opts.namespace);
    await ensureComponentNamespace(clients.management, opts.namespace, log, signal);
    await dumpSecret({ secrets, namespace: opts.namespace, name: opts.hubKubeconfigSecret, dir: opts.hubKubeconfigDir, signal });

    // §3: validate, complete, validate.
    const regErr = validateRegistrationOptions(opts as SpokeAgentOptions);
    if (regErr !== undefined) throw new AgentConfigError(regErr);
    const completed = completeOptions(opts, {
      clusterNameFile: readOptional(join(opts.hubKubeconfigDir, hubSecretKeys.clusterName)),
      agentNameFile: readOptional(join(opts.hubKubeconfigDir, hubSecretKeys.agentName)),
      newUuid: randomUUID,
      newAgentId: () => randomAgentId(o.random),
    });
    const nameErr = validateClusterName(completed.clusterName);
    if (nameErr !== undefined) throw new AgentConfigError(nameErr);
    const { clusterName, agentId } = completed;
    const clog = log.child({ clusterName });
    const spokeCaBundle = spokeClusterCaBundle(opts.spokeExternalServerUrls, clients.spokeCaPem);

    // Management informers restricted to the component namespace.
    const managementInformers = createInformerFactory(clients.management, { log: clog, clock: o.clock, resyncMs: opts.timings.informerResyncMs });
    const secretInformer = managementInformers.informerFor<Secret>(resourceTypes.secrets, { namespace: opts.namespace });

    // Current bootstrap kubeconfig.
    let bootstrapFile = opts.bootstrapKubeconfig;
    if (gateEnabled(opts, 'MultipleHubs')) {
      if (!o.controllers.selectBootstrapKubeconfig) throw new AgentConfigError('failed to select a bootstrap kubeconfig: MultipleHubs selection is not available in this build');
      let index: number;
      try {
        index = await o.controllers.selectBootstrapKubeconfig({ clusterName, hubKubeconfigFile: completed.hubKubeconfig, candidates: opts.bootstrapKubeconfigs, log: clog, signal });
      } catch (err) {
        throw new Error(`failed to select a bootstrap kubeconfig: ${(err as Error).message}`, { cause: err });
      }
      bootstrapFile = opts.bootstrapKubeconfigs[index]!;
      clog.info(`Select bootstrap kubeconfig with index ${index} and file ${bootstrapFile}`, { reason: 'BootstrapSelected' });
    }

    const secretOption: SecretOption = {
      secretNamespace: opts.namespace,
      secretName: opts.hubKubeconfigSecret,
      clusterName,
      agentName: agentId,
      hubKubeconfigFile: completed.hubKubeconfig,
      hubKubeconfigDir: opts.hubKubeconfigDir,
      bootstrapKubeconfigFile: bootstrapFile,
    };
    if (opts.registrationAuth === 'awsirsa' || opts.registrationAuth === 'grpc') {
      throw new AgentConfigError(`registration auth ${JSON.stringify(opts.registrationAuth)} is not supported by ocm-ts`);
    }
    if (bootstrapFile === '') throw new AgentConfigError('bootstrap-kubeconfig is required');
    const driver: CsrDriver = createCsrDriver({ clusterName, agentName: agentId, expirationSeconds: opts.clientCertExpirationSeconds, log: clog, clock: o.clock, random: o.random });
    const bootstrapCluster = loadCurrentCluster(bootstrapFile);
    const additionalData: Record<string, Buffer> = {
      [hubSecretKeys.kubeconfig]: buildHubKubeconfig(bootstrapCluster),
      [hubSecretKeys.clusterName]: Buffer.from(clusterName),
      [hubSecretKeys.agentName]: Buffer.from(agentId),
    };

    registerBootstrapKubeconfigHandler({ secretInformer, secretName: opts.bootstrapKubeconfigSecret, log: clog, cancel: o.cancel });
    const filesChanged = createWakeup();
    const controllerA = createHubKubeconfigSecretController({
      onDumped: () => filesChanged.wake(),
      secrets,
      secretInformer,
      namespace: opts.namespace,
      name: opts.hubKubeconfigSecret,
      dir: opts.hubKubeconfigDir,
      resyncMs: opts.timings.secretDumpResyncMs,
      log: clog,
      clock: o.clock,
    });
    tasks.push(controllerA.run(signal).catch((err: unknown) => clog.error('HubKubeconfigSecretController stopped', { err })));
    managementInformers.start(signal);
    await waitSynced(managementInformers, signal, opts.timings.cacheSyncTimeoutMs, 'management', o.clock);

    // Re-reads the hub kubeconfig files only when they changed (the liveness check runs every 10 s).
    const validAt = createHubKubeconfigValidity(secretOption);
    const valid = (): boolean => validAt(new Date(o.clock.now()));
    if (!valid() && !signal.aborted) {
      await runBootstrapPhase({ o, clusterName, agentId, bootstrapFile, spokeCaBundle, driver, additionalData, secrets, secretInformer, valid, filesChanged, log: clog }, signal);
    }
    if (signal.aborted) return;

    // Main phase.
    let hubClient: KubeClient;
    try {
      hubClient = createKubeClient({ kubeconfigPath: completed.hubKubeconfig }, { log: clog, userAgent: o.userAgent });
    } catch (err) {
      throw new Error(`unable to load hub kubeconfig from file ${JSON.stringify(completed.hubKubeconfig)}: ${(err as Error).message}`, { cause: err });
    }
    closers.push(() => hubClient.close());
    clog.info('Client config for hub is ready.', { reason: 'HubClientConfigReady' });
    o.onPhase('main', { clusterName, agentId });

    const hubInformers = createInformerFactory(hubClient, { log: clog, clock: o.clock, resyncMs: opts.timings.informerResyncMs });
    const spokeInformers = createInformerFactory(clients.spoke, { log: clog, clock: o.clock, resyncMs: opts.timings.informerResyncMs });
    const csrInformer = csrInformerFor(hubClient, clusterName, o, clog);
    driver.setHub({ csrs: hubClient.resource<CertificateSigningRequest>(resourceTypes.certificateSigningRequests), lister: csrInformer.lister });
    const clusterInformer = hubInformers.informerFor<ManagedCluster>(resourceTypes.managedClusters, { fieldSelector: `metadata.name=${clusterName}` });
    const controllerE = createRegisterSecretController({
      name: `RegisterController@cluster:${clusterName}`,
      secretNamespace: opts.namespace,
      secretName: opts.hubKubeconfigSecret,
      additionalData,
      driver,
      statusUpdater: clusterStatusUpdater({
        clusterName,
        clusters: hubClient.resource<ManagedCluster>(resourceTypes.managedClusters),
        lister: clusterInformer.lister,
        clock: o.clock,
      }),
      secrets,
      secretInformer,
      resyncMs: opts.timings.registerResyncMs,
      log: clog,
      clock: o.clock,
    });
    csrInformer.addHandlers(csrEventHandlers(clusterName, () => controllerE.enqueue()));
    const main = o.controllers.main({
      clusterName,
      agentId,
      options: opts,
      features: opts.featureGates,
      log: clog,
      clock: o.clock,
      random: o.random,
      hubClient,
      hubInformers,
      spokeClient: clients.spoke,
      spokeInformers,
      managementClient: clients.management,
      managementInformers,
      bootstrapKubeconfigFile: bootstrapFile,
      bootstrapServerUrl: bootstrapCluster.server,
      cancel: o.cancel,
    });
    csrInformer.start(signal);
    hubInformers.start(signal);
    spokeInformers.start(signal);
    tasks.push(
      waitSynced(csrInformer, signal, opts.timings.cacheSyncTimeoutMs, 'hub CSR', o.clock).then(
        () => (signal.aborted ? undefined : controllerE.run(signal)),
        (err: unknown) => o.cancel(`RegisterController: ${(err as Error).message}`),
      ),
    );
    tasks.push(...startAll(main, signal, clog));
    o.checker.setCheck(valid);
    clog.info('registration agent main phase started', { controllers: ['RegisterController', ...main.map((r) => r.name)] });
    await abortPromise(signal);
  } finally {
    o.checker.setCheck(undefined);
    await Promise.allSettled(tasks);
    for (const c of closers) c();
  }
}

interface BootstrapPhaseInput {
  o: RunOnceOptions;
  clusterName: string;
  agentId: string;
  bootstrapFile: string;
  spokeCaBundle: Buffer | undefined;
  driver: CsrDriver;
  additionalData: Record<string, Buffer>;
  secrets: ResourceClient<Secret>;
  secretInformer: Informer<Secret>;
  valid(): boolean;
  /** Fires when controller A has written new hub kubeconfig files. */
  filesChanged: Wakeup;
  log: Logger;
}

/** A one-shot-per-wait notification: `next()` resolves on the following `wake()`. */
interface Wakeup {
  wake(): void;
  next(): Promise<void>;
}

function createWakeup(): Wakeup {
  // One shared promise per generation, so waiting in a loop does not pile up listeners.
  let pending: { promise: Promise<void>; resolve: () => void } | undefined;
  return {
    wake() {
      pending?.resolve();
      pending = undefined;
    },
    next() {
      if (!pending) {
        let resolve!: () => void;
        const promise = new Promise<void>((r) => (resolve = r));
        pending = { promise, resolve };
      }
      return pending.promise;
    },
  };
}

/** §5 step 12: C + D with the bootstrap credentials until the hub kubeconfig is valid. */
async function runBootstrapPhase(b: BootstrapPhaseInput, signal: AbortSignal): Promise<void> {
  const { o, log } = b;
  const opts = o.options;
  o.onPhase('bootstrap', { clusterName: b.clusterName, agentId: b.agentId });
  const ctl = new AbortController();
  setMaxListeners(0, ctl.signal);
  const stop = (): void => ctl.abort();
  signal.addEventListener('abort', stop, { once: true });
  let bootstrapClient: KubeClient;
  try {
    bootstrapClient = createKubeClient({ kubeconfigPath: b.bootstrapFile }, { log, userAgent: o.userAgent });
  } catch (err) {
    signal.removeEventListener('abort', stop);
    throw new Error(`unable to load bootstrap kubeconfig from file ${JSON.stringify(b.bootstrapFile)}: ${(err as Error).message}`, { cause: err });
  }
  const tasks: Promise<void>[] = [];
  try {
    const bootstrapInformers = createInformerFactory(bootstrapClient, { log, clock: o.clock, resyncMs: opts.timings.informerResyncMs });
    const csrInformer = csrInformerFor(bootstrapClient, b.clusterName, o, log);
    b.driver.setHub({ csrs: bootstrapClient.resource<CertificateSigningRequest>(resourceTypes.certificateSigningRequests), lister: csrInformer.lister });
    const controllerD = createRegisterSecretController({
      name: `BootstrapController@cluster:${b.clusterName}`,
      secretNamespace: opts.namespace,
      secretName: opts.hubKubeconfigSecret,
      additionalData: b.additionalData,
      driver: b.driver,
      statusUpdater: noopStatusUpdater,
      secrets: b.secrets,
      secretInformer: b.secretInformer,
      resyncMs: opts.timings.registerResyncMs,
      log,
      clock: o.clock,
    });
    csrInformer.addHandlers(csrEventHandlers(b.clusterName, () => controllerD.enqueue()));
    const creating = o.controllers.bootstrap({
      clusterName: b.clusterName,
      agentId: b.agentId,
      options: opts,
      features: opts.featureGates,
      log,
      clock: o.clock,
      random: o.random,
      bootstrapClient,
      bootstrapInformers,
      spokeCaBundle: b.spokeCaBundle,
    });
    csrInformer.start(ctl.signal);
    bootstrapInformers.start(ctl.signal);
    tasks.push(...startAll(creating, ctl.signal, log));
    tasks.push(
      waitSynced(csrInformer, ctl.signal, opts.timings.cacheSyncTimeoutMs, 'bootstrap hub CSR', o.clock).then(
        () => (ctl.signal.aborted ? undefined : controllerD.run(ctl.signal)),
        (err: unknown) => o.cancel(`BootstrapController: ${(err as Error).message}`),
      ),
    );
    log.info('Waiting for hub client config and managed cluster to be ready');
    for (;;) {
      if (signal.aborted) return;
      let ok: boolean;
      try {
        ok = b.valid();
      } catch (err) {
        throw new Error(`failed to wait for hub client config for managed cluster to be ready: ${(err as Error).message}`, { cause: err });
      }
      if (ok) break;
      // OCM polls every second; re-checking as soon as controller A has dumped new files makes the
      // switch to the main phase immediate, and the poll remains the fallback.
      const poll = new AbortController();
      const onAbort = (): void => poll.abort();
      signal.addEventListener('abort', onAbort, { once: true });
      try {
        // The sleep rejects when aborted (by us or the caller): swallowed, the loop re-checks the signal.
        await Promise.race([o.clock.sleep(opts.timings.bootstrapPollMs, poll.signal).catch(() => undefined), b.filesChanged.next()]);
      } finally {
        poll.abort();
        signal.removeEventListener('abort', onAbort);
      }
    }
    log.info('hub client config is ready; stopping the bootstrap controllers');
  } finally {
    ctl.abort();
    signal.removeEventListener('abort', stop);
    await Promise.allSettled(tasks);
    bootstrapClient.close();
    b.driver.setHub(undefined);
  }
}

function csrEventHandlers(clusterName: string, enqueue: () => void) {
  const maybe = (csr: CertificateSigningRequest): void => {
    if (isClusterCsr(csr, clusterName)) enqueue();
  };
  return { onAdd: maybe, onUpdate: (_p: CertificateSigningRequest, n: CertificateSigningRequest) => maybe(n), onDelete: maybe };
}

function abortPromise(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

/** Hub hash of §14.6 (lowercase hex SHA-256 of the bootstrap server URL). */
export function hubHashOf(serverUrl: string): string {
  return createHash('sha256').update(serverUrl).digest('hex');
}
