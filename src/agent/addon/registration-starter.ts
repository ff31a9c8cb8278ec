// Controller J (spoke-agent.md §15.4): the per-registration credential controller
// `ClientCertController@addon:<addon>:type:<type>` — agent-core's register secret controller
// driven by the addon CSR driver, writing `<secret>` in the install namespace (spoke, or the
// management cluster for Hosted addons) and the ClusterCertificateRotated condition on the addon.
// createAddonRegistrationStarter() returns the `startRegistration` callback of controller I.

import type { ManagedClusterAddOn } from '../../api/addon.js';
import { setCondition } from '../../api/conditions.js';
import { hubSecretKeys } from '../../api/constants.js';
import type { CertificateSigningRequest, Secret } from '../../api/core.js';
import { createInformer } from '../../client/informer.js';
import type { InformerFactory } from '../../client/informer-factory.js';
import { resourceTypes } from '../../client/resource-types.js';
import type { KubeClient } from '../../client/types.js';
import { realClock, type Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { buildStatusPatch } from '../managedcluster/status-patch.js';
import type { StatusUpdater } from '../register/driver.js';
import { buildHubKubeconfig } from '../register/hub-kubeconfig.js';
import { loadCurrentCluster } from '../register/raw-kubeconfig.js';
import { createRegisterSecretController } from '../register/secret-controller.js';
import { createAddonCsrDriver, isAddonCsr } from './addon-csr-driver.js';
import type { StartRegistration, StartRegistrationInput } from './registration-sync.js';

export const DEFAULT_ADDON_SECRET_RESYNC_MS = 5 * 60_000;

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
  secretResyncMs?: number;
  log: Logger;
  clock?: Clock;
  random?: () => number;
}

/** The addon status updater of §9: upsert the condition on the cached addon and patch when changed. */
export function addonStatusUpdater(o: { hubClient: KubeClient; getAddon(): ManagedClusterAddOn | undefined; clusterName: string; addonName: string; clock: Clock }): StatusUpdater {
  const addons = o.hubClient.resource<ManagedClusterAddOn>(resourceTypes.managedClusterAddOns, o.clusterName);
  return async (condition, signal) => {
    const cached = o.getAddon();
    if (!cached) return;
    const next = structuredClone(cached);
    next.status = { ...(next.status ?? {}), conditions: setCondition(next.status?.conditions, condition, new Date(o.clock.now())) };
    const patch = buildStatusPatch(cached, next);
    if (patch) await addons.patch(o.addonName, 'merge', patch, { subresource: 'status', signal });
  };
}

export function createAddonRegistrationStarter(o: AddonRegistrationStarterOptions): StartRegistration {
  const clock = o.clock ?? realClock;
  return (input: StartRegistrationInput): void => {
    const { clusterName, addonName, config, signal } = input;
    const reg = config.registration;
    if (reg.type === 'kubeClient' && reg.kubeClient?.driver === 'token') {
      throw new Error(`failed to create driver for addon ${addonName}: the token registration driver is not implemented in ocm-ts`);
    }
    const controllerName = `ClientCertController@addon:${addonName}:type:${reg.type}`;
    const log = o.log.child({ controller: controllerName });
    const target = config.agentRunningOutsideManagedCluster ? (o.managementClient ?? o.spokeClient) : o.spokeClient;

    const additionalData: Record<string, Buffer> = { [hubSecretKeys.clusterName]: Buffer.from(clusterName) };
    if (reg.type === 'kubeClient') {
      try {
        additionalData[hubSecretKeys.kubeconfig] = buildHubKubeconfig(loadCurrentCluster(o.bootstrapKubeconfigPath));
      } catch (err) {
        throw new Error(`failed to create driver for addon ${addonName}: ${(err as Error).message}`, { cause: err });
      }
    }

    const csrs = o.hubClient.resource<CertificateSigningRequest>(resourceTypes.certificateSigningRequests);
    const csrInformer = createInformer(csrs, { labelSelector: `open-cluster-management.io/cluster-name=${clusterName},open-cluster-management.io/addon-name=${addonName}`, log, clock });
    const secrets = target.resource<Secret>(resourceTypes.secrets, config.installationNamespace);
    const secretInformer = createInformer(secrets, { log, clock });
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
    const addonInformer = o.hubInformers.informerFor<ManagedClusterAddOn>(resourceTypes.managedClusterAddOns, { namespace: clusterName });
    const controller = createRegisterSecretController({
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
    });
    const onCsr = (csr: CertificateSigningRequest): void => {
      if (isAddonCsr(csr, clusterName, addonName, driver.signerName)) controller.enqueue();
    };
    csrInformer.addHandlers({ onAdd: onCsr, onUpdate: (_old, c) => onCsr(c), onDelete: onCsr });
    csrInformer.start(signal);
    secretInformer.start(signal);
    void (async () => {
      try {
        await Promise.all([csrInformer.waitForSync(signal), secretInformer.waitForSync(signal)]);
        await controller.run(signal);
      } catch (err) {
        if (!signal.aborted) log.error('addon registration controller stopped', { err });
      }
    })();
  };
}
