import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { createManualClock } from '../client/manual-clock.js';
import { setTimeoutUntilAborted } from './clock.js';

test('a self re-arming timer on one signal keeps at most one abort listener', () => {
  const clock = createManualClock(0);
  const ac = new AbortController();
  let runs = 0;
  const arm = (): void => setTimeoutUntilAborted(clock, 10, ac.signal, () => {
    runs++;
    arm();
  });
  arm();
  for (let i = 0; i < 50; i++) clock.advance(10);
  assert.equal(runs, 50);
  assert.equal(getEventListeners(ac.signal, 'abort').length, 1);
  ac.abort();
  clock.advance(10);
  assert.equal(runs, 50, 'no run after abort');
  assert.equal(getEventListeners(ac.signal, 'abort').length, 0);
});
