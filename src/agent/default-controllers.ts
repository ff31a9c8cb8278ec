// The controller set the agent runs by default (spoke-agent.md §0): C in the bootstrap phase; F, G,
// (H, I with AddonManagement), (K, L with MultipleHubs) in the main phase. The controllers
// themselves live in managedcluster/, lease/, addon/, hubs/.

import type { AgentControllerSet, Runnable } from './agent-controllers.js';
import { gateEnabled } from './options/agent-options.js';
import { createCreatingController } from './managedcluster/creating-controller.js';
import { createStatusController } from './managedcluster/status-controller.js';
import { createLeaseController } from './lease/index.js';
import { createAddonLeaseController, createAddonRegistrationController, createAddonRegistrationStarter, type KubeClientDriver } from './addon/index.js';
import { createHubAcceptController, createHubTimeoutController, selectBootstrapKubeconfigIndex } from './hubs/index.js';

export function defaultControllerSet(): AgentControllerSet {
  return {
    bootstrap(i) {
      const c = createCreatingController({
        clusterName: i.clusterName,
        bootstrapClient: i.bootstrapClient,
        clusterAnnotations: i.options.clusterAnnotations,
        spokeExternalServerUrls: i.options.spokeExternalServerUrls,
        ...(i.spokeCaBundle ? { spokeCaBundle: i.spokeCaBundle } : {}),
        random: i.random,
        log: i.log,
        clock: i.clock,
      });
      return [c];
    },
    main(i) {
      const out: Runnable[] = [];
      out.push(
        createLeaseController({ clusterName: i.clusterName, hubClient: i.hubClient, hubInformers: i.hubInformers, log: i.log, clock: i.clock, random: i.random }),
      );
      out.push(
        createStatusController({
          clusterName: i.clusterName,
          hubClient: i.hubClient,
          hubInformers: i.hubInformers,
          spokeClient: i.spokeClient,
          spokeInformers: i.spokeInformers,
          bootstrapServerUrl: i.bootstrapServerUrl,
          features: i.features,
          maxCustomClusterClaims: i.options.maxCustomClusterClaims,
          reservedClusterClaimSuffixes: i.options.reservedClusterClaimSuffixes,
          resyncMs: i.options.clusterHealthcheckPeriodMs,
          log: i.log,
          clock: i.clock,
        }),
      );
      if (gateEnabled(i.options, 'AddonManagement')) {
        const common = { hubClient: i.hubClient, hubInformers: i.hubInformers, spokeClient: i.spokeClient, managementClient: i.managementClient, log: i.log, clock: i.clock };
        out.push(createAddonLeaseController({ clusterName: i.clusterName, ...common, resyncMs: i.options.timings.addonLeaseSyncMs }));
        const auth = i.options.addonKubeclientRegistrationAuth as KubeClientDriver;
        out.push(
          createAddonRegistrationController({
            clusterName: i.clusterName,
            ...common,
            addonKubeClientRegistrationAuth: auth,
            startRegistration: createAddonRegistrationStarter({
              ...common,
              bootstrapKubeconfigPath: i.bootstrapKubeconfigFile,
              clientCertExpirationSeconds: i.options.clientCertExpirationSeconds,
              addonTokenExpirationSeconds: i.options.addonTokenExpirationSeconds,
              secretResyncMs: i.options.timings.registerResyncMs,
              random: i.random,
            }),
          }),
        );
      }
      if (gateEnabled(i.options, 'MultipleHubs')) {
        // K and L log the reason themselves before calling the handler (OCM's handler logs it once);
        // logging it here again printed every restart message twice.
        const onRestart = (reason: string): void => i.cancel(reason);
        out.push(createHubAcceptController({ clusterName: i.clusterName, hubInformers: i.hubInformers, onRestart, log: i.log, clock: i.clock }));
        out.push(
          createHubTimeoutController({
            clusterName: i.clusterName,
            hubClient: i.hubClient,
            hubConnectionTimeoutSeconds: i.options.hubConnectionTimeoutSeconds,
            // OCM hardcodes these (1 min, 10 s); they are timings so that tests can shorten them.
            resyncMs: i.options.timings.hubTimeoutResyncMs,
            startupGraceMs: i.options.timings.hubTimeoutStartupGraceMs,
            onRestart,
            log: i.log,
            clock: i.clock,
          }),
        );
      }
      return out;
    },
    selectBootstrapKubeconfig: (input) => selectBootstrapKubeconfigIndex(input),
  };
}
