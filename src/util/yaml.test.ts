import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseYaml, parseYamlDocuments, toYaml, YamlError } from './yaml.js';

/** A document of `levels` anchors, each a list of nine aliases of the one before: 9^levels leaves. */
function aliasBomb(levels: number): string {
  const lines = ['a0: &a0 [x, x, x, x, x, x, x, x, x]'];
  for (let i = 1; i < levels; i++) lines.push(`a${i}: &a${i} [${Array.from({ length: 9 }, () => `*a${i - 1}`).join(', ')}]`);
  return `${lines.join('\n')}\n`;
}

describe('parseYaml', () => {
  const cases: Array<{ name: string; input: string; expected: unknown }> = [
    { name: 'an empty text', input: '', expected: null },
    { name: 'only a comment', input: '# nothing\n', expected: null },
    { name: 'a mapping', input: 'a: 1\nb: [x, "2"]\n', expected: { a: 1, b: ['x', '2'] } },
    { name: 'a scalar', input: 'hello', expected: 'hello' },
    { name: 'core-schema scalars', input: 'y: yes\nt: 2001-12-14\nn: ~\nh: 0x1F\no: 0o17\nb: true\n', expected: { y: 'yes', t: '2001-12-14', n: null, h: 31, o: 15, b: true } },
    { name: 'a merge key, kept as a plain key', input: 'm: {<<: {a: 1}}\n', expected: { m: { '<<': { a: 1 } } } },
    { name: 'a small use of aliases', input: 'a: &x {k: v}\nb: *x\n', expected: { a: { k: 'v' }, b: { k: 'v' } } },
  ];
  for (const c of cases) it(`should parse ${c.name}`, () => assert.deepEqual(parseYaml(c.input), c.expected));

  const refused: Array<{ name: string; input: string; message: RegExp }> = [
    { name: 'duplicate keys', input: 'kind: A\nkind: B\n', message: /duplicated mapping key at line 2, column 1/ },
    { name: 'several documents', input: 'a: 1\n---\nb: 2\n', message: /expected a single document/ },
    { name: 'unknown tags', input: 'x: !!python/object:os.system [ls]\n', message: /unknown tag/ },
    { name: 'binary, outside the core schema', input: 'x: !!binary AAAA\n', message: /unknown tag/ },
    { name: 'tabs as indentation', input: 'a:\n\tb: c\n', message: /tab characters/ },
    { name: 'an undefined alias', input: 'a: *nothing\n', message: /unidentified alias/ },
    { name: 'an alias bomb', input: aliasBomb(9), message: /excessive aliasing/ },
    { name: 'an alias cycle', input: 'a: &a [*a]\n', message: /excessive aliasing/ },
    { name: 'nesting deeper than the parser takes', input: `${'['.repeat(50_000)}${']'.repeat(50_000)}`, message: /maxDepth/ },
  ];
  for (const c of refused) {
    it(`should refuse ${c.name} with a YamlError`, () => {
      assert.throws(() => parseYaml(c.input), (err: unknown) => err instanceof YamlError && c.message.test(err.message));
    });
  }

  it('should give one-line messages', () => {
    assert.throws(() => parseYaml('a: [\n'), (err: unknown) => err instanceof Error && !err.message.includes('\n'));
  });

  it('should accept nesting up to several hundred levels', () => {
    assert.equal(JSON.stringify(parseYaml(`${'['.repeat(600)}${']'.repeat(600)}`)).length, 1200);
  });
});

describe('parseYamlDocuments', () => {
  it('should return every document, empty ones as null', () => {
    assert.deepEqual(parseYamlDocuments('a: 1\n---\n---\nb: 2\n'), [{ a: 1 }, null, { b: 2 }]);
    assert.deepEqual(parseYamlDocuments(''), []);
  });

  it('should refuse a document that does not parse', () => {
    assert.throws(() => parseYamlDocuments('a: 1\n---\nb: [\n'), YamlError);
    assert.throws(() => parseYamlDocuments(`---\n${aliasBomb(9)}`), /excessive aliasing/);
  });
});

describe('toYaml', () => {
  it('should write plain YAML that reads back to the same value', () => {
    const shared = { x: 1 };
    const value = { a: shared, b: shared, s: 'word '.repeat(40), yes: 'yes', empty: '', list: ['x'], pem: 'line 1\nline 2\n' };
    const text = toYaml(value);
    assert.doesNotMatch(text, /[&*]/, 'no anchors or aliases');
    assert.ok(text.includes(`s: ${JSON.stringify(value.s)}\n`), 'a long string on one line');
    assert.match(text, /^"yes": "yes"$/m);
    assert.match(text, /^empty: ""$/m);
    assert.deepEqual(parseYaml(text), value);
  });

  it('should leave out undefined map entries', () => {
    assert.equal(toYaml({ a: undefined, b: 1 }), 'b: 1\n');
  });

  it('should sort keys and write sequences level with their key when asked (Go kubeconfig layout)', () => {
    assert.equal(toYaml({ b: [{ z: 1, w: 2 }], a: 'x' }, { sortKeys: true, indentSequences: false }), 'a: x\nb:\n- w: 2\n  z: 1\n');
    assert.equal(toYaml({ b: ['x'] }), 'b:\n  - x\n');
  });
});
