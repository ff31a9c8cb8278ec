// The garbage collector, as kube-controller-manager runs it: objects whose owners (metadata.ownerReferences)
// are all gone are deleted; references to gone owners are dropped from objects that keep a live one;
// an owner deleted in the foreground waits for its blocking dependents, then loses its
// `foregroundDeletion` finalizer; an owner deleted with Orphan has its references removed from its
// dependents, then loses its `orphan` finalizer. Level-based: every decision reads the store, so a
// restart (which scans the store once) finishes whatever was left half done.

import type { KubeObject } from '../../api/meta.js';
import { ApiError } from '../http/errors.js';
import { CRD_GROUP } from '../registry/crd-resource.js';
import { FOREGROUND_FINALIZER, ORPHAN_FINALIZER } from '../registry/deletion-finalizers.js';
import { deleteObject } from '../registry/rest-deletes.js';
import { updateObject } from '../registry/rest-writes.js';
import type { ServedResource } from '../registry/types.js';
import { keyOf } from '../registry/versions.js';
import type { StoreEvent, StoredObject } from '../storage/types.js';
import { startKeyLoop } from './key-loop.js';
import { OwnerIndex } from './owner-index.js';
import {
  blocksOwner, classifyOwners, decideForDependent, hasDeletionFinalizer, ownerRefsOf, sameOwnerRefs, unblockedRefs, withoutOwners,
  type OwnerRef, type OwnerState,
} from './owner-references.js';
import { systemContext, systemScope, type ControllerOptions } from './system-writes.js';

export interface GarbageCollectorOptions extends ControllerOptions {
  /** Longest delay between two looks at an object whose owner kind is not served (default 60 s). */
  maxRetryMs?: number;
}

const CRD_PREFIX = `/${CRD_GROUP}/customresourcedefinitions/`;
/** How many objects one synchronous read of the start-up scan holds. */
const SCAN_PAGE = 500;
/** Reconcile time per event-loop turn before the loop yields to requests. */
const TURN_BUDGET_MS = 20;

/** `/<group or core>/<resource>/<namespace>/<name>` → its parts. */
function parseStoreKey(key: string): { group: string; resource: string; namespace: string; name: string } | undefined {
  const parts = key.split('/');
  if (parts.length !== 5 || parts[0] !== '') return undefined;
  const [, g = '', resource = '', namespace = '', name = ''] = parts;
  return { group: g === 'core' ? '' : g, resource, namespace, name };
}

function splitApiVersion(apiVersion: string): { group: string; version: string } | undefined {
  const parts = apiVersion.split('/');
  if (parts.length === 1 && parts[0]) return { group: '', version: parts[0] };
  if (parts.length === 2 && parts[0] && parts[1]) return { group: parts[0], version: parts[1] };
  return undefined;
}

const isNotFound = (err: unknown): boolean => err instanceof ApiError && err.code === 404;

