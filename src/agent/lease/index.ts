// Lease controller (F, spoke-agent.md §13).
//
//   const c = createLeaseController({ clusterName, hubClient, hubInformers, log, clock?, random? });
//   hubInformers.start(signal);   // the caller starts the shared hub informer factory
//   await c.run(signal);          // resolves after the signal aborts (the updater is stopped)
//
// `hubInformers` is the shared hub InformerFactory (hub credentials); the controller asks it for
// managedclusters with fieldSelector `metadata.name=<cluster>` (shared with G and K).

export { createLeaseController, LEASE_CONTROLLER_NAME, type LeaseController } from './lease-controller.js';
