import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from './errors.js';
import { negotiateOutput, patchTypeOf } from './negotiate.js';

describe('negotiateOutput', () => {
  const kubectlTable = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
  const cases: { name: string; accept: string | undefined; list: boolean; expected: unknown }[] = [
    { name: 'missing', accept: undefined, list: false, expected: { type: 'json' } },
    { name: 'client-node', accept: 'application/json, */*;q=0.8', list: false, expected: { type: 'json' } },
    { name: 'kubectl table', accept: kubectlTable, list: true, expected: { type: 'table', apiVersion: 'meta.k8s.io/v1' } },
    { name: 'protobuf with fallback', accept: 'application/vnd.kubernetes.protobuf, application/json', list: false, expected: { type: 'json' } },
    { name: 'yaml', accept: 'application/yaml', list: false, expected: { type: 'yaml' } },
    { name: 'partial list', accept: 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io', list: true, expected: { type: 'partial', list: true } },
    { name: 'star', accept: '*/*', list: false, expected: { type: 'json' } },
  ];
  for (const c of cases) {
    it(`should pick ${JSON.stringify(c.expected)} for ${c.name}`, () => {
      assert.deepEqual(negotiateOutput(c.accept, { allowTransforms: true, list: c.list }), c.expected);
    });
  }
  it('should refuse protobuf-only with 406', () => {
    assert.throws(() => negotiateOutput('application/vnd.kubernetes.protobuf', { allowTransforms: true, list: false }), (e) => e instanceof ApiError && e.code === 406);
  });
  it('should map patch content types', () => {
    assert.equal(patchTypeOf('application/merge-patch+json; charset=utf-8'), 'merge');
    assert.equal(patchTypeOf('application/json-patch+json'), 'json');
    assert.equal(patchTypeOf('application/strategic-merge-patch+json'), 'strategic');
    assert.equal(patchTypeOf('application/apply-patch+yaml'), 'apply');
    assert.equal(patchTypeOf('text/plain'), undefined);
  });
});
