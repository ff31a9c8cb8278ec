import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createManualClock } from '../../client/manual-clock.js';
import type { KubeClient } from '../../client/types.js';
import { throttledClient } from './throttled-client.js';

function countingProbeClient(): { client: KubeClient; sent: () => number } {
  let sent = 0;
  const client = {
    server: 'https://x',
    resource: () => {
      throw new Error('unused');
    },
    request: () => Promise.reject(new Error('unused')),
    probe: () => {
      sent++;
      return Promise.resolve({ statusCode: 200, body: '' });
    },
    close: () => {},
  } as unknown as KubeClient;
  return { client, sent: () => sent };
}

const flush = () => new Promise<void>((r) => setImmediate(r));

test('should send a burst at once, then one request per 1/qps seconds', async () => {
  const clock = createManualClock();
  const inner = countingProbeClient();
  const c = throttledClient(inner.client, { qps: 2, burst: 3, clock });
  const calls = Array.from({ length: 5 }, () => c.probe('/healthz'));
  await flush();
  assert.equal(inner.sent(), 3);
  clock.advance(499);
  await flush();
  assert.equal(inner.sent(), 3);
  clock.advance(1);
  await flush();
  assert.equal(inner.sent(), 4);
  clock.advance(500);
  await Promise.all(calls);
  assert.equal(inner.sent(), 5);
});
