import { test } from 'node:test';
import assert from 'node:assert/strict';
import { aggregate, aggregateMessage, errorMessage, toError } from './errors.js';

test('toError converts thrown non-Errors into Errors keeping the cause', () => {
  const e = toError({ a: 1 });
  assert.ok(e instanceof Error);
  assert.equal(e.message, 'non-Error thrown: {"a":1}');
  assert.deepEqual(e.cause, { a: 1 });
  assert.equal(toError('boom').message, 'boom');
  const orig = new Error('x');
  assert.equal(toError(orig), orig);
});

test('errorMessage gives the message of anything thrown', () => {
  const cases: { name: string; thrown: unknown; expected: string }[] = [
    { name: 'Error', thrown: new TypeError('bad'), expected: 'bad' },
    { name: 'string', thrown: 'boom', expected: 'boom' },
    { name: 'object', thrown: { code: 7 }, expected: 'non-Error thrown: {"code":7}' },
    { name: 'undefined', thrown: undefined, expected: 'non-Error thrown: undefined' },
    { name: 'circular', thrown: (() => { const o: Record<string, unknown> = {}; o['self'] = o; return o; })(), expected: 'non-Error thrown: [object Object]' },
  ];
  for (const c of cases) assert.equal(errorMessage(c.thrown), c.expected, c.name);
});

test('aggregateMessage reads like apimachinery (inline) or library-go (lines)', () => {
  const errs = (...m: string[]): Error[] => m.map((x) => new Error(x));
  const cases: { name: string; errors: Error[]; inline: string; lines: string }[] = [
    { name: 'one', errors: errs('a'), inline: 'a', lines: 'a' },
    { name: 'several, in order', errors: errs('b', 'a'), inline: '[b, a]', lines: 'a\nb' },
    { name: 'repeats collapse inline', errors: errs('a', 'a'), inline: 'a', lines: 'a\na' },
    { name: 'repeats among others', errors: errs('b', 'a', 'b'), inline: '[b, a]', lines: 'a\nb\nb' },
  ];
  for (const c of cases) {
    assert.equal(aggregateMessage(c.errors), c.inline, `${c.name} inline`);
    assert.equal(aggregateMessage(c.errors, 'lines'), c.lines, `${c.name} lines`);
  }
});

test('aggregate: none is undefined, one is itself, several are an AggregateError', () => {
  assert.equal(aggregate([]), undefined);
  const one = new Error('x');
  assert.equal(aggregate([one]), one);
  const many = aggregate([new Error('b'), new Error('a')], 'lines');
  assert.ok(many instanceof AggregateError);
  assert.equal(many.message, 'a\nb');
  assert.equal(many.errors.length, 2);
});
