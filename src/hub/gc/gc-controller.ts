// GCController (gate ResourceCleanup): on cluster deletion, delete addons,
// then ManifestWorks (lowest cleanup priority first, 5 s loop), report `Deleting`, then release the
// `resource-cleanup` finalizer. Kinds the hub does not serve (e.g. no ManifestWork CRD) count as empty.

import type { ManagedCluster } from '../../api/cluster.js';
import { setCondition } from '../../api/conditions.js';
import { finalizers } from '../../api/constants.js';
import type { Condition, KubeObject } from '../../api/meta.js';
import { isNotFound } from '../../client/errors.js';
import { resourceTypes } from '../../client/resource-types.js';
import type { Controller, ReconcileResult, ResourceType } from '../../client/types.js';
import { DEFAULT_KEY, type HubContext, CLUSTER_WORKERS } from '../common/context.js';
import { patchStatus } from '../../client/patch-writer.js';
import { addFinalizer, removeFinalizer, writeNewest } from '../common/writes.js';
import { deletingErrorCondition, firstDeleteGroup, NO_RESOURCE_CONDITION, remainingCondition } from './gc-decision.js';
import { aggregateMessage, errorMessage, toError } from '../../util/errors.js';
import { enqueueByName } from '../../client/event-handlers.js';
import { awaitsAutoAccept } from '../managedcluster/acceptance-decision.js';

export const CONTROLLER_NAME = 'GCController';

type GcOutcome = { kind: 'done'; condition: Condition } | { kind: 'requeue'; condition: Condition } | { kind: 'error'; error: Error; condition?: Condition };

export function setupGcController(ctx: HubContext): Controller {
  const log = ctx.log.child({ controller: CONTROLLER_NAME });
  const clusters = ctx.client.resource<ManagedCluster>(resourceTypes.managedClusters);
  const autoApproval = ctx.options.featureGates['ManagedClusterAutoApproval'] === true;

  async function gcResources(ns: string, signal: AbortSignal): Promise<GcOutcome> {
    for (const type of ctx.options.gcResources) {
      let items: KubeObject[];
      try {
        items = (await ctx.client.resource(type as ResourceType, ns).list({ signal })).items;
      } catch (err) {
        if (isNotFound(err)) continue;
        return { kind: 'error', error: new Error(`failed to list resource ${type.resource}. err:${errorMessage(err)}`, { cause: err }) };
      }
      if (items.length === 0) continue;
      const condition = remainingCondition(type.resource, items);
      const errors: Error[] = [];
      for (const item of firstDeleteGroup(items)) {
        try {
          await ctx.client.resource(type as ResourceType, ns).delete(item.metadata.name ?? '', { signal });
        } catch (err) {
          if (!isNotFound(err)) errors.push(toError(err));
        }
      }
      if (errors.length > 0) return { kind: 'error', error: new Error(`failed to clean up ${type.resource}. err:${aggregateMessage(errors, 'lines')}`), condition };
      return { kind: 'requeue', condition };
    }
    return { kind: 'done', condition: { ...NO_RESOURCE_CONDITION } };
  }

  async function reconcile(name: string, signal: AbortSignal): Promise<ReconcileResult> {
    if (name === '' || name === DEFAULT_KEY) return {};
    const cluster = ctx.informers.clusters.lister.get(name);
    if (cluster && !cluster.metadata.deletionTimestamp) {
      if (awaitsAutoAccept(cluster, autoApproval)) return {};
      await writeNewest(ctx.client, resourceTypes.managedClusters, cluster, (c) => addFinalizer(clusters, c, finalizers.resourceCleanup, signal));
      return {};
    }
    const outcome = await gcResources(name, signal);
    const requeueMs = ctx.options.timings.cleanupRequeueMs;
    if (!cluster) {
      if (outcome.kind === 'requeue') return { requeueAfterMs: requeueMs };
      if (outcome.kind === 'error') throw outcome.error;
      return {};
    }
    let condition = outcome.condition;
    if (outcome.kind === 'error') {
      log.warn(`failed to cleanup resources in cluster ${name}:${outcome.error.message}`, { key: name, reason: 'ResourceCleanupFail' });
      condition = deletingErrorCondition(outcome.error.message);
    }
    if (condition) {
      const status = { ...(cluster.status ?? {}), conditions: setCondition(cluster.status?.conditions, condition, new Date(ctx.clock.now())) };
      await patchStatus(clusters, cluster, status, signal);
    }
    if (outcome.kind === 'requeue') return { requeueAfterMs: requeueMs };
    if (outcome.kind === 'error') throw outcome.error;
    log.info(`resources in cluster ${name} are cleaned up`, { key: name, reason: 'ResourceCleanupCompleted' });
    // The status patch moved resourceVersion on; remove the finalizer against the latest copy.
    const latest = await clusters.get(name, { signal }).catch((err: unknown) => {
      if (isNotFound(err)) return undefined;
      throw err;
    });
    if (latest) await removeFinalizer(clusters, latest, finalizers.resourceCleanup, signal);
    return {};
  }
  const controller = ctx.newController({ name: CONTROLLER_NAME, reconcile, log, workers: CLUSTER_WORKERS });
  enqueueByName(ctx.informers.clusters, controller);
  return controller;
}

