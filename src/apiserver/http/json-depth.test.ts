import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { jsonTextTooDeep, valueTooDeep } from './json-depth.js';

const nested = (n: number): string => '{"a":'.repeat(n) + '1' + '}'.repeat(n);

describe('nesting depth checks', () => {
  it('should accept documents up to the limit and refuse deeper ones', () => {
    assert.equal(jsonTextTooDeep(nested(10), 10), false);
    assert.equal(jsonTextTooDeep(nested(11), 10), true);
    assert.equal(jsonTextTooDeep(`[${'['.repeat(10)}${']'.repeat(10)}]`, 10), true);
    assert.equal(valueTooDeep(JSON.parse(nested(10)), 10), false);
    assert.equal(valueTooDeep(JSON.parse(nested(11)), 10), true);
    assert.equal(valueTooDeep('scalar', 0), false);
  });

  it('should not count brackets inside strings, escaped quotes included', () => {
    const text = JSON.stringify({ s: `\\"${'{['.repeat(50)}` });
    assert.equal(jsonTextTooDeep(text, 2), false);
  });

  it('should handle documents far deeper than the stack allows', () => {
    assert.equal(jsonTextTooDeep(nested(200_000)), true);
    assert.equal(valueTooDeep(JSON.parse(nested(200_000))), true);
  });

  it('should end on cycles and shared nodes (YAML aliases)', () => {
    const cyclic: unknown[] = [];
    cyclic.push(cyclic);
    assert.equal(valueTooDeep(cyclic, 100), true);
    const shared = { leaf: { x: 1 } };
    const doc = { a: shared, b: { c: { d: shared } } };
    assert.equal(valueTooDeep(doc, 5), false);
    assert.equal(valueTooDeep(doc, 4), true);
  });
});
