import { describe, it, test } from 'node:test';
import assert from 'node:assert/strict';
import { relative } from 'node:path';
import type { KubeObject } from '../../../api/meta.js';
import { apiApprovalErrors, crdWarnings, defaultCustomResourceDefinition, structuralSchemaErrors, validateCustomResourceDefinition } from './crd-validation.js';
import { loadCrds } from '../../../api/crds.js';
import { MANAGED_CLUSTER_CRD, REFERENCE_CRDS, loadCrd, referenceCrdFiles } from '../../../../test/apiserver-schema/reference-crds.js';

const render = (errs: Array<{ field: string; message: string }>): string[] => errs.map((e) => `${e.field}: ${e.message}`);

describe('validateCustomResourceDefinition', () => {
  for (const file of referenceCrdFiles()) {
    const rel = relative(REFERENCE_CRDS, file);
    it(`should accept the reference CRD ${rel}`, () => {
      assert.deepEqual(render(validateCustomResourceDefinition(loadCrd(rel))), []);
    });
  }

  const base = (): any => structuredClone(loadCrd(MANAGED_CLUSTER_CRD));
  const cases: Array<{ name: string; edit: (c: any) => void; expected: string[] }> = [
    { name: 'a name that is not plural.group', edit: (c) => { c.metadata.name = 'x.cluster.open-cluster-management.io'; },
      expected: ['metadata.name: Invalid value: "x.cluster.open-cluster-management.io": must be spec.names.plural+"."+spec.group'] },
    { name: 'an upper-case plural', edit: (c) => { c.spec.names.plural = 'Clusters'; c.metadata.name = 'Clusters.cluster.open-cluster-management.io'; },
      expected: [`spec.names.plural: Invalid value: "Clusters": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`] },
    { name: 'a group without a dot', edit: (c) => { c.spec.group = 'cluster'; c.metadata.name = 'managedclusters.cluster'; },
      expected: ['spec.group: Invalid value: "cluster": should be a domain with at least one dot'] },
    { name: 'a bad scope', edit: (c) => { c.spec.scope = 'Global'; },
      expected: ['spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"'] },
    { name: 'no storage version', edit: (c) => { c.spec.versions[0].storage = false; },
      expected: ['spec.versions: Invalid value: ["v1"]: must have exactly one version marked as storage version'] },
    { name: 'two storage versions', edit: (c) => { c.spec.versions.push({ ...structuredClone(c.spec.versions[0]), name: 'v2' }); },
      expected: ['spec.versions: Invalid value: ["v1","v2"]: must have exactly one version marked as storage version'] },
    { name: 'a missing served flag', edit: (c) => { delete c.spec.versions[0].served; },
      expected: ['spec.versions[0].served: Required value'] },
    { name: 'a missing schema', edit: (c) => { delete c.spec.versions[0].schema; },
      expected: ['spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required'] },
    { name: 'a webhook conversion', edit: (c) => { c.spec.conversion = { strategy: 'Webhook' }; },
      expected: ['spec.conversion.strategy: Unsupported value: "Webhook": supported values: "None"'] },
    { name: 'listKind equal to kind', edit: (c) => { c.spec.names.listKind = 'ManagedCluster'; },
      expected: ['spec.names.listKind: Invalid value: "ManagedCluster": kind and listKind may not be the same'] },
    { name: 'a non-structural schema', edit: (c) => { c.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.x = { properties: { a: { type: 'string' } } }; },
      expected: ['spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[x].type: Required value: must not be empty for specified object fields'] },
    { name: 'a pattern RE2 cannot compile (lookahead)', edit: (c) => { c.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.x = { type: 'string', pattern: '^(?=a)a$' }; },
      expected: ["spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[x].pattern: Invalid value: \"^(?=a)a$\": must be a valid regular expression, but isn't: error parsing regexp: invalid or unsupported Perl syntax: `(?=`"] },
    { name: 'a backreference pattern inside a junctor', edit: (c) => { c.spec.versions[0].schema.openAPIV3Schema.properties.spec.anyOf = [{ properties: { y: { pattern: '(a)\\1' } } }]; },
      expected: ["spec.versions[0].schema.openAPIV3Schema.properties[spec].anyOf[0].properties[y].pattern: Invalid value: \"(a)\\\\1\": must be a valid regular expression, but isn't: error parsing regexp: invalid escape sequence: `\\1`"] },
    { name: 'a default of the wrong type', edit: (c) => { c.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.leaseDurationSeconds.default = 'x'; },
      expected: ['spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[leaseDurationSeconds].default: Invalid value: "string": spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[leaseDurationSeconds].default in body must be of type integer: "string"'] },
  ];
  for (const c of cases) {
    it(`should reject ${c.name}`, () => {
      const crd = base();
      c.edit(crd);
      assert.deepEqual(render(validateCustomResourceDefinition(crd as KubeObject)), c.expected);
    });
  }

  it('should refuse changes of group and scope on update', () => {
    const old = base();
    const next = base();
    next.spec.scope = 'Namespaced';
    assert.deepEqual(render(validateCustomResourceDefinition(next, old)), ['spec.scope: Invalid value: "Namespaced": field is immutable']);
  });
});

