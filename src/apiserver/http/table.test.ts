import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toTable } from './table.js';

const base = { apiVersion: 'meta.k8s.io/v1', includeObject: 'None' as const, withHeaders: true, now: Date.parse('2026-01-01T00:01:00Z') };

test('a CRD printer column without a description is described by its path', () => {
  const t = toTable([], {}, { ...base, columns: [{ name: 'Size', type: 'integer', jsonPath: '.spec.size' }] });
  const defs = t.columnDefinitions as Array<{ name: string; description: string }>;
  assert.equal(defs[1]?.description, 'Custom resource definition column (in JSONPath format): .spec.size');
  // The Name column is described by ObjectMeta's current documentation, link included.
  assert.match(defs[0]?.description ?? '', /More info: https:\/\/kubernetes\.io\/docs\/concepts\/overview\/working-with-objects\/names#names$/);
});

test('a computed column gets its cell from the object', () => {
  const obj = { metadata: { name: 'x', creationTimestamp: '2026-01-01T00:00:00Z' }, data: { a: '1' } };
  const t = toTable([obj], {}, {
    ...base,
    columns: [{ name: 'Data', type: 'string', jsonPath: '', cell: (o) => Object.keys(o.data as object).length }, { name: 'Age', type: 'string', jsonPath: '', cell: (o, age) => age(o.metadata.creationTimestamp) }],
  });
  assert.deepEqual((t.rows as Array<{ cells: unknown[] }>)[0]?.cells, ['x', 1, '60s']);
});
