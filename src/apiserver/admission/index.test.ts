import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AdmissionError } from '../../api/admission/admission-error.js';
import { validateClusterSetBinding, validateManagedCluster } from '../../api/admission/managed-cluster-validating.js';
import { runSync } from '../../api/admission/steps.js';
import type { KubeObject } from '../../api/meta.js';
import { nullLogger } from '../../util/logger.js';
import { ApiError } from '../http/errors.js';
import type { AdmissionContext, AdmissionRequest, ResourceDef, UserInfo } from '../pipeline.js';
import type { Store } from '../storage/types.js';
import { ocmAdmissionPlugins } from './index.js';

const user: UserInfo = { username: 'system:bootstrap:abcdef', groups: ['system:bootstrappers', 'system:authenticated'] };
const def = (resource: string, kind: string, namespaced: boolean): ResourceDef => ({
  group: 'cluster.open-cluster-management.io', versions: ['v1'], storageVersion: 'v1', resource, kind, listKind: `${kind}List`,
  singular: kind.toLowerCase(), shortNames: [], categories: [], namespaced, subresources: ['status'], verbs: ['create', 'update'],
});
const clusters = def('managedclusters', 'ManagedCluster', false);
const bindings = def('managedclustersetbindings', 'ManagedClusterSetBinding', true);
// Nothing is stored and nobody may do anything: every refusal path is reached.
const ctx: AdmissionContext = {
  store: { get: () => undefined } as unknown as Store,
  authorizer: { authorize: () => ({ decision: 'noOpinion', reason: '' }) },
  log: nullLogger(),
};

function refusalOf(run: () => void): ApiError | AdmissionError {
  try {
    run();
  } catch (err) {
    assert.ok(err instanceof ApiError || err instanceof AdmissionError, `unexpected ${String(err)}`);
    return err;
  }
  assert.fail('expected a refusal');
}

const request = (resource: ResourceDef, object: KubeObject): AdmissionRequest =>
  ({ operation: 'CREATE', resource, subresource: '', namespace: object.metadata.namespace ?? '', name: object.metadata.name ?? '', object, user });

const cases: Array<{ name: string; resource: ResourceDef; object: KubeObject }> = [
  { name: 'accept without permission', resource: clusters, object: { metadata: { name: 'c1' }, spec: { hubAcceptsClient: true } } },
  { name: 'join without permission', resource: clusters, object: { metadata: { name: 'c1', labels: { 'cluster.open-cluster-management.io/clusterset': 's1' } }, spec: {} } },
  { name: 'bad client config', resource: clusters, object: { metadata: { name: 'c1' }, spec: { managedClusterClientConfigs: [{ url: 'http://x' }] } } },
  { name: 'binding name mismatch', resource: bindings, object: { metadata: { name: 's1', namespace: 'ns' }, spec: { clusterSet: 's2' } } },
  { name: 'bind without permission', resource: bindings, object: { metadata: { name: 's1', namespace: 'ns' }, spec: { clusterSet: 's1' } } },
];

for (const c of cases) {
  test(`embedded admission answers the webhook's Status: ${c.name}`, () => {
    const plugins = ocmAdmissionPlugins().filter((p) => p.validate && p.handles(c.resource.group, c.resource.resource));
    const embedded = refusalOf(() => {
      for (const p of plugins) p.validate!(request(c.resource, structuredClone(c.object)), ctx);
    });
    assert.ok(embedded instanceof ApiError, 'the embedded server answers from its catalogue');
    const shared = refusalOf(() => runSync(c.resource === clusters
      ? validateManagedCluster({ obj: structuredClone(c.object), old: undefined, user, authorize: () => false, namespacePhase: () => undefined })
      : validateClusterSetBinding({ obj: structuredClone(c.object), isCreate: true, user, authorize: () => false })));
    assert.ok(shared instanceof AdmissionError);
    assert.deepEqual(embedded.status, shared.status);
  });
}

test('embedded mutating admission refuses client-set taint times with 400 from the catalogue', () => {
  const [mutating] = ocmAdmissionPlugins().filter((p) => p.mutate);
  const old: KubeObject = { metadata: { name: 'c1' }, spec: { taints: [] } };
  const obj: KubeObject = { metadata: { name: 'c1' }, spec: { taints: [{ key: 'k', effect: 'NoSelect', timeAdded: '2026-01-01T00:00:00Z' }] } };
  const err = refusalOf(() => mutating!.mutate!({ ...request(clusters, obj), operation: 'UPDATE', oldObject: old }, ctx));
  assert.ok(err instanceof ApiError);
  assert.equal(err.code, 400);
  assert.equal(err.message, 'It is not allowed to set TimeAdded of Taint "k".');
});
