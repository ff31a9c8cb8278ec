import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatGoDuration, parseGoDuration } from './duration.js';

test('should parse Go durations', () => {
  const cases: { input: string; expected: number }[] = [
    { input: '1m', expected: 60_000 },
    { input: '30s', expected: 30_000 },
    { input: '500ms', expected: 500 },
    { input: '1h30m', expected: 5_400_000 },
    { input: '1.5s', expected: 1500 },
    { input: '0', expected: 0 },
    { input: '-2s', expected: -2000 },
    { input: '100us', expected: 0.1 },
  ];
  for (const c of cases) assert.equal(parseGoDuration(c.input), c.expected, c.input);
});

test('should reject malformed durations with Go wording', () => {
  assert.throws(() => parseGoDuration('10'), /time: missing unit in duration "10"/);
  assert.throws(() => parseGoDuration('abc'), /time: invalid duration "abc"/);
  assert.throws(() => parseGoDuration(''), /time: invalid duration ""/);
  assert.throws(() => parseGoDuration('5x'), /time: unknown unit "x" in duration "5x"/);
});

test('should format durations like Go', () => {
  assert.equal(formatGoDuration(60_000), '1m0s');
  assert.equal(formatGoDuration(30_000), '30s');
  assert.equal(formatGoDuration(500), '500ms');
  assert.equal(formatGoDuration(3_723_000), '1h2m3s');
});
