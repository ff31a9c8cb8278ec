import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  defaultGcPolicy, deletionFinalizers, namespaceDeletionFinalizers, type DefaultGcPolicy, type PropagationRequest,
} from './deletion-finalizers.js';

test('should turn the request, the present finalizers and the default into the generic store\'s finalizers', () => {
  const cases: { name: string; policy?: DefaultGcPolicy; req: PropagationRequest; finalizers: string[]; expected: string[] }[] = [
    { name: 'default Background adds nothing', req: {}, finalizers: [], expected: [] },
    { name: 'Foreground', req: { propagationPolicy: 'Foreground' }, finalizers: ['a'], expected: ['a', 'foregroundDeletion'] },
    { name: 'Orphan', req: { propagationPolicy: 'Orphan' }, finalizers: [], expected: ['orphan'] },
    { name: 'orphanDependents true', req: { orphanDependents: true }, finalizers: [], expected: ['orphan'] },
    { name: 'orphanDependents false is Background', req: { orphanDependents: false }, finalizers: ['foregroundDeletion'], expected: [] },
    { name: 'Background releases a Foreground deletion', req: { propagationPolicy: 'Background' }, finalizers: ['x', 'foregroundDeletion'], expected: ['x'] },
    { name: 'Orphan replaces foregroundDeletion', req: { propagationPolicy: 'Orphan' }, finalizers: ['foregroundDeletion', 'x'], expected: ['x', 'orphan'] },
    { name: 'no request keeps the present GC finalizer', req: {}, finalizers: ['orphan', 'x'], expected: ['orphan', 'x'] },
    { name: 'OrphanDependents default orphans', policy: 'OrphanDependents', req: {}, finalizers: [], expected: ['orphan'] },
    { name: 'Unsupported ignores the request', policy: 'Unsupported', req: { propagationPolicy: 'Foreground' }, finalizers: ['x'], expected: ['x'] },
    { name: 'Unsupported drops GC finalizers', policy: 'Unsupported', req: {}, finalizers: ['orphan'], expected: [] },
  ];
  for (const c of cases) assert.deepEqual(deletionFinalizers(c.policy ?? 'DeleteDependents', c.req, c.finalizers), c.expected, c.name);
});

test('should return the same array when nothing changes, so callers can skip the write', () => {
  const fins = ['foregroundDeletion'];
  assert.equal(deletionFinalizers('DeleteDependents', { propagationPolicy: 'Foreground' }, fins), fins);
  assert.equal(namespaceDeletionFinalizers({}, fins), fins);
});

test('should follow the namespace registry\'s own rules', () => {
  const cases: { name: string; req: PropagationRequest; finalizers: string[]; expected: string[] }[] = [
    { name: 'no request keeps them', req: {}, finalizers: ['orphan'], expected: ['orphan'] },
    { name: 'orphanDependents false means Foreground', req: { orphanDependents: false }, finalizers: [], expected: ['foregroundDeletion'] },
    { name: 'Orphan', req: { propagationPolicy: 'Orphan' }, finalizers: ['foregroundDeletion'], expected: ['orphan'] },
    { name: 'Background clears both', req: { propagationPolicy: 'Background' }, finalizers: ['orphan', 'k'], expected: ['k'] },
  ];
  for (const c of cases) assert.deepEqual(namespaceDeletionFinalizers(c.req, c.finalizers), c.expected, c.name);
});

test('should leave Events out of garbage collection only', () => {
  assert.equal(defaultGcPolicy('', 'events'), 'Unsupported');
  assert.equal(defaultGcPolicy('', 'configmaps'), 'DeleteDependents');
  assert.equal(defaultGcPolicy('events.k8s.io', 'events'), 'DeleteDependents');
});
