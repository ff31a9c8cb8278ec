import { test } from 'node:test';
import assert from 'node:assert/strict';
import { csrResourceFromVersions } from './csr-api-version.js';

test('csrResourceFromVersions: v1beta1 only when the hub serves it and not v1', () => {
  assert.equal(csrResourceFromVersions(['v1']).version, 'v1');
  assert.equal(csrResourceFromVersions(['v1', 'v1beta1']).version, 'v1');
  assert.equal(csrResourceFromVersions(['v1beta1']).version, 'v1beta1');
  assert.equal(csrResourceFromVersions([]).version, 'v1');
});
