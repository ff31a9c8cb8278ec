// Addon controllers of the spoke agent (spoke-agent.md §15), main phase, gate AddonManagement.
//
// H — ManagedClusterAddOnLeaseController:
//   const h = createAddonLeaseController({
//     clusterName, hubClient, hubInformers,        // hub KubeClient + shared hub InformerFactory
//     spokeClient, managementClient?,               // addon leases (Hosted addons: management)
//     resyncMs? (30 s), gracePeriodMs? (300 s), log, clock? });
//   await h.run(signal);
//
// I — AddOnRegistrationController:
//   const i = createAddonRegistrationController({
//     clusterName, hubClient, hubInformers, spokeClient, managementClient?,
//     addonKubeClientRegistrationAuth? ('csr' | 'token' | '', default 'csr'),
//     startRegistration,                            // J: (input: StartRegistrationInput) => void
//     resyncMs? (10 min), log, clock? });
//   await i.run(signal);
//
// `startRegistration({ clusterName, addonName, config, signal })` must start the per-registration
// credential controller (register secret controller + driver for `config`) and keep it running
// until `signal` aborts; it throws when the driver cannot be built. The registration controller
// deletes `config.secretName` in `config.installationNamespace` itself when a registration stops.
// Both controllers use hub managedclusteraddons (v1beta1) in namespace `<cluster>` from the
// factory; the caller starts the factory.

export { createAddonLeaseController, leaseQueueKey, ADDON_LEASE_CONTROLLER_NAME, type AddonLeaseController, type AddonLeaseControllerOptions } from './addon-lease-controller.js';
export { addonLeaseCondition, splitAddonKey, ADDON_LEASE_GRACE_MS } from './addon-lease-status.js';
export {
  createAddonRegistrationController,
  ADDON_REGISTRATION_CONTROLLER_NAME,
  type AddonRegistrationController,
  type AddonRegistrationControllerOptions,
} from './registration-controller.js';
export {
  createRegistrationSync,
  withKubeClientDriver,
  REGISTRATION_DEFAULT_KEY,
  type KubeClientDriver,
  type StartRegistration,
  type StartRegistrationInput,
  type RegistrationSync,
} from './registration-sync.js';
export {
  registrationConfigs,
  setSubjectForRegistration,
  configHash,
  defaultAddonUser,
  defaultAddonGroup,
  tokenUser,
  type AddonRegistration,
} from './registration-config.js';
export { addonInstallNamespace, isHostedAddon, hostingClusterName } from './addon-helpers.js';
