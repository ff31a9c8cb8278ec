import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { refsOf, widgetResource } from './test-fixtures.js';
import type { Schema } from './types.js';
import { v3DiscoveryDocument, v3GroupVersionDocument } from './v3-document.js';

const INFO = { title: 'Kubernetes', version: 'v1.30.0' };
const schemasOf = (doc: Schema): Record<string, Schema> => (doc.components as { schemas: Record<string, Schema> }).schemas;
const pathsOf = (doc: Schema): Record<string, Record<string, Schema>> => doc.paths as Record<string, Record<string, Schema>>;

describe('v3GroupVersionDocument', () => {
  const doc = v3GroupVersionDocument([widgetResource()], INFO);
  const schemas = schemasOf(doc);

  it('should name the kind and list kind by reversed group and tag them with their GVK', () => {
    assert.equal(doc.openapi, '3.0.0');
    const widget = schemas['com.example.v1.Widget'];
    assert.deepEqual(widget['x-kubernetes-group-version-kind'], [{ group: 'example.com', version: 'v1', kind: 'Widget' }]);
    assert.equal(widget.description, 'A widget.');
    const list = schemas['com.example.v1.WidgetList'];
    assert.deepEqual(list['x-kubernetes-group-version-kind'], [{ group: 'example.com', version: 'v1', kind: 'WidgetList' }]);
    assert.deepEqual((list.properties as Record<string, Schema>).items.items, { $ref: '#/components/schemas/com.example.v1.Widget' });
  });

  it('should keep the CRD schema but replace metadata by ObjectMeta and add apiVersion and kind', () => {
    const props = schemasOf(doc)['com.example.v1.Widget'].properties as Record<string, Schema>;
    assert.deepEqual(props.spec, { type: 'object', nullable: true, properties: { size: { type: 'integer', default: 3 } }, required: ['size'] });
    assert.deepEqual(props.metadata.allOf, [{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' }]);
    assert.equal(props.apiVersion.type, 'string');
    assert.equal(props.kind.type, 'string');
  });

  it('should resolve every $ref inside the document', () => {
    for (const r of refsOf(doc)) {
      assert.match(r, /^#\/components\/schemas\//);
      assert.ok(schemas[r.slice('#/components/schemas/'.length)], `dangling ${r}`);
    }
  });

  it('should describe the collection, object, status and all-namespaces paths with their GVK and actions', () => {
    const paths = pathsOf(doc);
    assert.deepEqual(Object.keys(paths), [
      '/apis/example.com/v1/namespaces/{namespace}/widgets',
      '/apis/example.com/v1/namespaces/{namespace}/widgets/{name}',
      '/apis/example.com/v1/namespaces/{namespace}/widgets/{name}/status',
      '/apis/example.com/v1/widgets',
    ]);
    const item = paths['/apis/example.com/v1/namespaces/{namespace}/widgets/{name}'];
    assert.deepEqual(Object.keys(item).sort(), ['delete', 'get', 'parameters', 'patch', 'put']);
    assert.deepEqual(item.get['x-kubernetes-group-version-kind'], { group: 'example.com', version: 'v1', kind: 'Widget' });
    assert.equal(item.get['x-kubernetes-action'], 'get');
    assert.equal(item.get.operationId, 'readExampleComV1NamespacedWidget');
    assert.deepEqual((item.parameters as unknown as Schema[]).map((p) => p.name), ['namespace', 'name', 'pretty']);
    const collection = paths['/apis/example.com/v1/namespaces/{namespace}/widgets'];
    assert.equal(collection.get['x-kubernetes-action'], 'list');
    assert.equal(collection.post['x-kubernetes-action'], 'post');
    assert.equal(collection.delete['x-kubernetes-action'], 'deletecollection');
    assert.equal(paths['/apis/example.com/v1/widgets'].get.operationId, 'listExampleComV1WidgetForAllNamespaces');
  });

  it('should advertise fieldValidation on patch (kubectl then leaves validation to the server) and no strategic merge patch', () => {
    const patch = pathsOf(doc)['/apis/example.com/v1/namespaces/{namespace}/widgets/{name}'].patch;
    const params = patch.parameters as Schema[];
    assert.ok(params.some((p) => p.name === 'fieldValidation' && p.in === 'query'));
    const types = Object.keys((patch.requestBody as { content: Record<string, unknown> }).content);
    assert.deepEqual(types, ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml']);
  });

  it('should offer only the verbs a resource has', () => {
    const review = widgetResource({ verbs: ['create'], subresources: [], namespaced: false, resource: 'reviews', kind: 'Review', listKind: 'ReviewList' });
    const d = v3GroupVersionDocument([review], INFO);
    assert.deepEqual(Object.keys(pathsOf(d)), ['/apis/example.com/v1/reviews']);
    assert.deepEqual(Object.keys(pathsOf(d)['/apis/example.com/v1/reviews']).sort(), ['parameters', 'post']);
    assert.equal(schemasOf(d)['com.example.v1.ReviewList'], undefined);
  });

  it('should define a subresource typed by another kind', () => {
    const sa = widgetResource({
      group: '', version: 'v1', resource: 'serviceaccounts', kind: 'ServiceAccount', listKind: 'ServiceAccountList', custom: false, schema: undefined,
      subresources: [{ name: 'token', verbs: ['create'], kind: { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' }, schema: { type: 'object', properties: { spec: { type: 'object' } } } }],
    });
    const d = v3GroupVersionDocument([sa], INFO);
    const token = pathsOf(d)['/api/v1/namespaces/{namespace}/serviceaccounts/{name}/token'];
    assert.equal(token.post.operationId, 'createCoreV1NamespacedServiceAccountToken');
    assert.deepEqual(token.post['x-kubernetes-group-version-kind'], { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' });
    assert.ok(schemasOf(d)['io.k8s.api.authentication.v1.TokenRequest']);
    assert.ok(schemasOf(d)['io.k8s.api.core.v1.ServiceAccount']);
  });

  it('should not depend on the order resources come in', () => {
    const a = widgetResource();
    const b = widgetResource({ resource: 'gadgets', kind: 'Gadget', listKind: 'GadgetList' });
    assert.equal(JSON.stringify(v3GroupVersionDocument([a, b], INFO)), JSON.stringify(v3GroupVersionDocument([b, a], INFO)));
  });
});

describe('v3DiscoveryDocument', () => {
  it('should point each group version at its document pinned by hash', () => {
    const doc = v3DiscoveryDocument(new Map([['apis/example.com/v1', 'ABC'], ['api/v1', 'DEF']]));
    assert.deepEqual(doc, {
      paths: {
        'api/v1': { serverRelativeURL: '/openapi/v3/api/v1?hash=DEF' },
        'apis/example.com/v1': { serverRelativeURL: '/openapi/v3/apis/example.com/v1?hash=ABC' },
      },
    });
  });
});
