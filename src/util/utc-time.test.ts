import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { httpDate, isoUtc } from './utc-time.js';

test('isoUtc formats like Date.prototype.toISOString', () => {
  for (const ms of [0, 1, -1, 999, 1_700_000_000_123, Date.UTC(2000, 1, 29, 23, 59, 59, 999), Date.UTC(9999, 11, 31, 23, 59, 59, 999), Date.UTC(-1, 0, 1), Date.UTC(10000, 0, 1), -62167219200000]) {
    assert.equal(isoUtc(ms), new Date(ms).toISOString(), String(ms));
  }
  fc.assert(fc.property(fc.integer({ min: -8.64e15, max: 8.64e15 }), (ms) => isoUtc(ms) === new Date(ms).toISOString()));
});

test('isoUtc throws a RangeError for an invalid time, as toISOString does', () => {
  assert.throws(() => isoUtc(NaN), RangeError);
  assert.throws(() => isoUtc(8.64e15 + 1), RangeError);
});

test('httpDate formats like Date.prototype.toUTCString', () => {
  assert.equal(httpDate(784111777000), 'Sun, 06 Nov 1994 08:49:37 GMT');
  fc.assert(fc.property(fc.integer({ min: -8.64e15, max: 8.64e15 }), (ms) => httpDate(ms) === new Date(ms).toUTCString()));
});
