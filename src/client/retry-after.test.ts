import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { HttpResponse } from './http-response.js';
import type { Transport } from './http-transport.js';
import { MAX_RETRIES, retryAfterTransport } from './retry-after.js';
import { nullLogger } from '../util/logger.js';

function answer(statusCode: number, headers: Record<string, string> = {}, body = '{}'): HttpResponse & { read: boolean } {
  const res = {
    statusCode, headers, reusedConnection: true, complete: true, read: false,
    destroy: () => undefined,
    async *[Symbol.asyncIterator]() {
      res.read = true;
      yield Buffer.from(body);
    },
  };
  return res;
}

/** A transport answering from `answers` in turn, and a clock that records the waits. */
function fixture(answers: HttpResponse[]): { transport: Transport; sent: () => number; waits: number[] } {
  let sent = 0;
  const waits: number[] = [];
  const inner: Transport = { server: 'https://hub', send: async () => answers[Math.min(sent++, answers.length - 1)]!, preconnect: () => undefined, close: () => undefined };
  const transport = retryAfterTransport(inner, nullLogger(), { sleep: async (ms) => void waits.push(ms) });
  return { transport, sent: () => sent, waits };
}

test('a 429 with Retry-After is sent again after the wait it names, whatever the verb', async () => {
  const refused = answer(429, { 'retry-after': '2' });
  const f = fixture([refused, answer(429, { 'retry-after': '1' }), answer(201)]);
  const res = await f.transport.send({ method: 'POST', path: '/api/v1/namespaces/a/configmaps', body: '{}' });
  assert.equal(res.statusCode, 201);
  assert.equal(f.sent(), 3);
  assert.deepEqual(f.waits, [2000, 1000]);
  assert.equal(refused.read, true, 'the refusal was read to its end');
});

test('gives the caller the last answer after client-go\'s ten retries', async () => {
  const f = fixture([answer(429, { 'retry-after': '1' })]);
  const res = await f.transport.send({ method: 'GET', path: '/api' });
  assert.equal(res.statusCode, 429);
  assert.equal(f.sent(), MAX_RETRIES + 1);
  assert.equal(f.waits.length, MAX_RETRIES);
});

test('a 429 without Retry-After, a 5xx and a success go straight back', async () => {
  for (const a of [answer(429), answer(503, { 'retry-after': '1' }), answer(504, { 'retry-after': '1' }), answer(200, { 'retry-after': '1' })]) {
    const f = fixture([a]);
    assert.equal((await f.transport.send({ method: 'GET', path: '/x' })).statusCode, a.statusCode);
    assert.equal(f.sent(), 1);
  }
});

test('an aborted request stops waiting', async () => {
  const inner: Transport = { server: 'https://hub', send: async () => answer(429, { 'retry-after': '30' }), preconnect: () => undefined, close: () => undefined };
  const ctl = new AbortController();
  const transport = retryAfterTransport(inner, nullLogger(), {
    sleep: (_ms, signal) => new Promise((_resolve, reject) => signal?.addEventListener('abort', () => reject(signal.reason as Error), { once: true })),
  });
  const sending = transport.send({ method: 'GET', path: '/x', signal: ctl.signal });
  setImmediate(() => ctl.abort(new Error('stopped')));
  await assert.rejects(sending, /stopped/);
});
