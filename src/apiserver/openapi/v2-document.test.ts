import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Schema } from './types.js';
import { toV2Schema, v2Document } from './v2-document.js';
import { refsOf, widgetResource } from './test-fixtures.js';

describe('toV2Schema', () => {
  it('should rewrite a schema in Swagger 2.0 terms', () => {
    const cases: { name: string; input: Schema; expected: Schema }[] = [
      { name: 'ref', input: { $ref: '#/components/schemas/a.B' }, expected: { $ref: '#/definitions/a.B' } },
      {
        name: 'single-ref allOf becomes the ref',
        input: { allOf: [{ $ref: '#/components/schemas/a.B' }], description: 'd', default: {} },
        expected: { $ref: '#/definitions/a.B', description: 'd', default: {} },
      },
      {
        name: 'v3-only keywords dropped at any depth',
        input: { type: 'object', nullable: true, properties: { x: { anyOf: [{ type: 'string' }], not: {}, oneOf: [], type: 'string' } } },
        expected: { type: 'object', properties: { x: { type: 'string' } } },
      },
      {
        name: 'values are not schemas',
        input: { type: 'object', default: { nullable: true, $ref: '#/components/schemas/x' }, enum: [{ anyOf: 1 }], 'x-kubernetes-validations': [{ rule: 'self.a' }] },
        expected: { type: 'object', default: { nullable: true, $ref: '#/components/schemas/x' }, enum: [{ anyOf: 1 }], 'x-kubernetes-validations': [{ rule: 'self.a' }] },
      },
      {
        name: 'items and additionalProperties walked',
        input: { type: 'array', items: { type: 'object', additionalProperties: { $ref: '#/components/schemas/a.B', nullable: true } } },
        expected: { type: 'array', items: { type: 'object', additionalProperties: { $ref: '#/definitions/a.B' } } },
      },
    ];
    for (const c of cases) assert.deepEqual(toV2Schema(c.input), c.expected, c.name);
  });
});

describe('v2Document', () => {
  const doc = v2Document([widgetResource(), widgetResource({ version: 'v2' })], { title: 'Kubernetes', version: 'v1.30.0' });
  const definitions = doc.definitions as Record<string, Schema>;

  it('should hold every version of every kind with its GVK, and resolve every $ref', () => {
    assert.equal(doc.swagger, '2.0');
    assert.deepEqual(definitions['com.example.v2.Widget']['x-kubernetes-group-version-kind'], [{ group: 'example.com', version: 'v2', kind: 'Widget' }]);
    assert.ok(definitions['com.example.v1.WidgetList']);
    assert.deepEqual((definitions['com.example.v1.Widget'].properties as Record<string, Schema>).metadata.$ref, '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
    for (const r of refsOf(doc)) {
      assert.match(r, /^#\/definitions\//);
      assert.ok(definitions[r.slice('#/definitions/'.length)], `dangling ${r}`);
    }
  });

  it('should describe operations with body parameters and the GVK', () => {
    const paths = doc.paths as Record<string, Record<string, Schema>>;
    const put = paths['/apis/example.com/v2/namespaces/{namespace}/widgets/{name}'].put;
    assert.deepEqual((put.parameters as Schema[])[0], { name: 'body', in: 'body', required: true, schema: { $ref: '#/definitions/com.example.v2.Widget' } });
    assert.deepEqual(put['x-kubernetes-group-version-kind'], { group: 'example.com', version: 'v2', kind: 'Widget' });
    assert.deepEqual((put.responses as Record<string, Schema>)['200'].schema, { $ref: '#/definitions/com.example.v2.Widget' });
  });
});
