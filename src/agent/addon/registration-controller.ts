// AddOnRegistrationController: watches the cluster's ManagedClusterAddOns (v1beta1, namespace
// `<cluster>`) and keeps one credential controller (`ClientCertController@addon:...`) running per
// distinct registration config; resync every 10 minutes cleans up addons that vanished.

import type { ManagedClusterAddOn } from '../../api/addon.js';
import type { Secret } from '../../api/core.js';
import { createController } from '../../client/controller.js';
import { isNotFound } from '../../client/errors.js';
import type { InformerFactory } from '../../client/informer-factory.js';
import { resourceTypes } from '../../client/resource-types.js';
import type { KubeClient } from '../../client/types.js';
import { realClock, type Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { createRegistrationSync, REGISTRATION_DEFAULT_KEY, type KubeClientDriver, type RegistrationSync, type StartRegistration } from './registration-sync.js';
import { enqueueByName } from '../../client/event-handlers.js';

const ADDON_REGISTRATION_CONTROLLER_NAME = 'AddOnRegistrationController';
const DEFAULT_ADDON_REGISTRATION_RESYNC_MS = 10 * 60_000;

export interface AddonRegistrationControllerOptions {
  clusterName: string;
  /** Hub client (agent hub credentials): addon status patches (driver field). */
  hubClient: KubeClient;
  /** Shared hub informers; uses managedclusteraddons (v1beta1) in namespace `<cluster>`. */
  hubInformers: InformerFactory;
  /** Spoke client: addon secrets (deleted when a registration stops). */
  spokeClient: KubeClient;
  /** Management cluster client: secrets of Hosted addons (default: the spoke client). */
  managementClient?: KubeClient;
  /** `--addon-kubeclient-registration-auth`: 'csr' (default), 'token' or '' (validated by the options). */
  addonKubeClientRegistrationAuth?: KubeClientDriver | string;
  /** Starts the credential controller of one registration (see ./index.ts). */
  startRegistration: StartRegistration;
  resyncMs?: number;
  log: Logger;
  clock?: Clock;
}

export interface AddonRegistrationController {
  readonly name: string;
  /** Exposed for tests and diagnostics. */
  readonly registrations: RegistrationSync;
  run(signal: AbortSignal): Promise<void>;
}

function toDriver(v: string | undefined): KubeClientDriver {
  return v === 'token' ? 'token' : v === '' ? '' : 'csr';
}

export function createAddonRegistrationController(o: AddonRegistrationControllerOptions): AddonRegistrationController {
  if (!o.clusterName) throw new Error('createAddonRegistrationController: clusterName is required');
  const log = o.log.child({ controller: ADDON_REGISTRATION_CONTROLLER_NAME });
  const informer = o.hubInformers.informerFor<ManagedClusterAddOn>(resourceTypes.managedClusterAddOns, { namespace: o.clusterName });
  const addons = o.hubClient.resource<ManagedClusterAddOn>(resourceTypes.managedClusterAddOns, o.clusterName);
  const management = o.managementClient ?? o.spokeClient;
  let enqueue: (key: string) => void = () => {};

  const registrations = createRegistrationSync({
    clusterName: o.clusterName,
    kubeClientDriver: toDriver(o.addonKubeClientRegistrationAuth),
    getAddon: (name) => informer.lister.get(name, o.clusterName),
    patchAddonStatus: async (name, patch, signal) => {
      await addons.patch(name, 'merge', patch, { subresource: 'status', signal });
    },
    deleteSecret: async (namespace, name, hosted, signal) => {
      try {
        await (hosted ? management : o.spokeClient).resource<Secret>(resourceTypes.secrets, namespace).delete(name, { signal });
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    },
    startRegistration: o.startRegistration,
    enqueue: (key) => enqueue(key),
    log,
  });

  const controller = createController({
    waitForSync: [informer],
    name: ADDON_REGISTRATION_CONTROLLER_NAME,
    log: o.log,
    clock: o.clock ?? realClock,
    resyncMs: o.resyncMs ?? DEFAULT_ADDON_REGISTRATION_RESYNC_MS,
    resyncKeys: () => [REGISTRATION_DEFAULT_KEY],
    reconcile: async (key, signal) => registrations.sync(key, signal),
  });
  enqueue = (key) => controller.enqueue(key);
  enqueueByName(informer, controller);

  return {
    name: ADDON_REGISTRATION_CONTROLLER_NAME,
    registrations,
    async run(signal) {
      controller.enqueue(REGISTRATION_DEFAULT_KEY);
      try {
        await controller.run(signal);
      } finally {
        registrations.stopAll();
      }
    },
  };
}
