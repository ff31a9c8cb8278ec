// "Apply" of RBAC manifests and the cluster namespace: create what is missing, otherwise merge labels
// and annotations into the existing object and update it only when something differs.

import type { Namespace } from '../../api/core.js';
import type { KubeObject } from '../../api/meta.js';
import { isAlreadyExists, isNotFound } from '../../client/errors.js';
import { resourceTypes } from '../../client/resource-types.js';
import type { KubeClient, Lister, ResourceType } from '../../client/types.js';
import type { Logger } from '../../util/logger.js';
import { mergeRbacForUpdate, type RbacObject } from '../rbac-manifests.js';
import { errorMessage } from '../../util/errors.js';

export interface RbacListers {
  clusterRoles: Lister<KubeObject>;
  clusterRoleBindings: Lister<KubeObject>;
  roleBindings: Lister<KubeObject>;
}

function typeOf(obj: RbacObject): { type: ResourceType; lister: keyof RbacListers } {
  switch (obj.kind) {
    case 'ClusterRole':
      return { type: resourceTypes.clusterRoles, lister: 'clusterRoles' };
    case 'ClusterRoleBinding':
      return { type: resourceTypes.clusterRoleBindings, lister: 'clusterRoleBindings' };
    default:
      return { type: resourceTypes.roleBindings, lister: 'roleBindings' };
  }
}

function describeManifest(obj: RbacObject): string {
  return `"${obj.metadata.namespace ? obj.metadata.namespace + '/' : ''}${obj.metadata.name}" (${obj.kind})`;
}

/**
 * Creates or updates one RBAC object from the label-filtered cache. Returns an error instead of throwing;
 * callers decide whether to swallow it (OCM's applier logs API errors and drops them, so they never
 * turn the HubAcceptedManagedCluster condition to Error).
 */
async function applyRbac(client: KubeClient, listers: RbacListers, required: RbacObject, signal: AbortSignal): Promise<Error | undefined> {
  const { type, lister } = typeOf(required);
  const ns = required.metadata.namespace;
  const rc = client.resource<RbacObject>(type, ns);
  const name = required.metadata.name ?? '';
  try {
    let existing = listers[lister].get(name, ns) as RbacObject | undefined;
    if (!existing) {
      try {
        await rc.create(structuredClone(required), { signal });
        return undefined;
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
        existing = await rc.get(name, { signal });
      }
    }
    const update = mergeRbacForUpdate(existing, required);
    if (update) await rc.update(update, { signal });
    return undefined;
  } catch (err) {
    return new Error(`${describeManifest(required)}: ${errorMessage(err)}`, { cause: err });
  }
}

/**
 * Applies a list in order; failures are logged as warnings and returned (the caller may swallow them).
 * With `concurrently` every object is written at once (one round trip instead of one per object):
 * only for objects that do not need each other, since the server refuses a binding to a role that
 * does not exist yet when its author may not `bind`.
 */
export async function applyRbacList(
  client: KubeClient,
  listers: RbacListers,
  list: readonly RbacObject[],
  log: Logger,
  signal: AbortSignal,
  opts: { concurrently?: boolean } = {},
): Promise<Error[]> {
  const results: Array<Error | undefined> = [];
  if (opts.concurrently) results.push(...(await Promise.all(list.map((obj) => applyRbac(client, listers, obj, signal)))));
  else for (const obj of list) results.push(await applyRbac(client, listers, obj, signal));
  const errors: Error[] = [];
  results.forEach((err, i) => {
    if (!err) return;
    log.warn('apply failed', { manifest: describeManifest(list[i]!), err });
    errors.push(err);
  });
  return errors;
}

/** Deletes by name in order; NotFound is success; errors `"<file>" (<type>): <err>`. */
export async function deleteRbacList(client: KubeClient, list: readonly RbacObject[], signal: AbortSignal): Promise<Error[]> {
  const errors: Error[] = [];
  for (const obj of list) {
    const rc = client.resource(typeOf(obj).type, obj.metadata.namespace);
    try {
      await rc.delete(obj.metadata.name ?? '', { signal });
    } catch (err) {
      if (!isNotFound(err)) errors.push(new Error(`${describeManifest(obj)}: ${errorMessage(err)}`, { cause: err }));
    }
  }
  return errors;
}

/**
 * Namespace apply: read (from the label-filtered cache when given, else the API), create if missing,
 * merge labels and update only when changed. A namespace without the label is not in the cache: the
 * create then fails with AlreadyExists and the live object is read and labelled.
 */
export async function applyNamespace(client: KubeClient, name: string, labels: Record<string, string>, signal: AbortSignal, cache?: Lister<KubeObject>): Promise<void> {
  const rc = client.resource<Namespace>(resourceTypes.namespaces);
  let existing: Namespace;
  try {
    const cached = cache?.get(name) as Namespace | undefined;
    if (cache && !cached) throw new NotCached();
    existing = cached ?? (await rc.get(name, { signal }));
  } catch (err) {
    if (!(err instanceof NotCached) && !isNotFound(err)) throw err;
    try {
      await rc.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { ...labels } } }, { signal });
      return;
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
      existing = await rc.get(name, { signal });
    }
  }
  const cur = existing.metadata.labels ?? {};
  if (Object.entries(labels).every(([k, v]) => cur[k] === v)) return;
  const next = structuredClone(existing);
  next.metadata.labels = { ...cur, ...labels };
  await rc.update(next, { signal });
}

class NotCached extends Error {}