export function startGarbageCollector(o: GarbageCollectorOptions): void {
  const sysCtx = systemContext(o.regCtx);
  const log = o.log.child({ controller: 'garbage-collector' });
  const maxRetryMs = o.maxRetryMs ?? 60_000;
  const index = new OwnerIndex();
  /** Owners deleting in the foreground: uid → store key (their dependents' changes wake them). */
  const foreground = new Map<string, string>();
  /** Objects waiting for an owner kind to be served → attempts so far (for the backoff). */
  const unresolved = new Map<string, number>();

  // Served kinds by `group/version/kind`, rebuilt when CRDs come and go.
  let kindsGeneration = -1;
  let kinds = new Map<string, ServedResource>();
  const servedKind = (group: string, version: string, kind: string): ServedResource | undefined => {
    if (kindsGeneration !== o.registry.generation) {
      kinds = new Map();
      for (const r of o.registry.all()) for (const v of r.def.versions) kinds.set(`${r.def.group}/${v}/${r.def.kind}`, r);
      kindsGeneration = o.registry.generation;
    }
    return kinds.get(`${group}/${version}/${kind}`);
  };
  const servedForKey = (key: string): { served: ServedResource; namespace: string; name: string } | undefined => {
    const p = parseStoreKey(key);
    const served = p && o.registry.byStorage(p.group, p.resource)[0];
    return p && served ? { served, namespace: p.namespace, name: p.name } : undefined;
  };

  const ownerState = (ref: OwnerRef, depNamespace: string): OwnerState => {
    const gv = splitApiVersion(ref.apiVersion);
    const served = gv && servedKind(gv.group, gv.version, ref.kind);
    if (!served) return { kind: 'unresolved' };
    if (served.def.namespaced && depNamespace === '') return { kind: 'invalidScope' };
    const owner = o.store.get(keyOf(served, depNamespace, ref.name));
    if (!owner || owner.object.metadata.uid !== ref.uid) return { kind: 'absent' };
    return { kind: 'live', deletingDependents: hasDeletionFinalizer(owner.object, FOREGROUND_FINALIZER) };
  };

  /** Writes `obj` with other owner references (the server's own update, no admission). */
  const writeOwnerRefs = (key: string, cur: StoredObject, refs: OwnerRef[]): StoredObject | undefined => {
    const at = servedForKey(key);
    if (!at) return undefined;
    const metadata = { ...cur.object.metadata };
    if (refs.length > 0) metadata.ownerReferences = refs;
    else delete metadata.ownerReferences;
    const scope = systemScope(at.served, at.served.def.storageVersion, at.namespace);
    const res = updateObject(sysCtx, scope, at.name, { ...cur.object, metadata }, { subresource: '', allowEmptyResourceVersion: true }, cur);
    return o.store.get(key) ?? (res.deleted ? undefined : cur);
  };

  const removeFinalizer = (key: string, cur: StoredObject, finalizer: string): void => {
    const at = servedForKey(key);
    if (!at) return;
    const finalizers = (cur.object.metadata.finalizers ?? []).filter((f) => f !== finalizer);
    const scope = systemScope(at.served, at.served.def.storageVersion, at.namespace);
    updateObject(sysCtx, scope, at.name, { ...cur.object, metadata: { ...cur.object.metadata, finalizers } }, { subresource: '', allowEmptyResourceVersion: true }, cur);
    log.debug('removed finalizer', { key, finalizer });
  };

  /** Drops the owner's references from every dependent, then the owner's `orphan` finalizer. */
  const orphanDependents = (key: string, cur: StoredObject): void => {
    const uid = cur.object.metadata.uid ?? '';
    for (const depKey of index.dependentsOf(uid)) {
      const dep = o.store.get(depKey);
      if (!dep) continue;
      const refs = ownerRefsOf(dep.object);
      if (!refs.some((r) => r.uid === uid)) continue;
      writeOwnerRefs(depKey, dep, withoutOwners(refs, [uid]));
      log.debug('orphaned dependent', { key: depKey, owner: key });
    }
    removeFinalizer(key, cur, ORPHAN_FINALIZER);
  };

  /** Removes `foregroundDeletion` once no dependent blocks; until then makes sure they are being deleted. */
  const finishForeground = (key: string, cur: StoredObject): void => {
    const uid = cur.object.metadata.uid ?? '';
    const blocking: StoredObject[] = [];
    for (const depKey of index.dependentsOf(uid)) {
      const dep = o.store.get(depKey);
      if (dep && blocksOwner(dep.object, uid)) blocking.push(dep);
    }
    if (blocking.length === 0) {
      removeFinalizer(key, cur, FOREGROUND_FINALIZER);
      return;
    }
    for (const dep of blocking) if (!hasDeletionFinalizer(dep.object, FOREGROUND_FINALIZER)) loop.enqueue(dep.key);
  };

  const collect = (key: string, cur: StoredObject, refs: OwnerRef[]): number | undefined => {
    const namespace = parseStoreKey(key)?.namespace ?? '';
    const c = classifyOwners(refs, (ref) => ownerState(ref, namespace));
    const uid = cur.object.metadata.uid ?? '';
    const dependents = c.waiting.length > 0 && c.solid.length === 0 ? index.dependentsOf(uid) : [];
    const action = decideForDependent(c, {
      finalizers: cur.object.metadata.finalizers ?? [],
      hasDependents: index.hasDependents(uid),
      aDependentIsDeletingDependents: dependents.some((k) => {
        const d = o.store.get(k);
        return d !== undefined && hasDeletionFinalizer(d.object, FOREGROUND_FINALIZER);
      }),
    });
    if (action.kind === 'retry') {
      const attempts = (unresolved.get(key) ?? 0) + 1;
      unresolved.set(key, attempts);
      return Math.min(maxRetryMs, o.retryMs * 2 ** Math.min(attempts - 1, 20));
    }
    unresolved.delete(key);
    if (action.kind === 'none') return undefined;
    if (action.kind === 'removeRefs') {
      writeOwnerRefs(key, cur, withoutOwners(refs, action.uids));
      log.debug('removed references to gone owners', { key, owners: action.uids });
      return undefined;
    }
    let target: StoredObject | undefined = cur;
    if (action.unblockFirst) target = writeOwnerRefs(key, cur, unblockedRefs(refs));
    const at = servedForKey(key);
    if (!target || !at) return undefined;
    const scope = systemScope(at.served, at.served.def.storageVersion, at.namespace);
    try {
      deleteObject(sysCtx, scope, at.name, { preconditions: { uid }, propagationPolicy: action.policy });
      log.debug('deleted dependent', { key, propagationPolicy: action.policy });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    return undefined;
  };

  const reconcile = (key: string): number | undefined => {
    const cur = o.store.get(key);
    if (!cur) {
      unresolved.delete(key);
      return undefined;
    }
    const obj = cur.object;
    if (obj.metadata.deletionTimestamp) {
      // Already on its way out: only its own deletion finalizers concern the collector.
      if (hasDeletionFinalizer(obj, ORPHAN_FINALIZER)) orphanDependents(key, cur);
      else if (hasDeletionFinalizer(obj, FOREGROUND_FINALIZER)) finishForeground(key, cur);
      return undefined;
    }
    const refs = ownerRefsOf(obj);
    return refs.length > 0 ? collect(key, cur, refs) : undefined;
  };

  /** Keeps the index and the foreground set current; returns what the event wakes up. */
  const keysOfEvent = (ev: StoreEvent): string[] => {
    const keys: string[] = [];
    const uid = ev.object.metadata.uid ?? '';
    const before = ev.prevObject ? ownerRefsOf(ev.prevObject) : [];
    const wakeForegroundOwners = (refs: OwnerRef[]): void => {
      for (const r of refs) {
        const ownerKey = foreground.get(r.uid);
        if (ownerKey !== undefined) keys.push(ownerKey);
      }
    };
    if (ev.key.startsWith(CRD_PREFIX)) {
      // A new kind may now resolve what could not be.
      for (const k of unresolved.keys()) keys.push(k);
      unresolved.clear();
    }
    if (ev.type === 'DELETED') {
      index.remove(ev.key);
      foreground.delete(uid);
      wakeForegroundOwners(before);
      wakeForegroundOwners(ownerRefsOf(ev.object));
      return [...keys, ...index.dependentsOf(uid)];
    }
    const refs = ownerRefsOf(ev.object);
    if (ev.type === 'ADDED' || !sameOwnerRefs(before, refs)) {
      index.set(ev.key, refs);
      if (refs.length > 0) keys.push(ev.key);
      wakeForegroundOwners(before);
      wakeForegroundOwners(refs);
    }
    if (hasDeletionFinalizer(ev.object, FOREGROUND_FINALIZER)) {
      if (!foreground.has(uid)) {
        foreground.set(uid, ev.key);
        keys.push(...index.dependentsOf(uid));
      }
      keys.push(ev.key);
    } else {
      foreground.delete(uid);
      if (hasDeletionFinalizer(ev.object, ORPHAN_FINALIZER)) keys.push(ev.key);
    }
    return keys;
  };

  // The start-up scan and the watch start in the same synchronous turn (the store is synchronous),
  // so no write falls between them.
  const initial = scan();
  const loop = startKeyLoop({
    name: 'garbage-collector',
    store: o.store,
    prefix: '/',
    keyOf: () => undefined,
    keysOfEvent,
    reconcile,
    initialKeys: () => [],
    retryMs: o.retryMs,
    turnBudgetMs: TURN_BUDGET_MS,
    clock: o.clock,
    log: o.log,
    signal: o.signal,
  });
  for (const k of initial) loop.enqueue(k);
  log.debug('garbage collector started', { objectsWithOwners: index.size, toCheck: initial.length });

  /** Indexes every object; returns those the collector must look at. */
  function scan(): string[] {
    const keys: string[] = [];
    let after: string | undefined;
    for (;;) {
      const page = o.store.list('/', { limit: SCAN_PAGE, ...(after !== undefined ? { startAfterKey: after } : {}) });
      for (const it of page.items) note(it.key, it.object, keys);
      if (page.continueAfterKey === undefined) return keys;
      after = page.continueAfterKey;
    }
  }

  function note(key: string, obj: KubeObject, keys: string[]): void {
    const refs = ownerRefsOf(obj);
    index.set(key, refs);
    if (refs.length > 0) keys.push(key);
    if (hasDeletionFinalizer(obj, FOREGROUND_FINALIZER)) {
      foreground.set(obj.metadata.uid ?? '', key);
      keys.push(key);
    } else if (hasDeletionFinalizer(obj, ORPHAN_FINALIZER)) keys.push(key);
  }
}
