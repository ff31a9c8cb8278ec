// CRD lifecycle, as apiextensions-apiserver's naming, establishing and finalizer controllers run it:
// names check → NamesAccepted/Established → served; on deletion the
// custom resources are deleted, then the cleanup finalizer is removed.

import { setCondition } from '../../api/conditions.js';
import type { Condition, KubeObject } from '../../api/meta.js';
import { crdResource, crdSpec, CRD_CLEANUP_FINALIZER, CRD_GROUP, type CrdSpec } from '../registry/crd-resource.js';
import { customResource, type SchemaOps } from '../registry/custom-resource.js';
import { deleteObject } from '../registry/rest-deletes.js';
import { loadCurrent, updateObject } from '../registry/rest-writes.js';
import type { ServedResource } from '../registry/types.js';
import { prefixOf } from '../registry/versions.js';
import { nameOfKey, startKeyLoop } from './key-loop.js';
import { systemContext, systemScope, type ControllerOptions } from './system-writes.js';

export interface CrdEstablisherOptions extends ControllerOptions {
  schemaOps?: SchemaOps;
}

const CRD_PREFIX = `/${CRD_GROUP}/customresourcedefinitions/`;

/** Which accepted-names condition a CRD gets against the other resources of its group. Pure. */
function namesConflict(spec: CrdSpec, others: ServedResource[]): { reason: string; message: string } | undefined {
  const n = spec.names;
  for (const o of others) {
    const d = o.def;
    if (d.group !== spec.group) continue;
    if (d.resource === n.plural) return { reason: 'PluralConflict', message: `"${n.plural}" is already in use` };
    if (n.singular && (d.singular === n.singular || d.resource === n.singular)) return { reason: 'SingularConflict', message: `"${n.singular}" is already in use` };
    for (const s of n.shortNames ?? []) {
      if (d.shortNames.includes(s) || d.resource === s) return { reason: 'ShortNamesConflict', message: `"${s}" is already in use` };
    }
    if (d.kind === n.kind) return { reason: 'KindConflict', message: `"${n.kind}" is already in use` };
    if (d.listKind === (n.listKind ?? `${n.kind}List`)) return { reason: 'ListKindConflict', message: `"${n.listKind}" is already in use` };
  }
  return undefined;
}

export function startCrdEstablisher(o: CrdEstablisherOptions): void {
  const crdServed = crdResource();
  const crdScope = systemScope(crdServed, 'v1', '');
  const sysCtx = systemContext(o.regCtx);

  const writeStatus = (crd: KubeObject, status: Record<string, unknown>): void => {
    const cur = loadCurrent(sysCtx, crdScope, crd.metadata.name ?? '');
    updateObject(sysCtx, crdScope, crd.metadata.name ?? '', { ...cur.object, status }, { subresource: 'status', allowEmptyResourceVersion: true }, cur);
  };

  const reconcile = (name: string): number | undefined => {
    const stored = o.store.get(`${CRD_PREFIX}/${name}`);
    if (!stored) {
      o.registry.setCustom(name, undefined);
      return undefined;
    }
    const crd = stored.object;
    const spec = crdSpec(crd);
    const now = new Date(o.clock.now());
    const status = { ...((crd.status as Record<string, unknown> | undefined) ?? {}) };
    let conds = Array.isArray(status.conditions) ? [...(status.conditions as Condition[])] : [];
    if (crd.metadata.deletionTimestamp) {
      const served = o.registry.getCustom(name) ?? customResource(spec, o.schemaOps);
      // Stop creates while terminating; keep reads, updates and deletes working.
      o.registry.setCustom(name, { ...served, def: { ...served.def, verbs: served.def.verbs.filter((v) => v !== 'create') } });
      conds = setCondition(conds, { type: 'Terminating', status: 'True', reason: 'InstanceDeletionInProgress', message: 'CustomResource deletion is in progress' }, now);
      writeStatus(crd, { ...status, conditions: conds });
      const items = o.store.list(prefixOf(served, '')).items;
      let remaining = 0;
      for (const it of items) {
        const scope = systemScope(served, served.def.storageVersion, it.object.metadata.namespace ?? '');
        try {
          const r = deleteObject(sysCtx, scope, it.object.metadata.name ?? '', {});
          if (r.kind === 'pending') remaining++;
        } catch (err) {
          o.log.debug('deleting custom resource failed', { key: it.key, err });
          remaining++;
        }
      }
      if (remaining > 0) return o.retryMs;
      conds = setCondition(conds, { type: 'Terminating', status: 'False', reason: 'InstanceDeletionCompleted', message: 'removed all instances' }, now);
      writeStatus(crd, { ...status, conditions: conds });
      const cur = loadCurrent(sysCtx, crdScope, name);
      const finalizers = (cur.object.metadata.finalizers ?? []).filter((f) => f !== CRD_CLEANUP_FINALIZER);
      updateObject(sysCtx, crdScope, name, { ...cur.object, metadata: { ...cur.object.metadata, finalizers } }, { subresource: '', allowEmptyResourceVersion: true }, cur);
      o.registry.setCustom(name, undefined);
      return undefined;
    }
    const others = o.registry.all().filter((r) => !(r.custom && r.storageGroup === spec.group && r.storageResource === spec.names.plural));
    const conflict = namesConflict(spec, others);
    if (conflict) {
      o.registry.setCustom(name, undefined);
      conds = setCondition(conds, { type: 'NamesAccepted', status: 'False', reason: conflict.reason, message: conflict.message }, now);
      conds = setCondition(conds, { type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' }, now);
      writeStatus(crd, { ...status, conditions: conds });
      return undefined;
    }
    o.registry.setCustom(name, customResource(spec, o.schemaOps));
    const n = spec.names;
    const acceptedNames = {
      plural: n.plural, singular: n.singular ?? n.kind.toLowerCase(), kind: n.kind, listKind: n.listKind ?? `${n.kind}List`,
      ...(n.shortNames ? { shortNames: n.shortNames } : {}), ...(n.categories ? { categories: n.categories } : {}),
    };
    conds = setCondition(conds, { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' }, now);
    conds = setCondition(conds, { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' }, now);
    writeStatus(crd, { ...status, acceptedNames, conditions: conds });
    return undefined;
  };

  startKeyLoop({
    name: 'crd-establisher',
    store: o.store,
    prefix: CRD_PREFIX,
    keyOf: nameOfKey,
    reconcile,
    initialKeys: () => o.store.list(CRD_PREFIX).items.map((i) => nameOfKey(i.key)),
    retryMs: o.retryMs,
    clock: o.clock,
    log: o.log,
    signal: o.signal,
  });
}
