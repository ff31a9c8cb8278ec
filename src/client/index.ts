// Public API of the client runtime: agent and hub controllers import from here.

export type * from './types.js';
export { createKubeClient } from './rest-client.js';
export { renderKubeconfig } from './kubeconfig-writer.js';
export { ApiStatusError, NetworkError, isNotFound, isAlreadyExists, isConflict, isForbidden } from './errors.js';
export { createInformer } from './informer.js';
export { createInformerFactory } from './informer-factory.js';
export { createController } from './controller.js';
export { resourceTypes } from './resource-types.js';
