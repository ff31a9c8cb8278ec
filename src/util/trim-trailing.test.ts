import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { trimTrailing } from './trim-trailing.js';

describe('trimTrailing', () => {
  const cases: Array<{ name: string; input: [string, string]; expected: string }> = [
    { name: 'a trailing run', input: ['/api///', '/'], expected: '/api' },
    { name: 'nothing to trim', input: ['/api', '/'], expected: '/api' },
    { name: 'only the character', input: ['///', '/'], expected: '' },
    { name: 'an empty string', input: ['', '*'], expected: '' },
    { name: 'runs inside are kept', input: ['/a**b**', '*'], expected: '/a**b' },
  ];
  for (const c of cases) it(`should handle ${c.name}`, () => assert.equal(trimTrailing(...c.input), c.expected));

  // A backtracking regex would need about 10^12 steps here (minutes); a loaded 2-core CI machine
  // may still take a few hundred ms for the linear scan, so the bound only tells the two apart.
  it('should take linear time on a long run that is not at the end', () => {
    const started = performance.now();
    assert.equal(trimTrailing(`${'/'.repeat(1_000_000)}x`, '/'), `${'/'.repeat(1_000_000)}x`);
    assert.equal(trimTrailing(`x${'*'.repeat(1_000_000)}`, '*'), 'x');
    assert.ok(performance.now() - started < 3000, `took ${performance.now() - started} ms`);
  });
});
