// ManagedClusterImporter (gate ClusterImporter): installs the registration agent on each cluster
// that a Cluster API `Cluster` provides, with that Cluster's kubeconfig, and reports the outcome in
// the ManagedCluster's `ManagedClusterImportSucceeded` condition. Keyed by cluster name. A cluster
// already imported, being deleted, or owned by no CAPI Cluster is left alone.
//
// The CAPI informer is this controller's own and is not waited for at hub start: a hub without the
// Cluster API CRD runs its other controllers, and its Clusters show up if the CRD comes later.

import type { ManagedCluster } from '../../api/cluster.js';
import { isConditionTrue, setCondition } from '../../api/conditions.js';
import type { KubeObject } from '../../api/meta.js';
import { createKubeClient } from '../../client/rest-client.js';
import { createInformer } from '../../client/informer.js';
import { enqueueByName } from '../../client/event-handlers.js';
import { patchStatus } from '../../client/patch-writer.js';
import { resourceTypes } from '../../client/resource-types.js';
import type { ClientConfig } from '../../client/kubeconfig.js';
import type { Controller, Informer, KubeClient, ReconcileResult } from '../../client/types.js';
import { aggregateMessage, errorMessage } from '../../util/errors.js';
import type { HubContext } from '../common/context.js';
import { parseAgentTemplate, renderAgentManifests } from './agent-manifests.js';
import { applyRemote } from './apply-remote.js';
import { CAPI_CLUSTERS, capiClusterConfig, capiKey, KubeconfigSecretMissing, sameKey } from './capi-provider.js';
import { initialImportConfig } from './import-config.js';
import { IMPORT_CONDITION, importCondition, type ImportOutcome } from './import-condition.js';
import type { ImporterOptions } from './importer-options.js';
import { renderImportConfig } from './renderers.js';

const CONTROLLER_NAME = 'managed-cluster-importer';
/** Requests to an imported cluster give up sooner than the hub's own. */
const REMOTE_TIMEOUT_MS = 15_000;

/** A failed import, with the outcome the condition reports; the controller retries it with backoff. */
class ImportFailure extends Error {
  constructor(readonly outcome: ImportOutcome, cause: unknown) {
    super(errorMessage(cause), { cause });
    this.name = 'ImportFailure';
  }
}

export interface ImporterDeps {
  options: Readonly<ImporterOptions>;
  /** The agent manifest (deploy/agent/agent.yaml's text). */
  template: string;
  /** A client for the imported cluster (tests may wrap it). */
  remoteClient?(config: ClientConfig): KubeClient;
}

export function setupClusterImporter(ctx: HubContext, deps: ImporterDeps): Controller {
  const log = ctx.log.child({ controller: CONTROLLER_NAME });
  const template = parseAgentTemplate(deps.template);
  const capi: Informer<KubeObject> = createInformer(ctx.client.resource(CAPI_CLUSTERS), { log, clock: ctx.clock, resyncMs: ctx.options.timings.resyncMs });
  const remoteClient = deps.remoteClient ?? ((config: ClientConfig) => createKubeClient(config, { log, userAgent: 'ocm-ts-importer', timeoutMs: REMOTE_TIMEOUT_MS }));

  /** Imports one cluster; returns the outcome and, for a missing kubeconfig Secret, when to look again. */
  async function importCluster(cluster: ManagedCluster, signal: AbortSignal): Promise<{ outcome: ImportOutcome; requeueAfterMs?: number }> {
    const name = cluster.metadata.name ?? '';
    let config: ClientConfig | undefined;
    try {
      config = await capiClusterConfig(ctx.client, capi.lister, capiKey(cluster)!, signal);
    } catch (err) {
      const outcome: ImportOutcome = { kind: 'kubeconfigGetFailed', error: errorMessage(err) };
      if (err instanceof KubeconfigSecretMissing) return { outcome, requeueAfterMs: deps.options.kubeconfigRetryMs };
      throw new ImportFailure(outcome, err);
    }
    if (!config) return { outcome: { kind: 'kubeconfigNotFound' } };
    let objects: KubeObject[];
    try {
      const rendered = await renderImportConfig(initialImportConfig(name), deps.options.renderers, { hub: ctx.client, clusterName: name, options: deps.options, signal });
      objects = renderAgentManifests(template, rendered);
    } catch (err) {
      throw new ImportFailure({ kind: 'renderFailed', error: errorMessage(err) }, err);
    }
    const remote = remoteClient(config);
    let errors: Error[];
    try {
      errors = await applyRemote(remote, objects, signal);
    } finally {
      remote.close();
    }
    if (errors.length > 0) {
      const error = aggregateMessage(errors);
      throw new ImportFailure({ kind: 'importFailed', error }, new Error(error));
    }
    return { outcome: { kind: 'imported' } };
  }

  async function reconcile(name: string, signal: AbortSignal): Promise<ReconcileResult> {
    const cluster = ctx.informers.clusters.lister.get(name);
    if (!cluster || cluster.metadata.deletionTimestamp || isConditionTrue(cluster.status?.conditions, IMPORT_CONDITION)) return {};
    const key = capiKey(cluster);
    // Not synced yet: the informer's first list enqueues every cluster its Clusters name.
    if (!key || !capi.hasSynced() || !capi.lister.get(key.name, key.namespace)) return {};
    let result: { outcome: ImportOutcome; requeueAfterMs?: number };
    let failure: Error | undefined;
    try {
      result = await importCluster(cluster, signal);
    } catch (err) {
      if (!(err instanceof ImportFailure)) throw err;
      failure = err;
      result = { outcome: err.outcome };
    }
    const status = { ...(cluster.status ?? {}), conditions: setCondition(cluster.status?.conditions, importCondition(result.outcome), new Date(ctx.clock.now())) };
    const changed = await patchStatus(ctx.client.resource<ManagedCluster>(resourceTypes.managedClusters), cluster, status, signal);
    if (changed) log.info('import condition updated', { cluster: name, outcome: result.outcome.kind });
    if (failure) throw failure;
    return result.requeueAfterMs !== undefined ? { requeueAfterMs: result.requeueAfterMs } : {};
  }

  const controller = ctx.newController({ name: CONTROLLER_NAME, reconcile, log });
  enqueueByName(ctx.informers.clusters, controller);
  const onCapi = (obj: KubeObject): void => {
    const key = { namespace: obj.metadata.namespace ?? '', name: obj.metadata.name ?? '' };
    for (const mc of ctx.informers.clusters.lister.list()) {
      const k = capiKey(mc);
      if (k && sameKey(k, key)) controller.enqueue(mc.metadata.name ?? '');
    }
  };
  capi.addHandlers({ onAdd: onCapi, onUpdate: (_old, cur) => onCapi(cur) });
  return {
    name: controller.name,
    enqueue: (key) => controller.enqueue(key),
    enqueueAfter: (key, ms) => controller.enqueueAfter(key, ms),
    run(signal) {
      capi.start(signal);
      return controller.run(signal);
    },
  };
}
