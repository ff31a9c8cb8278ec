// What the server's own controllers share: the parts of the server they use, and the identity
// their writes run as (system:apiserver in system:masters, with no admission plugins, as
// kube-apiserver's and kube-controller-manager's own loops are never refused by a webhook).

import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import type { UserInfo } from '../pipeline.js';
import type { RegistryContext, RequestScope } from '../registry/rest-context.js';
import type { ResourceRegistry } from '../registry/resource-registry.js';
import type { ServedResource } from '../registry/types.js';
import type { Store } from '../storage/types.js';

export interface ControllerOptions {
  store: Store;
  registry: ResourceRegistry;
  regCtx: RegistryContext;
  clock: Clock;
  log: Logger;
  /** Delay before retrying after a failed write or a dropped watch. */
  retryMs: number;
  signal: AbortSignal;
}

const SYSTEM_USER: UserInfo = { username: 'system:apiserver', groups: ['system:masters'] };

/** The registry context of the server's own writes: no admission plugins. */
export function systemContext(regCtx: RegistryContext): RegistryContext {
  return { ...regCtx, admission: [] };
}

/** A request scope for one of the server's own writes. */
export function systemScope(served: ServedResource, version: string, namespace: string): RequestScope {
  return { user: SYSTEM_USER, served, version, namespace, dryRun: false };
}

/** A built-in resource the server cannot run without. */
export function builtinResource(registry: ResourceRegistry, group: string, resource: string): ServedResource {
  const r = registry.all().find((x) => x.def.group === group && x.def.resource === resource);
  if (!r) throw new Error(`built-in resource ${resource} missing`);
  return r;
}
