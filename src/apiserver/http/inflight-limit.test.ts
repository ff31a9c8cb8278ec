import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { createInflightLimiter } from './inflight-limit.js';
import type { UserInfo } from '../pipeline.js';

const alice: UserInfo = { username: 'alice', groups: ['system:authenticated'] };
const bob: UserInfo = { username: 'bob', groups: ['system:authenticated'] };
const admin: UserInfo = { username: 'admin', groups: ['system:masters', 'system:authenticated'] };
const response = (): ServerResponse & EventEmitter => new EventEmitter() as ServerResponse & EventEmitter;

test('read-only and mutating requests are counted apart and refused with 429 past their limit', () => {
  const limiter = createInflightLimiter({ maxRequestsInflight: 2, maxMutatingRequestsInflight: 1 });
  const r1 = response();
  assert.equal(limiter.admit('get', alice, r1), undefined);
  assert.equal(limiter.admit('list', bob, response()), undefined);
  const refused = limiter.admit('get', alice, response());
  assert.equal(refused?.code, 429);
  assert.equal(refused?.reason, 'TooManyRequests');
  assert.equal(refused?.status.details?.retryAfterSeconds, 1);
  assert.equal(limiter.admit('create', alice, response()), undefined);
  assert.equal(limiter.admit('patch', alice, response())?.code, 429);
  assert.deepEqual(limiter.inflight(), { readOnly: 2, mutating: 1 });
  r1.emit('close');
  assert.deepEqual(limiter.inflight(), { readOnly: 1, mutating: 1 });
  assert.equal(limiter.admit('get', alice, response()), undefined);
});

test('watches and system:masters are never counted; 0 turns a limit off', () => {
  const limiter = createInflightLimiter({ maxRequestsInflight: 1, maxMutatingRequestsInflight: 0 });
  assert.equal(limiter.admit('get', alice, response()), undefined);
  assert.equal(limiter.admit('watch', alice, response()), undefined);
  assert.equal(limiter.admit('get', admin, response()), undefined);
  for (let i = 0; i < 50; i++) assert.equal(limiter.admit('update', alice, response()), undefined);
  assert.deepEqual(limiter.inflight(), { readOnly: 1, mutating: 50 });
});

test('a response that closes twice is released once', () => {
  const limiter = createInflightLimiter({ maxRequestsInflight: 1, maxMutatingRequestsInflight: 1 });
  const r = response();
  limiter.admit('get', alice, r);
  r.emit('close');
  r.emit('close');
  assert.deepEqual(limiter.inflight(), { readOnly: 0, mutating: 0 });
});

test('limits must be non-negative integers', () => {
  assert.throws(() => createInflightLimiter({ maxRequestsInflight: -1, maxMutatingRequestsInflight: 1 }), TypeError);
  assert.throws(() => createInflightLimiter({ maxRequestsInflight: 1, maxMutatingRequestsInflight: 1.5 }), TypeError);
});

test('one user holds at most half of a limit, so the others keep being served', () => {
  const limiter = createInflightLimiter({ maxRequestsInflight: 4, maxMutatingRequestsInflight: 3 });
  const held = [response(), response()];
  for (const r of held) assert.equal(limiter.admit('create', alice, r), undefined);
  assert.equal(limiter.admit('update', alice, response())?.code, 429, 'alice past half of 3 (rounded up: 2)');
  assert.equal(limiter.admit('update', bob, response()), undefined);
  assert.equal(limiter.admit('get', alice, response()), undefined, 'reads are a share of their own');
  held[0]!.emit('close');
  assert.equal(limiter.admit('patch', alice, response()), undefined);
});
