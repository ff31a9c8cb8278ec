// Applies the rendered objects on the imported cluster, as OCM's resource applier does: create what
// is missing; otherwise keep the existing object's metadata, merge in the required labels and
// annotations, and update it only when its content (everything but metadata and status) differs.
// A Namespace that exists is left alone.

import type { KubeObject } from '../../api/meta.js';
import { isAlreadyExists, isNotFound, NetworkError } from '../../client/errors.js';
import { resourceTypes } from '../../client/resource-types.js';
import type { KubeClient, ResourceType } from '../../client/types.js';
import { semanticEqual } from '../../util/merge-patch.js';
import { errorMessage } from '../../util/errors.js';

const DEPLOYMENTS: ResourceType = Object.freeze({ group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespaced: true });

const TYPES: Readonly<Record<string, ResourceType>> = {
  Namespace: resourceTypes.namespaces,
  ServiceAccount: resourceTypes.serviceAccounts,
  Secret: resourceTypes.secrets,
  Role: resourceTypes.roles,
  RoleBinding: resourceTypes.roleBindings,
  ClusterRole: resourceTypes.clusterRoles,
  ClusterRoleBinding: resourceTypes.clusterRoleBindings,
  Deployment: DEPLOYMENTS,
};

const describe = (o: KubeObject): string => `${o.kind ?? ''} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name ?? ''}`;

/** The object to write over `existing`, or undefined when it already matches `required`. Pure. */
export function mergeForUpdate(existing: KubeObject, required: KubeObject): KubeObject | undefined {
  const labels = { ...(existing.metadata.labels ?? {}), ...(required.metadata.labels ?? {}) };
  const annotations = { ...(existing.metadata.annotations ?? {}), ...(required.metadata.annotations ?? {}) };
  let changed = !semanticEqual(labels, existing.metadata.labels ?? {}) || !semanticEqual(annotations, existing.metadata.annotations ?? {});
  const out: KubeObject = { ...existing, metadata: { ...existing.metadata, labels, annotations } };
  for (const [field, value] of Object.entries(required)) {
    if (field === 'metadata' || field === 'status' || field === 'apiVersion' || field === 'kind') continue;
    if (!semanticEqual(existing[field], value)) {
      out[field] = value;
      changed = true;
    }
  }
  return changed ? out : undefined;
}

async function applyOne(client: KubeClient, required: KubeObject, signal: AbortSignal): Promise<void> {
  const type = TYPES[required.kind ?? ''];
  if (!type) throw new Error(`${describe(required)}: kind not supported by the importer`);
  const rc = client.resource(type, type.namespaced ? required.metadata.namespace : undefined);
  const name = required.metadata.name ?? '';
  let existing: KubeObject;
  try {
    existing = await rc.get(name, { signal });
  } catch (err) {
    if (!isNotFound(err)) throw err;
    try {
      await rc.create(structuredClone(required), { signal });
      return;
    } catch (createErr) {
      if (!isAlreadyExists(createErr)) throw createErr;
      existing = await rc.get(name, { signal });
    }
  }
  if (required.kind === 'Namespace') return;
  const update = mergeForUpdate(existing, required);
  if (update) await rc.update(update, { signal });
}

/**
 * Applies every object in order and returns the failures, one per object. An unreachable cluster
 * stops the run at the first object: the others would only wait for the same timeout.
 */
export async function applyRemote(client: KubeClient, objects: readonly KubeObject[], signal: AbortSignal): Promise<Error[]> {
  const errors: Error[] = [];
  for (const obj of objects) {
    try {
      await applyOne(client, obj, signal);
    } catch (err) {
      errors.push(new Error(`${describe(obj)}: ${errorMessage(err)}`, { cause: err }));
      if (err instanceof NetworkError || signal.aborted) break;
    }
  }
  return errors;
}
