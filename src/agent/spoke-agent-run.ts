// One run of the agent's start sequence, in the phases of OCM's spoke agent: prepare (clients, names,
// credentials of an earlier join), choose the hub and watch the agent's secrets, bootstrap when
// there are no valid hub credentials (create the ManagedCluster, earn a client certificate through
// a CSR) and wait until the hub kubeconfig is valid, then run the main controllers until the run is
// cancelled. Returns normally when the signal aborts; throws when a step fails, AgentConfigError
// when the options are wrong.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { hubSecretKeys } from '../api/constants.js';
import type { Logger } from '../util/logger.js';
import type { Clock } from '../util/clock.js';
import type { HubKubeconfigHealthChecker } from './health/health-server.js';
import { gateEnabled, type SpokeAgentOptions } from './options/agent-options.js';
import { chooseBootstrapHub } from './phases/bootstrap-hub.js';
import { watchAgentSecrets } from './phases/agent-secrets.js';
import { startBootstrapControllers } from './phases/bootstrap-phase.js';
import { connectToHub, startMainPhase } from './phases/main-phase.js';
import { preconnectHub } from './phases/preconnect-hub.js';
import { prepare } from './phases/prepare.js';
import { createRunScope, untilAborted } from './phases/run-scope.js';
import { hubKubeconfigCheck, waitForHubKubeconfig } from './phases/wait-for-hub-kubeconfig.js';

export type AgentPhase = 'starting' | 'bootstrap' | 'main';

export interface RunOnceOptions {
  options: Readonly<SpokeAgentOptions>;
  log: Logger;
  clock: Clock;
  random: () => number;
  /** The `hub-kube-config` health check, switched on for the main phase. */
  checker: HubKubeconfigHealthChecker;
  /** Cancels this run (a restart). */
  cancel(reason: string): void;
  onPhase(phase: AgentPhase, names?: { clusterName: string; agentId: string }): void;
  userAgent: string;
}

export async function runSpokeAgentOnce(o: RunOnceOptions, signal: AbortSignal): Promise<void> {
  const { options: opts, clock, random, userAgent, cancel } = o;
  let releaseMainConnection = (): void => undefined;
  o.onPhase('starting');
  o.log.info('Cluster name and agent ID', { clusterName: opts.clusterName, agentID: opts.agentId });
  const scope = createRunScope();
  // A first join (no client certificate from an earlier one on disk) will bootstrap: its hub
  // connection is opened while the agent prepares.
  const releaseBootstrapConnection = firstJoinWithRest(opts) ? preconnectHub(opts.bootstrapKubeconfig, userAgent, o.log, { afterCurrentWork: true }) : () => undefined;
  try {
    // Prepare: management and spoke clients, the hub kubeconfig secret dumped to files, final names.
    const { clients, secrets, names, spokeCaBundle } = await prepare({ options: opts, log: o.log, userAgent, random }, scope, signal);
    const { clusterName, agentId } = names;
    const log = o.log.child({ clusterName });

    // The hub to join, and the watch on the agent's secrets that every later phase relies on.
    const hub = await chooseBootstrapHub({ options: opts, names, log, clock, random }, signal);
    const { secretInformer, filesChanged } = await watchAgentSecrets({ options: opts, managementClient: clients.management, log, clock, cancel }, scope, signal);
    const hubKubeconfigValid = hubKubeconfigCheck({ options: opts, names, bootstrapKubeconfigFile: hub.kubeconfigFile, transport: hub.transport, clock });

    // Bootstrap, only without valid hub credentials: the ManagedCluster and a CSR with the bootstrap
    // identity, until the signed certificate is saved and dumped as a valid hub kubeconfig.
    if (!hubKubeconfigValid() && !signal.aborted) {
      o.onPhase('bootstrap', { clusterName, agentId });
      const bootstrap = startBootstrapControllers({ options: opts, names, hub, spokeCaBundle, secrets, secretInformer, log, clock, random, userAgent, cancel, runScope: scope }, signal);
      let ready = false;
      try {
        ready = await waitForHubKubeconfig({ valid: hubKubeconfigValid, filesChanged, pollMs: opts.timings.bootstrapPollMs, clock, log }, signal);
        if (ready) log.info('hub client config is ready; stopping the bootstrap controllers');
        // The main phase's connection, with the new certificate, opens while the bootstrap controllers stop.
        if (ready && hub.transport.kind === 'rest') releaseMainConnection = preconnectHub(names.hubKubeconfigFile, userAgent, log);
      } finally {
        await bootstrap.stop(ready);
      }
    }
    releaseBootstrapConnection();
    if (signal.aborted) return;

    // Main: the hub credentials, the main controllers, and the health check, until the run ends.
    const hubClient = connectToHub(
      { hubKubeconfigFile: names.hubKubeconfigFile, transport: hub.transport, clusterName, log, clock, random, userAgent, rateLimit: { qps: opts.hubKubeApiQps, burst: opts.hubKubeApiBurst } },
      scope,
    );
    releaseMainConnection();
    o.onPhase('main', { clusterName, agentId });
    const controllers = startMainPhase({ options: opts, names, hubClient, clients, hub, secrets, secretInformer, log, clock, random, cancel }, scope, signal);
    o.checker.setCheck(hubKubeconfigValid);
    log.info('registration agent main phase started', { controllers });
    await untilAborted(signal);
  } finally {
    releaseBootstrapConnection();
    releaseMainConnection();
    o.checker.setCheck(undefined);
    await scope.end();
  }
}

/** The CSR driver with one bootstrap kubeconfig, and no hub credentials left by an earlier join. */
function firstJoinWithRest(opts: Readonly<SpokeAgentOptions>): boolean {
  return opts.registrationAuth !== 'grpc' && !gateEnabled(opts, 'MultipleHubs') && opts.bootstrapKubeconfig !== '' && !existsSync(join(opts.hubKubeconfigDir, hubSecretKeys.tlsCert));
}
