import test from 'node:test';
import assert from 'node:assert/strict';
import { createManualClock } from '../../client/manual-clock.js';
import type { Logger } from '../../util/logger.js';
import { createRunScope, runWhenSynced, untilAborted, waitSynced } from './run-scope.js';

function recordingLogger(): Logger & { errors: string[] } {
  const errors: string[] = [];
  const l: Logger & { errors: string[] } = {
    errors,
    debug() {},
    info() {},
    warn() {},
    error: (m: string, f?: Record<string, unknown>) => void errors.push(`${m} ${String(f?.['controller'])}`),
    child: () => l,
  };
  return l;
}

const never = { waitForSync: (signal?: AbortSignal) => new Promise<void>((_r, reject) => signal?.addEventListener('abort', () => reject(new Error('stopped')), { once: true })) };
const synced = { waitForSync: async () => {} };

test('end() waits for every task, then runs the clean-ups in registration order', async () => {
  const scope = createRunScope();
  const order: string[] = [];
  let release!: () => void;
  scope.track(new Promise<void>((r) => (release = r)).then(() => order.push('task')));
  scope.onEnd(() => order.push('first clean-up'));
  scope.onEnd(() => order.push('second clean-up'));
  const ended = scope.end();
  await Promise.resolve();
  assert.deepEqual(order, []);
  release();
  await ended;
  assert.deepEqual(order, ['task', 'first clean-up', 'second clean-up']);
});

test('a controller that fails while the run goes on is logged; one that fails while stopping is not', async () => {
  const log = recordingLogger();
  const running = createRunScope();
  running.start([{ name: 'broken', run: async () => Promise.reject(new Error('boom')) }], new AbortController().signal, log);
  await running.end();
  assert.deepEqual(log.errors, ['controller stopped with an error broken']);

  const quiet = recordingLogger();
  const stopping = createRunScope();
  const ctl = new AbortController();
  const stopsThenFails = async (): Promise<void> => {
    ctl.abort();
    throw new Error('aborted');
  };
  stopping.start([{ name: 'stopped', run: stopsThenFails }], ctl.signal, quiet);
  await stopping.end();
  assert.deepEqual(quiet.errors, []);
});

test('waitSynced: true once loaded, false when stopped first, a clear error when the deadline passes', async () => {
  const clock = createManualClock();
  assert.equal(await waitSynced([synced], 'management', { signal: new AbortController().signal, clock, timeoutMs: 1000 }), true);

  const stop = new AbortController();
  const stopped = waitSynced([never], 'management', { signal: stop.signal, clock, timeoutMs: 1000 });
  stop.abort();
  assert.equal(await stopped, false);

  const late = waitSynced([never], 'management', { signal: new AbortController().signal, clock, timeoutMs: 1000 });
  clock.advance(1000);
  await assert.rejects(late, { message: 'failed to wait for management caches to sync: management caches not synced within 1000 ms' });
});

test('runWhenSynced runs the controller after its caches loaded, and cancels the run when they never do', async () => {
  const clock = createManualClock();
  const log = recordingLogger();
  const ran: string[] = [];
  const cancels: string[] = [];
  const signal = new AbortController().signal;
  const controller = { name: 'RegisterController@cluster:c1', run: async () => void ran.push('ran') };
  await runWhenSynced({ controller, caches: [synced], what: 'hub CSR', gate: { signal, clock, timeoutMs: 1000 }, cancel: (r) => cancels.push(r), log });
  assert.deepEqual(ran, ['ran']);

  const waiting = runWhenSynced({ controller, caches: [never], what: 'hub CSR', gate: { signal, clock, timeoutMs: 1000 }, cancel: (r) => cancels.push(r), log });
  clock.advance(1000);
  await waiting;
  assert.deepEqual(ran, ['ran']);
  assert.deepEqual(cancels, ['RegisterController@cluster:c1: failed to wait for hub CSR caches to sync: hub CSR caches not synced within 1000 ms']);
});

test('untilAborted resolves on abort, and at once for an aborted signal', async () => {
  const ctl = new AbortController();
  let done = false;
  const p = untilAborted(ctl.signal).then(() => (done = true));
  await Promise.resolve();
  assert.equal(done, false);
  ctl.abort();
  await p;
  assert.equal(done, true);
  await untilAborted(AbortSignal.abort());
});
