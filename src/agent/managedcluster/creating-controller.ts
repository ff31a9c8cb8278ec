// ManagedClusterCreatingController: during bootstrap, with the bootstrap
// credentials, create the hub ManagedCluster (annotations filtered to the agent prefix, client
// configs from `--spoke-external-server-urls` with the spoke CA bundle), or add client configs to an
// existing one when their number changed. Runs once at start, then every 60–120 min (jitter drawn
// once). Unauthorized/Forbidden are expected once bootstrap RBAC is gone and are ignored.
//
// A failed sync is retried with backoff capped at 30 s (OCM's controllers cap at 1,000 s): on a hub
// starved by a join storm, the ManagedCluster must not wait many minutes behind a few timeouts.
// `done` tells the bootstrap phase when the cluster exists, so that a create still failing when the
// hub has already signed the agent's certificate is not given up with the phase.

import type { ManagedCluster } from '../../api/cluster.js';
import { createController } from '../../client/controller.js';
import { isAlreadyExists, isForbidden, isNotFound, isUnauthorized } from '../../client/errors.js';
import { resourceTypes } from '../../client/resource-types.js';
import type { KubeClient } from '../../client/types.js';
import { realClock, type Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { errorMessage } from '../../util/errors.js';
import { clientConfigCount, decorateCluster, newHubCluster, type DecorateInput } from './creating-decorators.js';

const CREATING_CONTROLLER_NAME = 'ManagedClusterCreatingController';
const KEY = 'key';
const BASE_RESYNC_MS = 60 * 60_000;
const MAX_RETRY_MS = 30_000;

export interface CreatingControllerOptions {
  clusterName: string;
  /** Hub client with the **bootstrap** credentials. */
  bootstrapClient: KubeClient;
  /** `--cluster-annotations` (only `agent.open-cluster-management.io*` keys are kept). */
  clusterAnnotations?: Readonly<Record<string, string>>;
  /** `--spoke-external-server-urls`. */
  spokeExternalServerUrls?: readonly string[];
  /** Spoke CA bundle bytes (PEM), sent base64 as `caBundle`. */
  spokeCaBundle?: Uint8Array;
  /** Resync period; default 60 min × (1 + U), U drawn once from `random`. */
  resyncMs?: number;
  random?: () => number;
  log: Logger;
  clock?: Clock;
}

export interface CreatingController {
  readonly name: string;
  /** One sync (exposed for tests). */
  sync(signal: AbortSignal): Promise<void>;
  /**
   * Resolves once a sync has succeeded: the ManagedCluster exists on the hub (found, created, or
   * AlreadyExists), or the bootstrap identity may no longer read it (401/403), which leaves nothing
   * this controller could do.
   */
  readonly done: Promise<void>;
  /** Resolves once the first sync has ended, whatever its outcome. */
  readonly firstAttempt: Promise<void>;
  /** Runs once at once, then on every resync, until the signal aborts. */
  run(signal: AbortSignal): Promise<void>;
}

function ignorable(err: unknown): boolean {
  return isUnauthorized(err) || isForbidden(err);
}

export function createCreatingController(o: CreatingControllerOptions): CreatingController {
  if (!o.clusterName) throw new Error('createCreatingController: clusterName is required');
  const log = o.log.child({ controller: CREATING_CONTROLLER_NAME });
  const resyncMs = o.resyncMs ?? Math.round(BASE_RESYNC_MS * (1 + (o.random ?? Math.random)()));
  const clusters = o.bootstrapClient.resource<ManagedCluster>(resourceTypes.managedClusters);
  const name = o.clusterName;
  const decoration: DecorateInput = {
    ...(o.clusterAnnotations ? { annotations: o.clusterAnnotations } : {}),
    ...(o.spokeExternalServerUrls ? { externalServerUrls: o.spokeExternalServerUrls } : {}),
    ...(o.spokeCaBundle && o.spokeCaBundle.length > 0 ? { caBundle: Buffer.from(o.spokeCaBundle).toString('base64') } : {}),
  };
  const decorate = (c: ManagedCluster): ManagedCluster => {
    const res = decorateCluster(c, decoration);
    for (const k of res.ignoredAnnotations) log.warn(`annotation "${k}" is not prefixed with "agent.open-cluster-management.io", it will be ignored`);
    return res.cluster;
  };

  /** Creates the cluster: 'created', or why not ('exists', or 'refused' to the bootstrap identity); other errors are thrown. */
  const create = async (signal: AbortSignal): Promise<'created' | 'exists' | 'refused'> => {
    try {
      await clusters.create(decorate(newHubCluster(name)), { signal });
    } catch (err) {
      if (isAlreadyExists(err)) return 'exists';
      if (ignorable(err)) return 'refused';
      throw new Error(`unable to create managed cluster with name "${name}" on hub: ${errorMessage(err)}`, { cause: err });
    }
    log.info(`Managed cluster "${name}" created on hub`, { reason: 'ManagedClusterCreated' });
    return 'created';
  };
  // The first sync creates at once: a cluster joining for the first time is not on the hub yet, and
  // reading it first would put one more round trip to the hub on the join's path. AlreadyExists
  // (a cluster joining again), or a bootstrap identity that may not create, goes on as every later
  // sync does, from the cluster as the hub has it.
  let createFirst = true;
  const sync = async (signal: AbortSignal): Promise<void> => {
    if (createFirst) {
      createFirst = false;
      if ((await create(signal)) === 'created') return;
    }
    let existing: ManagedCluster | undefined;
    try {
      existing = await clusters.get(name, { signal });
    } catch (err) {
      if (ignorable(err)) {
        log.debug('unable to get managed cluster with bootstrap credentials', { err });
        return;
      }
      if (!isNotFound(err)) throw err;
    }
    if (existing === undefined) {
      await create(signal);
      return;
    }
    const next = decorate(existing);
    if (clientConfigCount(next) === clientConfigCount(existing)) return;
    try {
      await clusters.update(next, { signal });
    } catch (err) {
      if (ignorable(err)) return;
      throw new Error(`unable to update ManagedClusterClientConfigs of managed cluster "${name}" in hub: ${errorMessage(err)}`, { cause: err });
    }
  };

  let markDone!: () => void;
  const done = new Promise<void>((resolve) => (markDone = resolve));
  let markAttempted!: () => void;
  const firstAttempt = new Promise<void>((resolve) => (markAttempted = resolve));
  const controller = createController({
    name: CREATING_CONTROLLER_NAME,
    log: o.log,
    clock: o.clock ?? realClock,
    resyncMs,
    resyncKeys: () => [KEY],
    backoffMaxMs: MAX_RETRY_MS,
    reconcile: async (_key, signal) => {
      try {
        await sync(signal);
      } finally {
        markAttempted();
      }
      markDone();
    },
  });

  return {
    name: CREATING_CONTROLLER_NAME,
    sync,
    done,
    firstAttempt,
    async run(signal) {
      controller.enqueue(KEY);
      await controller.run(signal);
    },
  };
}
