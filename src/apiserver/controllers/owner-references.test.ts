import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../api/meta.js';
import {
  blocksOwner, classifyOwners, decideForDependent, ownerRefsOf, sameOwnerRefs, unblockedRefs, withoutOwners,
  type Classification, type DependentAction, type DependentFacts, type OwnerRef, type OwnerState,
} from './owner-references.js';

const ref = (uid: string, extra: Partial<OwnerRef> = {}): OwnerRef => ({ apiVersion: 'v1', kind: 'ConfigMap', name: `n-${uid}`, uid, ...extra });
const facts = (f: Partial<DependentFacts> = {}): DependentFacts => ({ finalizers: [], hasDependents: false, aDependentIsDeletingDependents: false, ...f });

test('should classify owners, the first unanswerable lookup stopping the classification', () => {
  const states: Record<string, OwnerState> = {
    live: { kind: 'live', deletingDependents: false }, waits: { kind: 'live', deletingDependents: true },
    gone: { kind: 'absent' }, crd: { kind: 'unresolved' }, bad: { kind: 'invalidScope' },
  };
  const of = (r: OwnerRef): OwnerState => states[r.uid] ?? { kind: 'absent' };
  assert.deepEqual(classifyOwners([ref('live'), ref('waits'), ref('gone')], of), { solid: [ref('live')], dangling: [ref('gone')], waiting: [ref('waits')] });
  assert.equal(classifyOwners([ref('gone'), ref('crd'), ref('bad')], of).error, 'unresolved');
  assert.equal(classifyOwners([ref('bad'), ref('crd')], of).error, 'invalidScope');
});

test('should decide what happens to a dependent', () => {
  const c = (p: Partial<Classification>): Classification => ({ solid: [], dangling: [], waiting: [], ...p });
  const cases: { name: string; c: Classification; f?: Partial<DependentFacts>; expected: DependentAction }[] = [
    { name: 'live owner only', c: c({ solid: [ref('a')] }), expected: { kind: 'none' } },
    { name: 'live owner and a gone one', c: c({ solid: [ref('a')], dangling: [ref('b')], waiting: [ref('w')] }), expected: { kind: 'removeRefs', uids: ['b', 'w'] } },
    { name: 'all gone', c: c({ dangling: [ref('b')] }), expected: { kind: 'delete', policy: 'Background', unblockFirst: false } },
    { name: 'all gone, own orphan finalizer', c: c({ dangling: [ref('b')] }), f: { finalizers: ['orphan'] }, expected: { kind: 'delete', policy: 'Orphan', unblockFirst: false } },
    { name: 'all gone, own foreground finalizer', c: c({ dangling: [ref('b')] }), f: { finalizers: ['foregroundDeletion'] }, expected: { kind: 'delete', policy: 'Foreground', unblockFirst: false } },
    { name: 'owner waits, no dependents', c: c({ waiting: [ref('w')] }), expected: { kind: 'delete', policy: 'Background', unblockFirst: false } },
    { name: 'owner waits, dependents', c: c({ waiting: [ref('w')] }), f: { hasDependents: true }, expected: { kind: 'delete', policy: 'Foreground', unblockFirst: false } },
    { name: 'owner waits, a dependent waits too (cycle)', c: c({ waiting: [ref('w')] }), f: { hasDependents: true, aDependentIsDeletingDependents: true }, expected: { kind: 'delete', policy: 'Foreground', unblockFirst: true } },
    { name: 'owner kind not served', c: c({ error: 'unresolved' }), expected: { kind: 'retry' } },
    { name: 'cluster-scoped object naming a namespaced kind', c: c({ error: 'invalidScope' }), expected: { kind: 'none' } },
  ];
  for (const t of cases) assert.deepEqual(decideForDependent(t.c, facts(t.f)), t.expected, t.name);
});

test('should read, compare and rewrite owner references', () => {
  const obj: KubeObject = { metadata: { name: 'x', ownerReferences: [ref('a', { blockOwnerDeletion: true }), { bogus: 1 } as unknown as OwnerRef, ref('b')] } };
  assert.deepEqual(ownerRefsOf(obj), [ref('a', { blockOwnerDeletion: true }), ref('b')]);
  assert.deepEqual(ownerRefsOf({ metadata: { name: 'y' } }), []);
  assert.ok(blocksOwner(obj, 'a'));
  assert.ok(!blocksOwner(obj, 'b'));
  assert.ok(sameOwnerRefs([ref('a')], [ref('a', { blockOwnerDeletion: false })]));
  assert.ok(!sameOwnerRefs([ref('a')], [ref('a', { blockOwnerDeletion: true })]));
  assert.deepEqual(withoutOwners([ref('a'), ref('b')], ['a']), [ref('b')]);
  assert.deepEqual(unblockedRefs([ref('a', { blockOwnerDeletion: true }), ref('b')]), [ref('a', { blockOwnerDeletion: false }), ref('b')]);
});
