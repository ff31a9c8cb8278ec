import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { escapeFieldValue, matchesFields, parseFieldSelector } from './field-selectors.js';
import { SelectorParseError } from './selector-error.js';

describe('field selectors', () => {
  const fields = ['metadata.name', 'metadata.namespace', 'type'];
  const values = { 'metadata.name': 'a,b', 'metadata.namespace': 'ns', type: 'Opaque' };
  const cases: Array<{ sel: string; match: boolean }> = [
    { sel: '', match: true },
    { sel: 'metadata.namespace=ns', match: true },
    { sel: 'metadata.namespace==ns', match: true },
    { sel: 'metadata.namespace!=ns', match: false },
    { sel: 'metadata.name=a\\,b', match: true },
    { sel: 'metadata.name=a\\,b,type=Opaque', match: true },
    { sel: 'metadata.name=a\\,b,type!=Opaque', match: false },
    { sel: 'type=', match: false },
  ];
  for (const c of cases) {
    it(`should ${c.match ? '' : 'not '}match ${JSON.stringify(c.sel)}`, () => {
      assert.equal(matchesFields(parseFieldSelector(c.sel, fields), values), c.match);
    });
  }

  it('should treat absent fields as empty', () => {
    assert.equal(matchesFields(parseFieldSelector('type=', fields), {}), true);
  });

  const errorCases: Array<{ sel: string; message: string; fields?: string[] }> = [
    { sel: 'spec.foo=x', message: 'field label not supported: spec.foo' },
    { sel: 'spec.foo=x', fields: ['metadata.name', 'metadata.namespace'], message: '"spec.foo" is not a known field selector: only "metadata.name", "metadata.namespace"' },
    { sel: 'metadata.name', message: "invalid selector: 'metadata.name'; can't understand 'metadata.name'" },
    { sel: 'metadata.name=a\\x', message: 'invalid field selector: invalid escape sequence: \\x' },
    { sel: 'metadata.name=a=b', message: 'invalid field selector: unescaped character in value: =' },
  ];
  for (const c of errorCases) {
    it(`should reject ${JSON.stringify(c.sel)}${c.fields ? ' on a metadata-only kind' : ''}`, () => {
      assert.throws(() => parseFieldSelector(c.sel, c.fields ?? fields), (e: unknown) => {
        assert.ok(e instanceof SelectorParseError);
        assert.equal(e.message, c.message);
        return true;
      });
    });
  }

  it('should escape values so that they round-trip', () => {
    const v = 'x,y=z\\w';
    const sel = parseFieldSelector(`metadata.name=${escapeFieldValue(v)}`, fields);
    assert.equal(sel.requirements[0]?.value, v);
  });
});
