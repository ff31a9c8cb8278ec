import test from 'node:test';
import assert from 'node:assert/strict';
import { createManualClock } from '../../client/manual-clock.js';
import { nullLogger } from '../../util/logger.js';
import { createWakeup, waitForHubKubeconfig } from './wait-for-hub-kubeconfig.js';

const turns = async (n = 5): Promise<void> => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

test('the wait ends at the next poll once the files are valid', async () => {
  const clock = createManualClock();
  let valid = false;
  let checks = 0;
  const wait = waitForHubKubeconfig({ valid: () => (checks++, valid), filesChanged: createWakeup(), pollMs: 1000, clock, log: nullLogger() }, new AbortController().signal);
  await turns();
  assert.equal(checks, 1);
  valid = true;
  clock.advance(999);
  await turns();
  assert.equal(checks, 1, 'no check before the poll period');
  clock.advance(1);
  assert.equal(await wait, true);
  assert.equal(checks, 2);
});

test('new hub kubeconfig files end the wait without waiting for the poll', async () => {
  const clock = createManualClock();
  let valid = false;
  const filesChanged = createWakeup();
  const wait = waitForHubKubeconfig({ valid: () => valid, filesChanged, pollMs: 60_000, clock, log: nullLogger() }, new AbortController().signal);
  await turns();
  valid = true;
  filesChanged.wake();
  assert.equal(await wait, true);
  assert.equal(clock.pending(), 0, 'the poll timer is cancelled');
});

test('a stop ends the wait with false, and a broken file fails it with the reason', async () => {
  const clock = createManualClock();
  const stop = new AbortController();
  const stopped = waitForHubKubeconfig({ valid: () => false, filesChanged: createWakeup(), pollMs: 1000, clock, log: nullLogger() }, stop.signal);
  await turns();
  stop.abort();
  assert.equal(await stopped, false);
  assert.equal(clock.pending(), 0);

  const broken = waitForHubKubeconfig(
    {
      valid: () => {
        throw new Error('bad PEM');
      },
      filesChanged: createWakeup(),
      pollMs: 1000,
      clock,
      log: nullLogger(),
    },
    new AbortController().signal,
  );
  await assert.rejects(broken, { message: 'failed to wait for hub client config for managed cluster to be ready: bad PEM' });
});

test('waiters of one generation share a promise, and a wake only releases the current ones', async () => {
  const w = createWakeup();
  assert.equal(w.next(), w.next());
  const first = w.next();
  w.wake();
  await first;
  let released = false;
  void w.next().then(() => (released = true));
  await turns(2);
  assert.equal(released, false);
  w.wake();
  await turns(2);
  assert.equal(released, true);
});
