// Managed namespace reconciler: for every status.managedNamespaces entry
// (written by the hub), ensure the spoke namespace exists and carries `<hub label>: "true"`, and
// report a NamespaceAvailable condition inside the entry. Namespaces that carry the label but are no
// longer managed (or every one, when the cluster is being deleted) get the label value "false";
// namespaces are never deleted. The hub label is derived from the bootstrap hub's server URL.

import { createHash } from 'node:crypto';
import type { ManagedCluster } from '../../api/cluster.js';
import type { Namespace } from '../../api/core.js';
import { setCondition } from '../../api/conditions.js';
import { conditionTypes, labels, reasons } from '../../api/constants.js';
import { isNotFound } from '../../client/errors.js';
import type { ResourceClient } from '../../client/types.js';
import { aggregate, errorMessage } from '../../util/errors.js';
import type { StatusContext, StatusReconciler, StepResult } from './reconciler.js';

/** Lower-case hex SHA-256 of the hub server URL (the `Host` of the bootstrap client config). */
export function hubHash(serverUrl: string): string {
  return createHash('sha256').update(serverUrl).digest('hex');
}

/** `clusterset.open-cluster-management.io/` + the first 63 characters of the hash. */
export function hubClusterSetLabel(hash: string): string {
  return labels.managedNamespacePrefix + hash.slice(0, 63);
}

/** Pure: the namespace with `key: value` merged into its labels, or undefined if already so. */
export function withLabel(ns: Namespace, key: string, value: string): Namespace | undefined {
  if (ns.metadata.labels?.[key] === value) return undefined;
  const next = structuredClone(ns);
  next.metadata.labels = { ...(next.metadata.labels ?? {}), [key]: value };
  return next;
}

export interface ManagedNamespaceReconcilerOptions {
  /** Spoke namespaces client (get/create/update). */
  namespaces: Pick<ResourceClient<Namespace>, 'get' | 'create' | 'update'>;
  /** Spoke namespaces currently labelled `<hub label>=true` (the filtered informer's lister). */
  listLabelledNamespaces(): Namespace[];
  /** `hubClusterSetLabel(hubHash(bootstrapServerUrl))`. */
  hubLabel: string;
}

export function createManagedNamespaceReconciler(opts: ManagedNamespaceReconcilerOptions): StatusReconciler {
  const { namespaces, hubLabel } = opts;

  /** Returns true when something was written. */
  const apply = async (name: string, value: string, signal: AbortSignal): Promise<boolean> => {
    let current: Namespace;
    try {
      current = await namespaces.get(name, { signal });
    } catch (err) {
      if (!isNotFound(err)) throw err;
      await namespaces.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { [hubLabel]: value } } }, { signal });
      return true;
    }
    const next = withLabel(current, hubLabel, value);
    if (!next) return false;
    await namespaces.update(next, { signal });
    return true;
  };

  const cleanup = async (keep: ReadonlySet<string>, ctx: StatusContext): Promise<Error | undefined> => {
    const errors: Error[] = [];
    const labelled = opts.listLabelledNamespaces().filter((ns) => ns.metadata.labels?.[hubLabel] === 'true');
    for (const ns of labelled) {
      const name = ns.metadata.name ?? '';
      if (keep.has(name)) continue;
      try {
        if (await apply(name, 'false', ctx.signal)) ctx.event('NamespaceUnmanaged', `Set namespace "${name}" as no longer managed`);
      } catch (err) {
        errors.push(new Error(`failed to update namespace "${name}": ${errorMessage(err)}`, { cause: err }));
      }
    }
    const agg = aggregate(errors);
    return agg ? new Error(`failed to cleanup previously managed namespaces: ${agg.message}`, { cause: agg }) : undefined;
  };

  return {
    name: 'managed-namespace',
    async reconcile(obj: ManagedCluster, ctx: StatusContext): Promise<StepResult> {
      const entries = obj.status?.managedNamespaces ?? [];
      if (obj.metadata.deletionTimestamp || entries.length === 0) {
        const error = await cleanup(new Set(), ctx);
        return { obj, next: 'continue', ...(error ? { error } : {}) };
      }
      const errors: Error[] = [];
      for (const entry of entries) {
        try {
          if (await apply(entry.name, 'true', ctx.signal)) {
            ctx.event('NamespaceApplied', `Applied managed namespace "${entry.name}" for cluster set "${entry.clusterSet}"`);
          }
          entry.conditions = setCondition(
            entry.conditions,
            { type: conditionTypes.namespaceAvailable, status: 'True', reason: reasons.namespaceApplied, message: 'Namespace successfully applied and managed' },
            ctx.now,
          );
        } catch (err) {
          entry.conditions = setCondition(
            entry.conditions,
            {
              type: conditionTypes.namespaceAvailable,
              status: 'False',
              reason: reasons.namespaceApplyFailed,
              message: `Failed to apply namespace: failed to apply namespace "${entry.name}": ${errorMessage(err)}`,
            },
            ctx.now,
          );
          errors.push(new Error(`failed to create namespace "${entry.name}": ${errorMessage(err)}`, { cause: err }));
        }
      }
      const cleanupErr = await cleanup(new Set(entries.map((e) => e.name)), ctx);
      if (cleanupErr) errors.push(cleanupErr);
      const error = aggregate(errors);
      return { obj, next: 'continue', ...(error ? { error } : {}) };
    },
  };
}
