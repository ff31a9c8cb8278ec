// The fuzz suite's process probes see a blocked event loop and a polluted prototype.

import { it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { LoopMonitor, prototypeAdditions, prototypeSnapshot } from './process-probes.js';

it('charges a synchronous block to the window, and an idle wait not', async () => {
  const loop = new LoopMonitor();
  try {
    await sleep(20);
    loop.reset();
    await sleep(50);
    assert.ok(loop.measure().blockedMs < 100, JSON.stringify(loop.measure()));
    loop.reset();
    await sleep(10);
    // 150 ms of work (CPU time: on a loaded machine wall time would also count waiting for a core).
    const start = process.cpuUsage();
    while (process.cpuUsage(start).user < 150_000) { /* block the loop */ }
    await sleep(20);
    const m = loop.measure();
    assert.ok(m.blockedMs > 100, JSON.stringify(m));
  } finally {
    loop.close();
  }
});

it('reports and removes keys added to built-in prototypes', () => {
  const before = prototypeSnapshot();
  Object.defineProperty(Object.prototype, 'fuzzPolluted', { value: 1, configurable: true, enumerable: false });
  assert.deepEqual(prototypeAdditions(before), ['Object.prototype.fuzzPolluted']);
  assert.equal(({} as Record<string, unknown>).fuzzPolluted, undefined);
  assert.deepEqual(prototypeAdditions(before), []);
});
