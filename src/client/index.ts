// Public API of the client runtime: agent and hub controllers import from here.

export type * from './types.js';
export { createKubeClient, type KubeClientConfig, type KubeClientOptions } from './rest-client.js';
export {
  loadKubeconfigFile,
  loadKubeconfigString,
  fileConfigSource,
  staticConfigSource,
  KubeconfigError,
  type ClientConfig,
  type ConfigSource,
  type LoadedKubeconfig,
} from './kubeconfig.js';
export { renderKubeconfig, bootstrapClusterOf, type RenderKubeconfigInput, type KubeconfigUser, type BootstrapCluster } from './kubeconfig-writer.js';
export {
  ApiStatusError,
  NetworkError,
  TerminalError,
  isNotFound,
  isAlreadyExists,
  isConflict,
  isForbidden,
  isUnauthorized,
  isGone,
  isTooManyRequests,
  retryDecision,
  type RetryDecision,
} from './errors.js';
export { createInformer, type InformerEvent, type InformerRuntimeOptions } from './informer.js';
export { createInformerFactory, type InformerFactory, type InformerFactoryOptions, type InformerFor } from './informer-factory.js';
export { createWorkQueue, type WorkQueue } from './work-queue.js';
export { defaultControllerRateLimiter, itemExponentialRateLimiter, bucketRateLimiter, maxOfRateLimiter, type RateLimiter } from './rate-limiter.js';
export { createController, type ControllerRuntimeOptions } from './controller.js';
export { keyOf, splitKey } from './keys.js';
export { createEventRecorder, type EventRecorderOptions, type FlushableEventRecorder } from './event-recorder.js';
export { resourceTypes, type ResourceTypeName } from './resource-types.js';
export { resourcePath, patchContentTypes } from './request-path.js';