describe('the project manifests (manifests/crds)', () => {
  for (const crd of loadCrds()) {
    it(`should accept ${crd.metadata.name}`, () => {
      assert.deepEqual(render(validateCustomResourceDefinition(crd)), []);
    });
  }
});

describe('structuralSchemaErrors', () => {
  const cases: Array<{ name: string; schema: any; expected: string[] }> = [
    { name: 'a root that is not an object', schema: { type: 'array', items: { type: 'string' } }, expected: ['s.type: Invalid value: "array": must be object at the root'] },
    { name: 'an array without items', schema: { type: 'object', properties: { a: { type: 'array' } } }, expected: ['s.properties[a].items: Required value: must be specified'] },
    { name: 'a map list without keys', schema: { type: 'object', properties: { a: { type: 'array', 'x-kubernetes-list-type': 'map', items: { type: 'object' } } } },
      expected: ['s.properties[a].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map'] },
    { name: 'a default inside anyOf', schema: { type: 'object', anyOf: [{ default: 1 }] }, expected: ['s.anyOf[0].default: Forbidden: must be undefined to be structural'] },
    { name: 'int-or-string with a type', schema: { type: 'object', properties: { a: { type: 'string', 'x-kubernetes-int-or-string': true } } },
      expected: ['s.properties[a].type: Invalid value: "string": must be empty if x-kubernetes-int-or-string is true'] },
    { name: 'nothing wrong with int-or-string anyOf', schema: { type: 'object', properties: { a: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] } } }, expected: [] },
  ];
  for (const c of cases) {
    it(`should report ${c.name}`, () => assert.deepEqual(render(structuralSchemaErrors(c.schema, 's')), c.expected));
  }
});

describe('CRD defaults and warnings', () => {
  it('should default singular, listKind, conversion and storedVersions', () => {
    const crd = base2();
    const out = defaultCustomResourceDefinition(crd) as any;
    assert.equal(out.spec.names.singular, 'thing');
    assert.equal(out.spec.names.listKind, 'ThingList');
    assert.deepEqual(out.spec.conversion, { strategy: 'None' });
    assert.deepEqual(out.status.storedVersions, ['v1']);
    assert.equal((crd as any).spec.names.singular, undefined, 'input untouched');
  });

  it('should warn about CEL rules that are not enforced', () => {
    const crd = base2() as any;
    crd.spec.versions[0].schema.openAPIV3Schema.properties.spec = { type: 'object', 'x-kubernetes-validations': [{ rule: 'self.a > 0' }] };
    assert.deepEqual(crdWarnings(crd), ['spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations: CEL validation rules are not enforced by this server']);
  });

  function base2(): KubeObject {
    return {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'things.example.com' },
      spec: { group: 'example.com', scope: 'Namespaced', names: { plural: 'things', kind: 'Thing' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: {} } } }] },
    };
  }
});

test('a CRD in a protected group (*.k8s.io, *.kubernetes.io) needs the API approval annotation, as kube-apiserver', () => {
  const crd = (group: string, annotation?: string): KubeObject =>
    ({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `things.${group}`, ...(annotation !== undefined ? { annotations: { 'api-approved.kubernetes.io': annotation } } : {}) } }) as KubeObject;
  const missing = apiApprovalErrors(crd('about.k8s.io'), undefined, 'about.k8s.io');
  assert.deepEqual(missing.map((e) => [e.field, e.reason]), [['metadata.annotations[api-approved.kubernetes.io]', 'FieldValueRequired']]);
  assert.match(missing[0]!.message, /protected groups must have approval annotation "api-approved.kubernetes.io", see https:\/\/github.com\/kubernetes\/enhancements\/pull\/1111/);
  assert.deepEqual(apiApprovalErrors(crd('about.k8s.io', 'https://github.com/kubernetes/enhancements/pull/3084'), undefined, 'about.k8s.io'), []);
  assert.deepEqual(apiApprovalErrors(crd('x.kubernetes.io', 'unapproved, experimental'), undefined, 'x.kubernetes.io'), []);
  assert.equal(apiApprovalErrors(crd('about.k8s.io', 'yes please'), undefined, 'about.k8s.io')[0]?.reason, 'FieldValueInvalid');
  // Not protected: multicluster.x-k8s.io and OCM's groups need nothing.
  assert.deepEqual(apiApprovalErrors(crd('multicluster.x-k8s.io'), undefined, 'multicluster.x-k8s.io'), []);
  assert.deepEqual(apiApprovalErrors(crd('cluster.open-cluster-management.io'), undefined, 'cluster.open-cluster-management.io'), []);
  // An update keeping the old state passes.
  assert.deepEqual(apiApprovalErrors(crd('about.k8s.io'), crd('about.k8s.io'), 'about.k8s.io'), []);
});
