// MultipleHubs support of the spoke agent (spoke-agent.md §16), gate MultipleHubs.
//
// Bootstrap kubeconfig selection (call at every start, before bootstrapping). Ready-made:
//   const index = await selectBootstrapKubeconfigIndex({ clusterName, hubKubeconfigFile, candidates, log, signal });
// or with your own file/validity functions:
//   const path = await selectBootstrapKubeconfig({
//     candidates,                 // --bootstrap-kubeconfigs
//     hubKubeconfigPath, clusterName,
//     serverUrlOf: serverUrlOfKubeconfig,
//     checkValid: async (p, signal) => { const c = createKubeClient({ kubeconfigPath: p });
//                                        try { await checkBootstrapCandidate(c, clusterName, signal); } finally { c.close(); } },
//     log }, signal);             // rejects with NoBootstrapKubeconfigError when none is usable
//   (wrap client construction errors as `failed to build bootstrap kubeconfig: <err>`)
//
// K — HubAcceptController:  createHubAcceptController({ clusterName, hubInformers, onRestart, log, clock? }).run(signal)
// L — HubTimeoutController: createHubTimeoutController({ clusterName, hubClient, hubConnectionTimeoutSeconds? (600),
//                             resyncMs? (60 s), startupGraceMs? (10 s), onRestart, log, clock? }).run(signal)
// `onRestart(reason)` must cancel the agent so that it restarts and reselects a bootstrap kubeconfig.

export { selectBootstrapKubeconfig, serverUrlOfKubeconfig, NoBootstrapKubeconfigError, type BootstrapSelectionInput } from './bootstrap-selection.js';
export { checkBootstrapCandidate, REQUIRED_ACCESS } from './bootstrap-validity.js';
export { createHubAcceptController, hubRejectsClient, HUB_ACCEPT_CONTROLLER_NAME, HUB_REJECTED_MESSAGE, type HubAcceptController, type HubAcceptControllerOptions } from './hub-accept-controller.js';
export {
  createHubTimeoutController,
  isLeaseTimedOut,
  HUB_TIMEOUT_CONTROLLER_NAME,
  LEASE_TIMEOUT_MESSAGE,
  DEFAULT_HUB_CONNECTION_TIMEOUT_SECONDS,
  type HubTimeoutController,
  type HubTimeoutControllerOptions,
} from './hub-timeout-controller.js';
export { selectBootstrapKubeconfigIndex, type SelectFromFilesInput } from './select-from-files.js';
