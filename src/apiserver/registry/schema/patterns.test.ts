import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compilePattern, createPatternCache } from './patterns.js';
import { validateSchema } from './structural-schema.js';
import type { JSONSchemaProps } from './types.js';

describe('compilePattern', () => {
  const cases: Array<{ pattern: string; good: string[]; bad: string[] }> = [
    { pattern: '^[a-z]+$', good: ['abc'], bad: ['ABC', 'abc\n'] },
    { pattern: '(?i)^[a-z]+$', good: ['ABC'], bad: ['1'] },
    { pattern: '\\Aab\\z', good: ['ab'], bad: ['xab', 'abx'] },
    { pattern: '^a\\-b$', good: ['a-b'], bad: ['ab'] },
    // Go's MatchString searches: an unanchored pattern matches anywhere in the value.
    { pattern: 'b+', good: ['abc', 'bbb'], bad: ['ac'] },
    { pattern: '^\\p{Greek}+$', good: ['αβγ'], bad: ['abc'] },
    { pattern: '^[[:alpha:]]+$', good: ['abc'], bad: ['a1'] },
    { pattern: '^(?P<x>a)b$', good: ['ab'], bad: ['b'] },
    { pattern: '^.$', good: ['😀', 'é'], bad: ['ab', '\n'] },
    { pattern: '^(([0-9])+[h|m|s])|None$', good: ['10s', 'xNone'], bad: ['10d'] },
    { pattern: '^([a-z0-9][a-z0-9-]*[a-z0-9]\\.)+[a-z]+\\/[a-z0-9-\\.]+$', good: ['example.com/a.b'], bad: ['example/a'] },
  ];
  for (const c of cases) {
    it(`should match ${c.pattern} with RE2 semantics`, () => {
      const re = compilePattern(c.pattern);
      assert.ok(re.ok, re.ok ? '' : re.error);
      for (const v of c.good) assert.equal(re.test(v), true, v);
      for (const v of c.bad) assert.equal(re.test(v), false, v);
    });
  }

  const refused: Array<{ pattern: string; error: string }> = [
    { pattern: '+', error: 'error parsing regexp: missing argument to repetition operator: `+`' },
    { pattern: '(?=a)b', error: 'error parsing regexp: invalid or unsupported Perl syntax: `(?=`' },
    { pattern: '(a)\\1', error: 'error parsing regexp: invalid escape sequence: `\\1`' },
    { pattern: 'a{1001}', error: 'error parsing regexp: invalid repeat count: `{1001}`' },
    { pattern: '(?P<x>a)(', error: 'error parsing regexp: missing closing ): `(?P<x>a)(`' },
  ];
  for (const c of refused) {
    it(`should refuse ${c.pattern} as Go's regexp does`, () => {
      assert.deepEqual(compilePattern(c.pattern), { ok: false, error: c.error });
    });
  }

  it('should answer a catastrophic-backtracking pattern in linear time', () => {
    const re = compilePattern('^(a+)+$');
    assert.ok(re.ok);
    const started = performance.now();
    assert.equal(re.test(`${'a'.repeat(40)}!`), false);
    assert.equal(re.test(`${'a'.repeat(200_000)}!`), false);
    assert.ok(performance.now() - started < 500, `took ${performance.now() - started} ms`);
  });
});

describe('createPatternCache', () => {
  it('should compile the pattern of a schema node once', () => {
    const cache = createPatternCache();
    const node = { type: 'string' as const, pattern: '^a$' };
    const first = cache.get(node);
    assert.equal(cache.get(node), first);
    assert.notEqual(cache.get({ ...node }), first, 'another node compiles its own');
  });

  it('should recompile when the node holds a different pattern', () => {
    const cache = createPatternCache();
    const node = { type: 'string' as const, pattern: '^a$' };
    cache.get(node);
    node.pattern = '^b$';
    const re = cache.get(node);
    assert.ok(re.ok && re.test('b'));
  });
});

describe('validateSchema string keywords', () => {
  const check = (schema: JSONSchemaProps, value: string): string[] =>
    validateSchema({ type: 'object', properties: { x: schema } }, { x: value }).map((e) => `${e.field}: ${e.message}`);

  it('should refuse an oversized string by maxLength without evaluating the pattern', () => {
    // A node whose pattern cache would throw proves the pattern is never reached.
    const patterns = { get: (): never => assert.fail('pattern evaluated') };
    const errs = validateSchema({ type: 'object', properties: { x: { type: 'string', maxLength: 3, pattern: '^(a+)+$' } } }, { x: `${'a'.repeat(40)}!` }, { patterns });
    assert.deepEqual(errs.map((e) => `${e.field}: ${e.message}`), ['x: Too long: may not be more than 3 bytes']);
  });

  it('should skip the pattern when minLength fails', () => {
    assert.deepEqual(check({ type: 'string', minLength: 3, pattern: '^z' }, 'ab'), ['x: Invalid value: "ab": x in body should be at least 3 chars long']);
  });

  it('should count code points, not UTF-16 units, for maxLength', () => {
    assert.deepEqual(check({ type: 'string', maxLength: 2 }, '😀😀'), []);
    assert.deepEqual(check({ type: 'string', maxLength: 1 }, '😀😀'), ['x: Too long: may not be more than 1 bytes']);
  });

  it('should check format even when the pattern fails', () => {
    assert.equal(check({ type: 'string', pattern: '^a', format: 'uuid' }, 'b').length, 2);
  });

  it('should refuse every value of a pattern that does not compile', () => {
    assert.deepEqual(check({ type: 'string', pattern: '(?=a)' }, 'a'), ["x: Invalid value: \"a\": x in body should match '(?=a)'"]);
  });

  it('should answer ^(a+)+$ against 40 a and ! within milliseconds', () => {
    const started = performance.now();
    assert.equal(check({ type: 'string', pattern: '^(a+)+$' }, `${'a'.repeat(40)}!`).length, 1);
    assert.ok(performance.now() - started < 200, `took ${performance.now() - started} ms`);
  });
});
