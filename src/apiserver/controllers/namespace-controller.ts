// Namespaces, as kube-controller-manager's namespace, service account and root CA publisher
// controllers keep them: for live namespaces, ensure the `default` ServiceAccount and the
// `kube-root-ca.crt` ConfigMap; for terminating ones, delete their content, then remove the
// `kubernetes` finalizer (the namespace is removed once no finalizer is left).

import { rfc3339 } from '../../api/conditions.js';
import type { Condition, KubeObject } from '../../api/meta.js';
import { ApiError } from '../http/errors.js';
import type { RegistryContext, RequestScope } from '../registry/rest-context.js';
import { deleteObject } from '../registry/rest-deletes.js';
import { createObject, loadCurrent, updateObject } from '../registry/rest-writes.js';
import { prefixOf } from '../registry/versions.js';
import { nameOfKey, startKeyLoop } from './key-loop.js';
import { builtinResource, systemContext, systemScope, type ControllerOptions } from './system-writes.js';

export interface NamespaceControllerOptions extends ControllerOptions {
  caPem?: string;
}

const NS_PREFIX = '/core/namespaces/';

function ensure(ctx: RegistryContext, scope: RequestScope, obj: KubeObject): void {
  try {
    createObject(ctx, scope, obj);
  } catch (err) {
    if (err instanceof ApiError && (err.reason === 'AlreadyExists' || err.code === 403 || err.code === 404)) return;
    throw err;
  }
}

/** Summary of what is left in a terminating namespace, e.g. `configmaps. has 1 resource instances`. */
function remainingMessage(counts: Map<string, number>): string {
  return [...counts.entries()].map(([r, n]) => `${r} has ${n} resource instances`).join(', ');
}

export function startNamespaceController(o: NamespaceControllerOptions): void {
  const sysCtx = systemContext(o.regCtx);
  const nsServed = builtinResource(o.registry, '', 'namespaces');
  const nsScope = (name: string): RequestScope => systemScope(nsServed, 'v1', name);

  const ensureDefaults = (ns: string): void => {
    ensure(sysCtx, systemScope(builtinResource(o.registry, '', 'serviceaccounts'), 'v1', ns),
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: ns } });
    if (o.caPem) {
      ensure(sysCtx, systemScope(builtinResource(o.registry, '', 'configmaps'), 'v1', ns),
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kube-root-ca.crt', namespace: ns }, data: { 'ca.crt': o.caPem } });
    }
  };

  const writeConditions = (name: string, conds: Condition[]): void => {
    const cur = loadCurrent(sysCtx, nsScope(name), name);
    const status = { ...((cur.object.status as Record<string, unknown> | undefined) ?? {}), conditions: conds };
    updateObject(sysCtx, nsScope(name), name, { ...cur.object, status }, { subresource: 'status', allowEmptyResourceVersion: true }, cur);
  };

  const cleanup = (ns: KubeObject): number | undefined => {
    const name = ns.metadata.name ?? '';
    const seen = new Set<string>();
    const counts = new Map<string, number>();
    const finalizersLeft = new Set<string>();
    for (const r of o.registry.all()) {
      if (!r.def.namespaced) continue;
      const loc = `${r.storageGroup}/${r.storageResource}`;
      if (seen.has(loc)) continue;
      seen.add(loc);
      const items = o.store.list(prefixOf(r, name)).items;
      for (const it of items) {
        const scope = systemScope(r, r.def.storageVersion, name);
        try {
          const res = deleteObject(sysCtx, scope, it.object.metadata.name ?? '', {});
          if (res.kind === 'pending') {
            const label = r.def.group ? `${r.def.resource}.${r.def.group}` : `${r.def.resource}.`;
            counts.set(label, (counts.get(label) ?? 0) + 1);
            for (const f of res.object.metadata.finalizers ?? []) finalizersLeft.add(f);
          }
        } catch (err) {
          if (!(err instanceof ApiError && err.code === 404)) throw err;
        }
      }
    }
    const now = rfc3339(new Date(o.clock.now()));
    const falseCond = (type: string, reason: string, message: string): Condition => ({ type, status: 'False', reason, message, lastTransitionTime: now });
    const conds: Condition[] = [
      falseCond('NamespaceDeletionDiscoveryFailure', 'ResourcesDiscovered', 'All resources successfully discovered'),
      falseCond('NamespaceDeletionGroupVersionParsingFailure', 'ParsedGroupVersions', 'All legacy kube types successfully parsed'),
      falseCond('NamespaceDeletionContentFailure', 'ContentDeleted', 'All content successfully deleted, may be waiting on finalization'),
      counts.size > 0
        ? { type: 'NamespaceContentRemaining', status: 'True', reason: 'SomeResourcesRemain', message: `Some resources are remaining: ${remainingMessage(counts)}`, lastTransitionTime: now }
        : falseCond('NamespaceContentRemaining', 'ContentRemoved', 'All content successfully removed'),
      finalizersLeft.size > 0
        ? { type: 'NamespaceFinalizersRemaining', status: 'True', reason: 'SomeFinalizersRemain', message: `Some content in the namespace has finalizers remaining: ${[...finalizersLeft].join(', ')}`, lastTransitionTime: now }
        : falseCond('NamespaceFinalizersRemaining', 'ContentHasNoFinalizers', 'All content-preserving finalizers finished'),
    ];
    const prev = ((ns.status as { conditions?: Condition[] } | undefined)?.conditions ?? []);
    const same = prev.length === conds.length && prev.every((p, i) => p.type === conds[i]?.type && p.status === conds[i]?.status && p.message === conds[i]?.message);
    if (!same) writeConditions(name, conds);
    if (counts.size > 0) return o.retryMs;
    const cur = loadCurrent(sysCtx, nsScope(name), name);
    const spec = (cur.object.spec as { finalizers?: string[] } | undefined) ?? {};
    const finalizers = (spec.finalizers ?? []).filter((f) => f !== 'kubernetes');
    updateObject(sysCtx, nsScope(name), name, { ...cur.object, spec: { ...spec, finalizers } }, { subresource: 'finalize', allowEmptyResourceVersion: true }, cur);
    return undefined;
  };

  const reconcile = (name: string): number | undefined => {
    const stored = o.store.get(`${NS_PREFIX}/${name}`);
    if (!stored) return undefined;
    if (stored.object.metadata.deletionTimestamp) return cleanup(stored.object);
    ensureDefaults(name);
    return undefined;
  };

  startKeyLoop({
    name: 'namespace-controller',
    store: o.store,
    prefix: NS_PREFIX,
    keyOf: nameOfKey,
    reconcile,
    initialKeys: () => o.store.list(NS_PREFIX).items.map((i) => nameOfKey(i.key)),
    retryMs: o.retryMs,
    clock: o.clock,
    log: o.log,
    signal: o.signal,
  });
}
