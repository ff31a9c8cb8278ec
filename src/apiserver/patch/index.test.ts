import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../api/meta.js';
import { ApiError } from '../http/errors.js';
import { applyPatch, withUpdatedManagedFields, type ApplyPatchOptions } from './index.js';

const current = (): KubeObject => ({
  apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns', resourceVersion: '5', finalizers: ['a'] }, data: { a: '1' },
});
const base = (o: Partial<ApplyPatchOptions>): ApplyPatchOptions => ({
  contentType: 'application/merge-patch+json', patch: '{}', current: current(), isCustomResource: false, kind: 'ConfigMap', apiVersion: 'v1', ...o,
});

function expectError(o: Partial<ApplyPatchOptions>, code: number, message?: string): void {
  assert.throws(() => applyPatch(base(o)), (e: unknown) => {
    assert.ok(e instanceof ApiError, String(e));
    assert.equal(e.code, code);
    if (message !== undefined) assert.equal(e.message, message);
    return true;
  });
}

describe('applyPatch dispatch', () => {
  it('should apply a merge patch with a charset parameter', () => {
    const out = applyPatch(base({ contentType: 'application/merge-patch+json; charset=utf-8', patch: Buffer.from('{"data":{"b":"2"}}') }));
    assert.deepEqual(out.data, { a: '1', b: '2' });
  });

  it('should apply a JSON patch', () => {
    const out = applyPatch(base({ contentType: 'application/json-patch+json', patch: '[{"op":"replace","path":"/data/a","value":"9"}]' }));
    assert.deepEqual(out.data, { a: '9' });
  });

  it('should apply a strategic merge patch to built-ins (finalizers merge)', () => {
    const out = applyPatch(base({ contentType: 'application/strategic-merge-patch+json', patch: '{"metadata":{"finalizers":["b"]}}' }));
    assert.deepEqual(out.metadata.finalizers, ['a', 'b']);
  });

  it('should refuse strategic merge patch on custom resources with 415 and the accepted list', () => {
    expectError({ contentType: 'application/strategic-merge-patch+json', isCustomResource: true }, 415,
      'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml');
  });

  it('should treat strategic as merge on custom resources when asked to', () => {
    const out = applyPatch(base({ contentType: 'application/strategic-merge-patch+json', isCustomResource: true, strategicAsMergeOnCustomResources: true,
      patch: '{"metadata":{"finalizers":["b"]}}' }));
    assert.deepEqual(out.metadata.finalizers, ['b']);
  });

  it('should refuse unknown media types', () => {
    expectError({ contentType: 'text/plain' }, 415,
      'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml');
  });

  it('should answer 400 for a malformed merge patch and 422 for a JSON patch that does not apply', () => {
    expectError({ patch: '[1]' }, 400);
    expectError({ contentType: 'application/json-patch+json', patch: '[{"op":"remove","path":"/nope"}]' }, 422);
  });

  it('should require fieldManager for apply', () => {
    expectError({ contentType: 'application/apply-patch+yaml', patch: 'data: {a: "2"}' }, 422,
      'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
  });

  it('should forbid force on non-apply patches', () => {
    expectError({ force: true }, 422, 'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch');
  });

  it('should apply YAML and create when the object is missing', () => {
    const yaml = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: "2"\n';
    const created = applyPatch(base({ contentType: 'application/apply-patch+yaml', patch: yaml, current: undefined, fieldManager: 'kubectl', now: '2026-01-01T00:00:00Z' }));
    assert.deepEqual(created.data, { a: '2' });
    assert.equal(created.metadata.managedFields?.[0]?.manager, 'kubectl');
    const json = applyPatch(base({ contentType: 'application/apply-patch+yaml', patch: '{"data":{"b":"3"}}', fieldManager: 'kubectl', force: true }));
    assert.deepEqual(json.data, { a: '1', b: '3' });
    expectError({ contentType: 'application/apply-patch+yaml', patch: '- a\n- b\n', fieldManager: 'kubectl' }, 400);
  });

  it('should use the CRD schema for apply list merging on custom resources', () => {
    const schema = { type: 'object' as const, properties: { spec: { type: 'object' as const, properties: {
      l: { type: 'array' as const, 'x-kubernetes-list-type': 'map' as const, 'x-kubernetes-list-map-keys': ['n'], items: { type: 'object' as const } },
    } } } };
    const cur: KubeObject = { apiVersion: 'g/v1', kind: 'K', metadata: { name: 'k' }, spec: { l: [{ n: 'a' }] } };
    const out = applyPatch({ contentType: 'application/apply-patch+yaml', patch: 'spec:\n  l:\n  - n: b\n', current: cur, isCustomResource: true,
      kind: 'K', apiVersion: 'g/v1', fieldManager: 'm', schema });
    assert.deepEqual(out.spec, { l: [{ n: 'a' }, { n: 'b' }] });
  });
});

describe('withUpdatedManagedFields', () => {
  it('should add an Update entry for the writer', () => {
    const before = current();
    const after = { ...current(), data: { a: '2' } };
    const out = withUpdatedManagedFields({ before, after, manager: 'kubectl-edit', apiVersion: 'v1', now: '2026-01-01T00:00:00Z', isCustomResource: false, kind: 'ConfigMap' });
    assert.deepEqual(out.metadata.managedFields, [{
      manager: 'kubectl-edit', operation: 'Update', apiVersion: 'v1', time: '2026-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {} } },
    }]);
  });
});
