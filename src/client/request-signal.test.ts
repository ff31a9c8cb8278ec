import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { requestSignal } from './request-signal.js';

test('should give no signal when there is neither a caller signal nor a timeout', () => {
  const r = requestSignal(undefined, 0);
  assert.equal(r.signal, undefined);
  r.release();
});

test('should abort the requests in flight under a caller signal with its reason, through one listener', () => {
  const parent = new AbortController();
  const requests = Array.from({ length: 20 }, () => requestSignal(parent.signal, 0));
  assert.equal(getEventListeners(parent.signal, 'abort').length, 1);
  requests[0]!.release();
  const reason = new Error('stopping');
  parent.abort(reason);
  assert.equal(requests[0]!.signal!.aborted, false, 'a released request no longer follows the caller');
  for (const r of requests.slice(1)) assert.equal(r.signal!.reason, reason);
});

test('should start aborted under an aborted caller signal', () => {
  const parent = new AbortController();
  parent.abort(new Error('gone'));
  const r = requestSignal(parent.signal, 1000);
  assert.equal(r.signal!.aborted, true);
  assert.equal((r.signal!.reason as Error).message, 'gone');
  r.release();
});

test('should abort with a TimeoutError after the timeout, and not once released', async () => {
  const timed = requestSignal(undefined, 10);
  const released = requestSignal(undefined, 10);
  released.release();
  await new Promise((r) => setTimeout(r, 40));
  // A deadline that fell due fires from an immediate after the I/O poll; had the process stalled
  // past 40 ms, this sleep's timer would end in the same timers phase, before it.
  await new Promise((r) => setImmediate(r));
  assert.equal(timed.signal!.aborted, true);
  assert.equal((timed.signal!.reason as DOMException).name, 'TimeoutError');
  assert.equal(released.signal!.aborted, false);
});

test('should keep one listener on a long-lived caller signal however many requests it carried', () => {
  const parent = new AbortController();
  for (let i = 0; i < 1000; i++) requestSignal(parent.signal, 30_000).release();
  const last = requestSignal(parent.signal, 0);
  assert.equal(getEventListeners(parent.signal, 'abort').length, 1);
  parent.abort();
  assert.equal(last.signal!.aborted, true);
  assert.equal(getEventListeners(parent.signal, 'abort').length, 0);
});
