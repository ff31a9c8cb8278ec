// Hub-facing ManagedCluster controllers of the spoke agent: ManagedClusterCreatingController
// (bootstrap phase) and ManagedClusterStatusController (main phase). Each is a factory taking one
// options object and returning `run(signal)`.
//
// ManagedClusterCreatingController, with the bootstrap credentials:
//   const creating = createCreatingController({
//     clusterName, bootstrapClient,                 // KubeClient with the bootstrap kubeconfig
//     clusterAnnotations?, spokeExternalServerUrls?, spokeCaBundle?: Uint8Array,
//     resyncMs?, random?, log, clock? });
//   await creating.run(signal);   // initial run, then every 60–120 min; resolves when signal aborts
//   await creating.done;          // a sync succeeded: the ManagedCluster exists (or bootstrap RBAC is gone)
//
// ManagedClusterStatusController, with the hub credentials:
//   const status = createStatusController({
//     clusterName, hubClient, hubInformers,         // hub KubeClient + shared hub InformerFactory
//     spokeClient, spokeInformers,                  // spoke KubeClient + shared spoke InformerFactory
//     bootstrapServerUrl,                           // server URL of the current bootstrap kubeconfig
//     features,                                     // gates ClusterClaim / ClusterProperty
//     maxCustomClusterClaims?, reservedClusterClaimSuffixes?, resyncMs? (--cluster-healthcheck-period),
//     availabilityFailureThresholdMs? (20 s), availabilityRetryIntervalMs? (5 s), probeTimeoutMs?,
//     hostname?, hubEventRecorder?, log, clock? });
//   hubInformers.start(signal); spokeInformers.start(signal);   // the caller starts the factories
//   await status.run(signal);     // waits for its caches, then runs until the signal aborts
//
// Informers requested from the factories (shared with the lease, addon lease, addon registration
// and hub accept controllers when they ask for the same):
// hub managedclusters `metadata.name=<cluster>`; spoke nodes, namespaces `<hub label>=true`,
// clusterclaims (gate), clusterproperties (gate).

export { createCreatingController } from './creating-controller.js';
export { createStatusController, STATUS_CONTROLLER_NAME, type StatusController, type StatusControllerOptions } from './status-controller.js';
export { hubHash, hubClusterSetLabel } from './managed-namespace-reconciler.js';
