import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { evalJsonPath, parseJsonPath } from './jsonpath.js';
import { humanAge } from './table.js';

describe('jsonpath', () => {
  const obj = {
    spec: { hubAcceptsClient: true, urls: [{ url: 'a' }, { url: 'b' }] },
    status: { conditions: [{ type: 'Joined', status: 'True' }, { type: 'Available', status: 'Unknown' }] },
  };
  const cases: { path: string; expected: unknown[] }[] = [
    { path: '.spec.hubAcceptsClient', expected: [true] },
    { path: '.spec.urls[*].url', expected: ['a', 'b'] },
    { path: '.spec.urls[1].url', expected: ['b'] },
    { path: '.status.conditions[?(@.type=="Available")].status', expected: ['Unknown'] },
    { path: '{.spec.missing}', expected: [] },
  ];
  for (const c of cases) {
    it(`should evaluate ${c.path}`, () => assert.deepEqual(evalJsonPath(obj, parseJsonPath(c.path)), c.expected));
  }
  it('should evaluate a filter on a nested field', () => {
    const o = { items: [{ a: { b: 'x' }, v: 1 }, { a: { b: 'y' }, v: 2 }] };
    assert.deepEqual(evalJsonPath(o, parseJsonPath('.items[?(@.a.b=="y")].v')), [2]);
  });
  it('should refuse a long filter path that does not parse in linear time', () => {
    const started = performance.now();
    assert.throws(() => parseJsonPath(`.x[?(@${'.a'.repeat(40)} =!)]`), /unsupported JSONPath segment/);
    assert.ok(performance.now() - started < 2000, `took ${performance.now() - started} ms`);
  });
  it('should render ages like kubectl', () => {
    const now = Date.parse('2025-01-02T00:00:00Z');
    assert.equal(humanAge('2025-01-01T23:59:30Z', now), '30s');
    assert.equal(humanAge('2025-01-01T23:55:00Z', now), '5m');
    assert.equal(humanAge('2025-01-01T00:00:00Z', now), '24h');
    assert.equal(humanAge('2024-12-20T00:00:00Z', now), '13d');
  });
});
