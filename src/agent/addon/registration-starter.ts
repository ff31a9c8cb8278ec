// The per-registration credential controller
// `ClientCertController@addon:<addon>:type:<type>` — agent-core's register secret controller
// driven by the addon CSR driver (ClusterCertificateRotated) or, for `kubeClient` registrations
// whose driver is `token`, the addon token driver (TokenRefreshed; kubeconfig user `tokenFile:
// token`), writing `<secret>` in the install namespace (spoke, or the management cluster for
// Hosted addons) and the condition on the addon.
// createAddonRegistrationStarter() returns the `startRegistration` callback of
// AddOnRegistrationController.

import type { ManagedClusterAddOn } from '../../api/addon.js';
import { setCondition } from '../../api/conditions.js';
import { hubSecretKeys } from '../../api/constants.js';
import type { CertificateSigningRequest, Secret } from '../../api/core.js';
import { createInformer } from '../../client/informer.js';
import type { InformerFactory } from '../../client/informer-factory.js';
import { resourceTypes } from '../../client/resource-types.js';
import type { Informer, KubeClient } from '../../client/types.js';
import type { Syncable } from '../../client/wait-synced.js';
import { realClock, type Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { patchStatus } from '../../client/patch-writer.js';
import type { RegisterDriver, StatusUpdater } from '../register/driver.js';
import { buildHubKubeconfig } from '../register/hub-kubeconfig.js';
import { loadCurrentCluster } from '../register/raw-kubeconfig.js';
import { createRegisterSecretController, type RegisterSecretController } from '../register/secret-controller.js';
import { createAddonCsrDriver, isAddonCsr } from './addon-csr-driver.js';
import { createAddonTokenDriver } from './addon-token-driver.js';
import type { StartRegistration, StartRegistrationInput } from './registration-sync.js';
import { errorMessage } from '../../util/errors.js';
import { onEveryChange } from '../../client/event-handlers.js';

const DEFAULT_ADDON_SECRET_RESYNC_MS = 5 * 60_000;
/** Default of `--addon-token-expiration-seconds`: one year, as OCM's. */
const DEFAULT_ADDON_TOKEN_EXPIRATION_SECONDS = 31_536_000;

export interface AddonRegistrationStarterOptions {
  /** Hub client (agent hub credentials): CSRs and addon status. */
  hubClient: KubeClient;
  /** Shared hub informers: managedclusteraddons in `<cluster>` (addon status updater). */
  hubInformers: InformerFactory;
  spokeClient: KubeClient;
  /** Management cluster (Hosted addons; default the spoke client). */
  managementClient?: KubeClient;
  /** The agent's current bootstrap kubeconfig: server/CA/proxy of the addon kubeconfig. */
  bootstrapKubeconfigPath: string;
  /** `--client-cert-expiration-seconds` (0 = signer default). */
  clientCertExpirationSeconds?: number;
  /** `--addon-token-expiration-seconds` (token driver; default 31536000 = one year). */
  addonTokenExpirationSeconds?: number;
  secretResyncMs?: number;
  log: Logger;
  clock?: Clock;
  random?: () => number;
}

/**
 * The register secret controller's status updater for an addon: upsert the condition on the cached
 * addon and patch when changed.
 */
function addonStatusUpdater(o: { hubClient: KubeClient; getAddon(): ManagedClusterAddOn | undefined; clusterName: string; addonName: string; clock: Clock }): StatusUpdater {
  const addons = o.hubClient.resource<ManagedClusterAddOn>(resourceTypes.managedClusterAddOns, o.clusterName);
  return async (condition, signal) => {
    const cached = o.getAddon();
    if (!cached) return;
    const next = structuredClone(cached);
    next.status = { ...(next.status ?? {}), conditions: setCondition(next.status?.conditions, condition, new Date(o.clock.now())) };
    await patchStatus(addons, cached, next.status, signal);
  };
}

/** Timers are capped so that a year-long token does not overflow setTimeout; firing early only re-syncs. */
const MAX_REFRESH_TIMER_MS = 24 * 60 * 60_000;

export function createAddonRegistrationStarter(o: AddonRegistrationStarterOptions): StartRegistration {
  const clock = o.clock ?? realClock;
  return (input: StartRegistrationInput): void => {
    const { clusterName, addonName, config, signal } = input;
    const reg = config.registration;
    const tokenDriver = reg.type === 'kubeClient' && reg.kubeClient?.driver === 'token';
    const controllerName = `ClientCertController@addon:${addonName}:type:${reg.type}`;
    const log = o.log.child({ controller: controllerName });
    const target = config.agentRunningOutsideManagedCluster ? (o.managementClient ?? o.spokeClient) : o.spokeClient;

    const additionalData: Record<string, Buffer> = { [hubSecretKeys.clusterName]: Buffer.from(clusterName) };
    if (reg.type === 'kubeClient') {
      try {
        additionalData[hubSecretKeys.kubeconfig] = buildHubKubeconfig(loadCurrentCluster(o.bootstrapKubeconfigPath), tokenDriver ? { kind: 'tokenFile' } : { kind: 'clientCertificate' });
      } catch (err) {
        throw new Error(`failed to create driver for addon ${addonName}: ${errorMessage(err)}`, { cause: err });
      }
    }

    const secrets = target.resource<Secret>(resourceTypes.secrets, config.installationNamespace);
    const secretInformer = createInformer(secrets, { log, clock });
    const addonInformer = o.hubInformers.informerFor<ManagedClusterAddOn>(resourceTypes.managedClusterAddOns, { namespace: clusterName });
    const makeController = (driver: RegisterDriver, driverInformer: Syncable) =>
      createRegisterSecretController({
        name: controllerName,
        secretNamespace: config.installationNamespace,
        secretName: config.secretName,
        additionalData,
        driver,
        statusUpdater: addonStatusUpdater({ hubClient: o.hubClient, getAddon: () => addonInformer.lister.get(addonName, clusterName), clusterName, addonName, clock }),
        secrets,
        secretInformer,
        resyncMs: o.secretResyncMs ?? DEFAULT_ADDON_SECRET_RESYNC_MS,
        log: o.log,
        clock,
        waitForSync: [driverInformer, secretInformer],
      });

    let driverInformer: Informer<CertificateSigningRequest> | Informer<ManagedClusterAddOn>;
    let controller: RegisterSecretController;
    if (tokenDriver) {
      // The informer that triggers the token driver: this addon only, on the hub. Its own watch, so
      // that it ends with the registration (handlers on the shared informer could not be removed).
      const addons = o.hubClient.resource<ManagedClusterAddOn>(resourceTypes.managedClusterAddOns, clusterName);
      const ownAddon = createInformer(addons, { fieldSelector: `metadata.name=${addonName}`, log, clock });
      let timer: { cancel(): void } | undefined;
      signal.addEventListener('abort', () => timer?.cancel(), { once: true });
      const driver = createAddonTokenDriver({
        clusterName,
        addonName,
        hubClient: o.hubClient,
        getAddon: () => ownAddon.lister.get(addonName, clusterName),
        expirationSeconds: o.addonTokenExpirationSeconds ?? DEFAULT_ADDON_TOKEN_EXPIRATION_SECONDS,
        onRefreshDue: (atMs) => {
          // Re-sync when the token reaches its refresh point, even if that is before the next resync.
          timer?.cancel();
          if (signal.aborted) return;
          const delay = Math.min(Math.max(0, atMs - clock.now()), MAX_REFRESH_TIMER_MS);
          timer = clock.setTimeout(() => controller.enqueue(), delay);
        },
        log,
        clock,
      });
      controller = makeController(driver, ownAddon);
      const onAddon = (a: ManagedClusterAddOn): void => {
        if (a.metadata.name === addonName) controller.enqueue();
      };
      onEveryChange(ownAddon, onAddon);
      driverInformer = ownAddon;
    } else {
      const csrs = o.hubClient.resource<CertificateSigningRequest>(resourceTypes.certificateSigningRequests);
      const csrInformer = createInformer(csrs, { labelSelector: `open-cluster-management.io/cluster-name=${clusterName},open-cluster-management.io/addon-name=${addonName}`, log, clock });
      const driver = createAddonCsrDriver({
        clusterName,
        addonName,
        registration: reg,
        csrs,
        csrLister: csrInformer.lister,
        expirationSeconds: o.clientCertExpirationSeconds ?? 0,
        log,
        clock,
        random: o.random ?? Math.random,
      });
      controller = makeController(driver, csrInformer);
      const onCsr = (csr: CertificateSigningRequest): void => {
        if (isAddonCsr(csr, clusterName, addonName, driver.signerName)) controller.enqueue();
      };
      onEveryChange(csrInformer, onCsr);
      driverInformer = csrInformer;
    }
    driverInformer.start(signal);
    secretInformer.start(signal);
    controller.run(signal).catch((err: unknown) => {
      if (!signal.aborted) log.error('addon registration controller stopped', { err });
    });
  };
}
