import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { builtinResources } from '../registry/builtin-resources.js';
import type { CrdSpec } from '../registry/crd-resource.js';
import { customResource } from '../registry/custom-resource.js';
import { ResourceRegistry } from '../registry/resource-registry.js';
import { OpenApiService } from './openapi-service.js';

const INFO = { title: 'Kubernetes', version: 'v1.30.0' };

function widgetCrd(sizeType: 'integer' | 'string'): CrdSpec {
  return {
    group: 'example.com', scope: 'Namespaced', names: { plural: 'widgets', kind: 'Widget' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: sizeType } } } } } } }],
  };
}

const parse = (b: Buffer | undefined): any => JSON.parse(String(b));

describe('OpenApiService', () => {
  it('should encode each document once per registry generation, hashed with upper-case SHA-512', () => {
    const registry = new ResourceRegistry(builtinResources(), []);
    const svc = new OpenApiService(registry, INFO);
    const v2 = svc.v2();
    assert.equal(svc.v2(), v2, 'cached');
    assert.equal(v2.hash, createHash('sha512').update(v2.body).digest('hex').toUpperCase());
    const core = svc.v3('api/v1');
    assert.ok(core);
    assert.equal(svc.v3('api/v1'), core);
    assert.ok(parse(core.body).components.schemas['io.k8s.api.core.v1.Namespace']);
    assert.equal(svc.v3('apis/example.com/v1'), undefined);
    assert.equal(parse(svc.v3Discovery().body).paths['api/v1'].serverRelativeURL, `/openapi/v3/api/v1?hash=${core.hash}`);
  });

  it('should follow CRDs: established, changed and removed', () => {
    const registry = new ResourceRegistry(builtinResources(), []);
    const svc = new OpenApiService(registry, INFO);
    const v2Before = svc.v2().hash;
    registry.setCustom('widgets.example.com', customResource(widgetCrd('integer'), undefined));
    const first = svc.v3('apis/example.com/v1');
    assert.ok(first);
    const size = (doc: Buffer): unknown => parse(doc).components.schemas['com.example.v1.Widget'].properties.spec.properties.size.type;
    assert.equal(size(first.body), 'integer');
    assert.ok(parse(svc.v3Discovery().body).paths['apis/example.com/v1']);
    assert.notEqual(svc.v2().hash, v2Before);
    assert.ok(parse(svc.v2().body).definitions['com.example.v1.Widget']);

    // A CRD reconciled without change (a status write) moves the generation: nothing is rebuilt.
    const core = svc.v3('api/v1');
    const v2 = svc.v2();
    registry.setCustom('widgets.example.com', customResource(widgetCrd('integer'), undefined));
    assert.equal(svc.v3('apis/example.com/v1'), first);
    assert.equal(svc.v3('api/v1'), core);
    assert.equal(svc.v2(), v2);

    registry.setCustom('widgets.example.com', customResource(widgetCrd('string'), undefined));
    const changed = svc.v3('apis/example.com/v1');
    assert.ok(changed);
    assert.notEqual(changed.hash, first.hash);
    assert.equal(size(changed.body), 'string');
    assert.equal(svc.v3('api/v1'), core, 'other group versions are not rebuilt');

    registry.setCustom('widgets.example.com', undefined);
    assert.equal(svc.v3('apis/example.com/v1'), undefined);
    assert.equal(parse(svc.v3Discovery().body).paths['apis/example.com/v1'], undefined);
    assert.equal(svc.v2().hash, v2Before);
  });
});
