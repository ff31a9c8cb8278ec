// The controllers of the main phase besides RegisterController, in OCM's start order:
// ManagedClusterLeaseController (the heartbeat) and ManagedClusterStatusController (conditions,
// version, capacity, claims, managed namespaces); with AddonManagement, the add-on lease and
// AddOnRegistrationController; with MultipleHubs, HubAcceptController and HubTimeoutController,
// which restart the agent so that it selects another hub.

import type { InformerFactory } from '../../client/informer-factory.js';
import type { KubeClient } from '../../client/types.js';
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { createAddonLeaseController, createAddonRegistrationController, createAddonRegistrationStarter } from '../addon/index.js';
import { createHubAcceptController, createHubTimeoutController } from '../hubs/index.js';
import { createLeaseController } from '../lease/index.js';
import { createStatusController } from '../managedcluster/status-controller.js';
import { gateEnabled, type AgentTimings, type SpokeAgentOptions } from '../options/agent-options.js';
import type { Runnable } from './run-scope.js';

export interface MainControllersInput {
  options: Pick<
    SpokeAgentOptions,
    | 'featureGates'
    | 'maxCustomClusterClaims'
    | 'reservedClusterClaimSuffixes'
    | 'clusterHealthcheckPeriodMs'
    | 'addonKubeclientRegistrationAuth'
    | 'clientCertExpirationSeconds'
    | 'addonTokenExpirationSeconds'
    | 'hubConnectionTimeoutSeconds'
  > & { timings: Pick<AgentTimings, 'addonLeaseSyncMs' | 'registerResyncMs' | 'hubTimeoutResyncMs' | 'hubTimeoutStartupGraceMs'> };
  clusterName: string;
  /** Hub client built from the hub kubeconfig path (re-reads rotated certificate files). */
  hubClient: KubeClient;
  hubInformers: InformerFactory;
  spokeClient: KubeClient;
  spokeInformers: InformerFactory;
  managementClient: KubeClient;
  /** Path of the bootstrap kubeconfig in use and its server URL. */
  bootstrapKubeconfigFile: string;
  bootstrapServerUrl: string;
  log: Logger;
  clock: Clock;
  random: () => number;
  /** Cancels the run: the start sequence runs again (or the process exits with --exit-on-restart). */
  cancel(reason: string): void;
}

export function mainControllers(i: MainControllersInput): Runnable[] {
  const opts = i.options;
  // The first lease renewal makes the hub write the cluster's ClockSynced condition. Sent after the
  // agent's own first status write, it no longer races that write (whose conflict would cost the
  // join a retry before the hub sees Joined and Available).
  let statusSynced!: () => void;
  const firstStatusSync = new Promise<void>((resolve) => (statusSynced = resolve));
  const out: Runnable[] = [
    createLeaseController({ clusterName: i.clusterName, hubClient: i.hubClient, hubInformers: i.hubInformers, log: i.log, clock: i.clock, random: i.random, firstRenewalAfter: firstStatusSync }),
    createStatusController({
      onSynced: () => statusSynced(),
      clusterName: i.clusterName,
      hubClient: i.hubClient,
      hubInformers: i.hubInformers,
      spokeClient: i.spokeClient,
      spokeInformers: i.spokeInformers,
      bootstrapServerUrl: i.bootstrapServerUrl,
      features: opts.featureGates,
      maxCustomClusterClaims: opts.maxCustomClusterClaims,
      reservedClusterClaimSuffixes: opts.reservedClusterClaimSuffixes,
      resyncMs: opts.clusterHealthcheckPeriodMs,
      log: i.log,
      clock: i.clock,
    }),
  ];
  if (gateEnabled(opts, 'AddonManagement')) out.push(...addonControllers(i));
  if (gateEnabled(opts, 'MultipleHubs')) out.push(...hubSwitchControllers(i));
  return out;
}

function addonControllers(i: MainControllersInput): Runnable[] {
  const opts = i.options;
  const common = { hubClient: i.hubClient, hubInformers: i.hubInformers, spokeClient: i.spokeClient, managementClient: i.managementClient, log: i.log, clock: i.clock };
  return [
    createAddonLeaseController({ clusterName: i.clusterName, ...common, resyncMs: opts.timings.addonLeaseSyncMs }),
    createAddonRegistrationController({
      clusterName: i.clusterName,
      ...common,
      addonKubeClientRegistrationAuth: opts.addonKubeclientRegistrationAuth,
      startRegistration: createAddonRegistrationStarter({
        ...common,
        bootstrapKubeconfigPath: i.bootstrapKubeconfigFile,
        clientCertExpirationSeconds: opts.clientCertExpirationSeconds,
        addonTokenExpirationSeconds: opts.addonTokenExpirationSeconds,
        secretResyncMs: opts.timings.registerResyncMs,
        random: i.random,
      }),
    }),
  ];
}

function hubSwitchControllers(i: MainControllersInput): Runnable[] {
  const opts = i.options;
  // Both controllers log the reason themselves before calling the handler, so the handler only
  // cancels: logging it here as well printed every restart message twice.
  const onRestart = (reason: string): void => i.cancel(reason);
  return [
    createHubAcceptController({ clusterName: i.clusterName, hubInformers: i.hubInformers, onRestart, log: i.log, clock: i.clock }),
    createHubTimeoutController({
      clusterName: i.clusterName,
      hubClient: i.hubClient,
      hubConnectionTimeoutSeconds: opts.hubConnectionTimeoutSeconds,
      // OCM hardcodes these (1 min, 10 s); they are timings so that tests can shorten them.
      resyncMs: opts.timings.hubTimeoutResyncMs,
      startupGraceMs: opts.timings.hubTimeoutStartupGraceMs,
      onRestart,
      log: i.log,
      clock: i.clock,
    }),
  ];
}
