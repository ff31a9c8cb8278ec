import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { formatLabelSelector, labelSelectorFromObject, matchesLabels, parseLabelSelector } from './label-selectors.js';
import { SelectorParseError } from './selector-error.js';

describe('parseLabelSelector + matchesLabels', () => {
  const labels = { app: 'web', tier: 'front', n: '7', 'example.com/role': 'x' };
  const cases: Array<{ sel: string; labels: Record<string, string>; match: boolean }> = [
    { sel: '', labels, match: true },
    { sel: '   ', labels, match: true },
    { sel: 'app=web', labels, match: true },
    { sel: 'app==web', labels, match: true },
    { sel: 'app = web', labels, match: true },
    { sel: 'app=db', labels, match: false },
    { sel: 'app!=db', labels, match: true },
    { sel: 'app!=web', labels, match: false },
    { sel: 'missing!=x', labels, match: true },
    { sel: 'app in (web,db)', labels, match: true },
    { sel: 'app in (db)', labels, match: false },
    { sel: 'missing in (db)', labels, match: false },
    { sel: 'app notin (db)', labels, match: true },
    { sel: 'app notin (web, db)', labels, match: false },
    { sel: 'missing notin (x)', labels, match: true },
    { sel: 'app', labels, match: true },
    { sel: 'missing', labels, match: false },
    { sel: '!missing', labels, match: true },
    { sel: '!app', labels, match: false },
    { sel: 'n>5', labels, match: true },
    { sel: 'n>7', labels, match: false },
    { sel: 'n<8', labels, match: true },
    { sel: 'app>1', labels, match: false },
    { sel: 'app=web,tier=front', labels, match: true },
    { sel: 'app=web,tier=back', labels, match: false },
    { sel: 'example.com/role=x,!gone', labels, match: true },
    { sel: 'app=', labels: { app: '' }, match: true },
    { sel: 'app=', labels, match: false },
    { sel: 'app in (,x)', labels: { app: '' }, match: true },
    { sel: 'x in (in,notin)', labels: { x: 'notin' }, match: true },
  ];
  for (const c of cases) {
    it(`should ${c.match ? '' : 'not '}match ${JSON.stringify(c.sel)}`, () => {
      assert.equal(matchesLabels(parseLabelSelector(c.sel), c.labels), c.match);
    });
  }

  it('should match undefined labels like empty ones', () => {
    assert.equal(matchesLabels(parseLabelSelector('!a'), undefined), true);
    assert.equal(matchesLabels(parseLabelSelector('a'), undefined), false);
  });

  it('should sort requirements by key and values within a requirement', () => {
    const sel = parseLabelSelector('z in (b,a,b),a=1');
    assert.deepEqual(sel.requirements, [
      { key: 'a', operator: 'Equals', values: ['1'] },
      { key: 'z', operator: 'In', values: ['a', 'b'] },
    ]);
    assert.equal(formatLabelSelector(sel), 'a=1,z in (a,b)');
  });
});

describe('parseLabelSelector errors', () => {
  const cases: Array<{ sel: string; message: string | RegExp }> = [
    { sel: '=a', message: "found '=', expected: !, identifier, or 'end of string'" },
    { sel: 'a=b,', message: "found '', expected: identifier after ','" },
    { sel: 'a=b c', message: "found 'c', expected: ',' or 'end of string'" },
    { sel: '!', message: "unable to parse requirement: found '', expected: identifier" },
    { sel: '!!', message: "unable to parse requirement: found '!', expected: identifier" },
    { sel: 'a in b', message: "unable to parse requirement: found 'b' expected: '('" },
    { sel: 'a in (b', message: "unable to parse requirement: found '', expected: ',' or ')'" },
    { sel: 'a (b)', message: "unable to parse requirement: found '(', expected: in, notin, =, ==, !=, gt, lt" },
    { sel: 'a=(', message: "unable to parse requirement: found '(', expected: identifier" },
    { sel: 'a>x', message: /^unable to parse requirement: values\[0\]: Invalid value: "x": for 'Gt', 'Lt' operators, the value must be an integer$/ },
    { sel: 'a/b/c', message: /^unable to parse requirement: <nil>: Invalid value: "a\/b\/c": a qualified name must consist of/ },
    { sel: 'Bad_/x=1', message: /^unable to parse requirement: <nil>: Invalid value: "Bad_\/x": prefix part a lowercase RFC 1123 subdomain/ },
    { sel: 'a=b!c', message: "found '!', expected: ',' or 'end of string'" },
    { sel: 'a=-x', message: /^unable to parse requirement: values\[0\]\[a\]: Invalid value: "-x": a valid label must be an empty string/ },
    { sel: `a=${'v'.repeat(64)}`, message: /must be no more than 63 characters/ },
  ];
  for (const c of cases) {
    it(`should reject ${JSON.stringify(c.sel)}`, () => {
      assert.throws(() => parseLabelSelector(c.sel), (e: unknown) => {
        assert.ok(e instanceof SelectorParseError);
        if (typeof c.message === 'string') assert.equal(e.message, c.message);
        else assert.match(e.message, c.message);
        return true;
      });
    });
  }
});

describe('labelSelectorFromObject', () => {
  const cases: Array<{ name: string; obj: Parameters<typeof labelSelectorFromObject>[0]; labels: Record<string, string>; match: boolean }> = [
    { name: 'undefined selects nothing', obj: undefined, labels: {}, match: false },
    { name: 'null selects nothing', obj: null, labels: { a: 'b' }, match: false },
    { name: 'empty selects everything', obj: {}, labels: {}, match: true },
    { name: 'matchLabels equal', obj: { matchLabels: { a: 'b' } }, labels: { a: 'b' }, match: true },
    { name: 'matchLabels differ', obj: { matchLabels: { a: 'b' } }, labels: { a: 'c' }, match: false },
    { name: 'In', obj: { matchExpressions: [{ key: 'a', operator: 'In', values: ['x', 'y'] }] }, labels: { a: 'y' }, match: true },
    { name: 'NotIn', obj: { matchExpressions: [{ key: 'a', operator: 'NotIn', values: ['x'] }] }, labels: { a: 'x' }, match: false },
    { name: 'Exists', obj: { matchExpressions: [{ key: 'a', operator: 'Exists' }] }, labels: { a: '' }, match: true },
    { name: 'DoesNotExist', obj: { matchExpressions: [{ key: 'a', operator: 'DoesNotExist' }] }, labels: { a: '' }, match: false },
    {
      name: 'labels and expressions AND',
      obj: { matchLabels: { a: 'b' }, matchExpressions: [{ key: 'c', operator: 'Exists' }] },
      labels: { a: 'b' },
      match: false,
    },
  ];
  for (const c of cases) {
    it(`should handle ${c.name}`, () => {
      assert.equal(matchesLabels(labelSelectorFromObject(c.obj), c.labels), c.match);
    });
  }

  it('should reject unknown operators and bad values', () => {
    assert.throws(() => labelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] }),
      { message: '"Gt" is not a valid label selector operator' });
    assert.throws(() => labelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }),
      { message: `values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty` });
    assert.throws(() => labelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] }),
      { message: 'values: Invalid value: []string{"x"}: values set must be empty for exists and does not exist' });
    assert.throws(() => labelSelectorFromObject({ matchLabels: { 'a b': 'c' } }), { message: /^key: Invalid value: "a b": name part must consist of/ });
  });
});
