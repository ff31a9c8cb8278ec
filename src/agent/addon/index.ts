// Addon controllers of the spoke agent, main phase, gate AddonManagement.
//
// ManagedClusterAddOnLeaseController:
//   const addonLease = createAddonLeaseController({
//     clusterName, hubClient, hubInformers,        // hub KubeClient + shared hub InformerFactory
//     spokeClient, managementClient?,               // addon leases (Hosted addons: management)
//     resyncMs? (30 s), gracePeriodMs? (300 s), log, clock? });
//   await addonLease.run(signal);
//
// AddOnRegistrationController:
//   const registration = createAddonRegistrationController({
//     clusterName, hubClient, hubInformers, spokeClient, managementClient?,
//     addonKubeClientRegistrationAuth? ('csr' | 'token' | '', default 'csr'),
//     startRegistration,                            // (input: StartRegistrationInput) => void, below
//     resyncMs? (10 min), log, clock? });
//   await registration.run(signal);
//
// Per-registration credential controllers (`ClientCertController@addon:<a>:type:<t>`):
//   const startRegistration = createAddonRegistrationStarter({
//     hubClient, hubInformers, spokeClient, managementClient?,
//     bootstrapKubeconfigPath,                      // current bootstrap kubeconfig (addon kubeconfig server/CA)
//     clientCertExpirationSeconds?, addonTokenExpirationSeconds? (1 year),
//     secretResyncMs? (5 min), log, clock?, random? });
//   It runs agent-core's register secret controller (../register/secret-controller.ts) with the
//   addon CSR driver (./addon-csr-driver.ts), or, for a kubeClient registration whose driver is
//   'token', the addon token driver (./addon-token-driver.ts): a hub TokenRequest for
//   ServiceAccount `<addon>-agent` in `<cluster>` once TokenInfrastructureReady is True, stored as
//   `token` beside a kubeconfig using `tokenFile: token`; refreshed at 80 % of its lifetime.
//
// `startRegistration({ clusterName, addonName, config, signal })` must start the per-registration
// credential controller and keep it running until `signal` aborts; it throws when it cannot be
// built. The registration controller deletes `config.secretName` in `config.installationNamespace`
// itself when a registration stops.
// Both controllers use hub managedclusteraddons (v1beta1) in namespace `<cluster>` from the
// factory; the caller starts the factory.

export { createAddonLeaseController } from './addon-lease-controller.js';
export { createAddonRegistrationController } from './registration-controller.js';
export { registrationConfigs } from './registration-config.js';
export { createAddonRegistrationStarter } from './registration-starter.js';
