import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../api/meta.js';
import { guardedPatch, patchSpec, patchStatus } from './patch-writer.js';
import type { PatchCallOptions, PatchType, ResourceClient } from './types.js';

const old: KubeObject = {
  metadata: { name: 'c1', uid: 'u1', resourceVersion: '7' },
  spec: { hubAcceptsClient: true },
  status: { conditions: [{ type: 'A', status: 'True' }], version: { kubernetes: 'v1.30.0' } },
};

test('guardedPatch carries uid and resourceVersion and only what changed', () => {
  assert.deepEqual(guardedPatch(old, 'status', { conditions: [{ type: 'A', status: 'True' }, { type: 'B', status: 'False' }], version: { kubernetes: 'v1.30.0' } }), {
    metadata: { uid: 'u1', resourceVersion: '7' },
    status: { conditions: [{ type: 'A', status: 'True' }, { type: 'B', status: 'False' }] },
  });
  assert.deepEqual(guardedPatch(old, 'spec', { hubAcceptsClient: false }), { metadata: { uid: 'u1', resourceVersion: '7' }, spec: { hubAcceptsClient: false } });
});

test('guardedPatch is undefined when the value is semantically unchanged', () => {
  assert.equal(guardedPatch(old, 'status', structuredClone(old['status'])), undefined);
  assert.equal(guardedPatch(old, 'status', { ...structuredClone(old['status'] as object), clusterClaims: [] }), undefined);
  assert.equal(guardedPatch({ metadata: { name: 'x' } }, 'status', {}), undefined);
});

test('guardedPatch clears the members of an emptied status instead of sending status: null', () => {
  assert.deepEqual(guardedPatch(old, 'status', undefined), { metadata: { uid: 'u1', resourceVersion: '7' }, status: { conditions: null, version: null } });
});

function recordingClient(): { rc: ResourceClient; calls: Array<{ name: string; type: PatchType; patch: unknown; opts?: PatchCallOptions }> } {
  const calls: Array<{ name: string; type: PatchType; patch: unknown; opts?: PatchCallOptions }> = [];
  const rc = {
    patch: async (name: string, type: PatchType, patch: unknown, opts?: PatchCallOptions) => {
      calls.push({ name, type, patch, ...(opts ? { opts } : {}) });
      return old;
    },
  } as unknown as ResourceClient;
  return { rc, calls };
}

test('patchStatus sends a guarded merge patch to the status subresource, and nothing when unchanged', async () => {
  const { rc, calls } = recordingClient();
  assert.equal(await patchStatus(rc, old, structuredClone(old['status'])), false);
  assert.equal(calls.length, 0);
  const signal = new AbortController().signal;
  assert.equal(await patchStatus(rc, old, { conditions: [] }, signal), true);
  assert.deepEqual(calls, [
    { name: 'c1', type: 'merge', patch: { metadata: { uid: 'u1', resourceVersion: '7' }, status: { conditions: [], version: null } }, opts: { subresource: 'status', signal } },
  ]);
});

test('patchSpec patches the main resource', async () => {
  const { rc, calls } = recordingClient();
  assert.equal(await patchSpec(rc, old, { hubAcceptsClient: true }), false);
  assert.equal(await patchSpec(rc, old, { hubAcceptsClient: true, taints: [{ key: 'k', effect: 'NoSelect' }] }), true);
  assert.deepEqual(calls, [{ name: 'c1', type: 'merge', patch: { metadata: { uid: 'u1', resourceVersion: '7' }, spec: { taints: [{ key: 'k', effect: 'NoSelect' }] } }, opts: {} }]);
});
