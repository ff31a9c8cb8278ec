import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as realSleep } from 'node:timers/promises';
import type { KubeObject } from '../api/meta.js';
import { createManualClock } from '../client/manual-clock.js';
import type { KubeClient, ListCallOptions, ResourceClient, ResourceType } from '../client/types.js';
import { nullLogger } from '../util/logger.js';
import { startHubManager } from './hub-manager.js';

/** An API server that never answers a list: the informer caches never sync. */
function silentClient(): KubeClient {
  const unsupported = (): never => {
    throw new Error('not used by this test');
  };
  const resource = <T extends KubeObject>(type: ResourceType, namespace?: string): ResourceClient<T> => ({
    type,
    namespace,
    list: (opts?: ListCallOptions) =>
      new Promise((_resolve, reject) => opts?.signal?.addEventListener('abort', () => reject(opts.signal?.reason), { once: true })),
    get: unsupported,
    create: unsupported,
    update: unsupported,
    updateStatus: unsupported,
    updateSubresource: unsupported,
    patch: unsupported,
    delete: unsupported,
    watch: unsupported,
  });
  return { server: 'https://silent.invalid', resource, request: unsupported, probe: unsupported, close: () => {} };
}

test('the hub manager gives up on unsynced caches after cacheSyncTimeoutMs on its clock', async () => {
  const clock = createManualClock();
  const ac = new AbortController();
  const started = startHubManager({ client: silentClient(), log: nullLogger(), clock, signal: ac.signal, cacheSyncTimeoutMs: 60_000 });
  try {
    await realSleep(20);
    clock.advance(60_000);
    const outcome = await Promise.race([
      started.then(
        () => 'started',
        (err: unknown) => (err instanceof Error ? err.message : String(err)),
      ),
      realSleep(5_000).then(() => 'still waiting after the deadline passed on the clock'),
    ]);
    assert.equal(outcome, 'hub informer caches not synced within 60000 ms');
  } finally {
    ac.abort();
    await started.catch(() => {});
  }
});

test('the hub manager stops waiting for its caches when its signal aborts', async () => {
  const ac = new AbortController();
  const started = startHubManager({ client: silentClient(), log: nullLogger(), clock: createManualClock(), signal: ac.signal });
  await realSleep(20);
  ac.abort();
  await assert.rejects(started, /stopped before its informer caches synced/);
});
