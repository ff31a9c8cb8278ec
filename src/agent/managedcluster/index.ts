// Hub-facing ManagedCluster controllers of the spoke agent: C (creating, bootstrap phase) and
// G (status, main phase). Each is a factory taking one options object and returning `run(signal)`.
//
// C — ManagedClusterCreatingController (spoke-agent.md §12), bootstrap credentials:
//   const c = createCreatingController({
//     clusterName, bootstrapClient,                 // KubeClient with the bootstrap kubeconfig
//     clusterAnnotations?, spokeExternalServerUrls?, spokeCaBundle?: Uint8Array,
//     resyncMs?, random?, log, clock? });
//   await c.run(signal);     // initial run, then every 60–120 min; resolves when signal aborts
//
// G — ManagedClusterStatusController (spoke-agent.md §14), hub credentials:
//   const g = createStatusController({
//     clusterName, hubClient, hubInformers,         // hub KubeClient + shared hub InformerFactory
//     spokeClient, spokeInformers,                  // spoke KubeClient + shared spoke InformerFactory
//     bootstrapServerUrl,                           // server URL of the current bootstrap kubeconfig
//     features,                                     // gates ClusterClaim / ClusterProperty
//     maxCustomClusterClaims?, reservedClusterClaimSuffixes?, resyncMs? (--cluster-healthcheck-period),
//     availabilityFailureThresholdMs? (20 s), availabilityRetryIntervalMs? (5 s), probeTimeoutMs?,
//     hostname?, hubEventRecorder?, log, clock? });
//   hubInformers.start(signal); spokeInformers.start(signal);   // the caller starts the factories
//   await g.run(signal);     // waits for its caches, then runs until the signal aborts
//
// Informers requested from the factories (shared with F, H, I, K when they ask for the same):
// hub managedclusters `metadata.name=<cluster>`; spoke nodes, namespaces `<hub label>=true`,
// clusterclaims (gate), clusterproperties (gate).

export { createCreatingController } from './creating-controller.js';
export { createStatusController, STATUS_CONTROLLER_NAME, type StatusController, type StatusControllerOptions } from './status-controller.js';
export { hubHash, hubClusterSetLabel } from './managed-namespace-reconciler.js';
