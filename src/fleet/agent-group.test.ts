import assert from 'node:assert/strict';
import { test } from 'node:test';
import { realClock } from '../util/clock.js';
import { paced } from './agent-group.js';

test('paced starts every task once, at most the concurrency at a time, without a possible-leak warning', async () => {
  const warnings: Error[] = [];
  const onWarning = (w: Error): void => void warnings.push(w);
  process.on('warning', onWarning);
  try {
    const started: number[] = [];
    let running = 0;
    let most = 0;
    // 1,000 starts a second: the 64 starters all wait on the signal at once.
    await paced(200, 1000, 64, realClock, new AbortController().signal, async (i) => {
      started.push(i);
      most = Math.max(most, ++running);
      await new Promise((r) => setImmediate(r));
      running--;
    });
    assert.deepEqual([...started].sort((a, b) => a - b), Array.from({ length: 200 }, (_, i) => i));
    assert.ok(most <= 64);
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(warnings.map((w) => w.name), []);
  } finally {
    process.off('warning', onWarning);
  }
});
