// ManagedClusterLeaseController of the spoke agent: keeps the hub cluster lease renewed.
//
//   const lease = createLeaseController({ clusterName, hubClient, hubInformers, log, clock?, random? });
//   hubInformers.start(signal);   // the caller starts the shared hub informer factory
//   await lease.run(signal);      // resolves after the signal aborts (the updater is stopped)
//
// `hubInformers` is the shared hub InformerFactory (hub credentials); the controller asks it for
// managedclusters with fieldSelector `metadata.name=<cluster>` (shared with the status and hub
// accept controllers).

export { createLeaseController, LEASE_CONTROLLER_NAME, type LeaseController } from './lease-controller.js';
