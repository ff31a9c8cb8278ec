// MultipleHubs support of the spoke agent (gate MultipleHubs): the agent holds several bootstrap
// kubeconfigs, picks one at every start, and restarts to pick again when its hub refuses or loses it.
//
// Bootstrap kubeconfig selection (call at every start, before bootstrapping):
//   const index = await selectBootstrapKubeconfigIndex({ clusterName, hubKubeconfigFile, candidates, log, signal });
// (checkBootstrapCandidate and serverUrlOfKubeconfig are the checks it runs on each candidate.)
//
// HubAcceptController:  createHubAcceptController({ clusterName, hubInformers, onRestart, log, clock? }).run(signal)
// HubTimeoutController: createHubTimeoutController({ clusterName, hubClient, hubConnectionTimeoutSeconds? (600),
//                             resyncMs? (60 s), startupGraceMs? (10 s), onRestart, log, clock? }).run(signal)
// `onRestart(reason)` must cancel the agent so that it restarts and reselects a bootstrap kubeconfig.

export { serverUrlOfKubeconfig } from './bootstrap-selection.js';
export { checkBootstrapCandidate } from './bootstrap-validity.js';
export { createHubAcceptController, HUB_ACCEPT_CONTROLLER_NAME } from './hub-accept-controller.js';
export { createHubTimeoutController, HUB_TIMEOUT_CONTROLLER_NAME } from './hub-timeout-controller.js';
export { selectBootstrapKubeconfigIndex } from './select-from-files.js';
