import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OwnerIndex } from './owner-index.js';

const ref = (uid: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', name: uid, uid });

test('should find dependents by owner uid and follow changes of references', () => {
  const idx = new OwnerIndex();
  idx.set('/k/1', [ref('a'), ref('b'), ref('a')]);
  idx.set('/k/2', [ref('a')]);
  assert.deepEqual(idx.dependentsOf('a').sort(), ['/k/1', '/k/2']);
  assert.deepEqual(idx.dependentsOf('b'), ['/k/1']);
  idx.set('/k/1', [ref('c')]);
  assert.deepEqual(idx.dependentsOf('a'), ['/k/2']);
  assert.equal(idx.hasDependents('b'), false);
  idx.set('/k/2', []);
  idx.remove('/k/1');
  idx.remove('/k/missing');
  assert.equal(idx.size, 0);
  assert.equal(idx.hasDependents('a'), false);
  assert.equal(idx.hasDependents('c'), false);
});
