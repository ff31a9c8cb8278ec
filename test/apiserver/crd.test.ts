// CRD lifecycle with the real OCM ManagedCluster CRD: established + discoverable, defaulting,
// validation, status subresource, printer columns, patch types, deletion, persistence.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { parseYaml } from '../../src/util/yaml.js';
import { CustomObjectsApi, KubernetesObjectApi } from '@kubernetes/client-node';
import { startTestApiServer, type TestApiServer } from '../helpers/embedded-server.js';
import { rawClient, type RawClient } from '../helpers/raw-client.js';
import { waitFor } from '../helpers/wait-for.js';

const CRD_FILE = '/work/shared/reference/crds/cluster/v1/0000_00_clusters.open-cluster-management.io_managedclusters.crd.yaml';
const CRD_NAME = 'managedclusters.cluster.open-cluster-management.io';
const MC_PATH = '/apis/cluster.open-cluster-management.io/v1/managedclusters';

describe('apiserver CRDs', () => {
  let srv: TestApiServer;
  let raw: RawClient;
  before(async () => {
    srv = await startTestApiServer();
    raw = rawClient(srv.kubeConfig);
  });
  after(async () => {
    raw.close();
    await srv.stop();
  });

  const established = async (r: RawClient): Promise<boolean> => {
    const res = await r.request('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CRD_NAME}`);
    return res.json?.status?.conditions?.some((c: { type: string; status: string }) => c.type === 'Established' && c.status === 'True');
  };

  it('should establish a CRD and serve it in discovery', async () => {
    const crd = parseYaml(await readFile(CRD_FILE, 'utf8')) as object;
    const res = await raw.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd });
    assert.equal(res.status, 201, res.text);
    assert.ok(res.json.metadata.finalizers.includes('customresourcecleanup.apiextensions.k8s.io'));
    await waitFor(() => established(raw), 3000);
    const disc = await raw.request('GET', '/apis/cluster.open-cluster-management.io/v1');
    assert.equal(disc.status, 200);
    const entry = disc.json.resources.find((r: { name: string }) => r.name === 'managedclusters');
    assert.equal(entry.kind, 'ManagedCluster');
    assert.equal(entry.namespaced, false);
    assert.ok(disc.json.resources.some((r: { name: string }) => r.name === 'managedclusters/status'));
    const groups = await raw.request('GET', '/apis');
    assert.ok(groups.json.groups.some((g: { name: string }) => g.name === 'cluster.open-cluster-management.io'));
  });

  it('should default, validate and keep status out of main writes', async () => {
    const co = srv.kubeConfig.makeApiClient(CustomObjectsApi);
    const mc = (await co.createClusterCustomObject({
      group: 'cluster.open-cluster-management.io', version: 'v1', plural: 'managedclusters',
      body: { apiVersion: 'cluster.open-cluster-management.io/v1', kind: 'ManagedCluster', metadata: { name: 'c1' }, spec: { hubAcceptsClient: true, bogus: 1 }, status: { version: { kubernetes: 'x' } } },
    })) as { metadata: { generation: number; resourceVersion: string }; spec: Record<string, unknown>; status?: unknown };
    assert.equal(mc.spec.leaseDurationSeconds, 60);
    assert.equal(mc.spec.bogus, undefined);
    assert.equal(mc.status, undefined);
    assert.equal(mc.metadata.generation, 1);
    const bad = await raw.request('POST', MC_PATH, { body: { apiVersion: 'cluster.open-cluster-management.io/v1', kind: 'ManagedCluster', metadata: { name: 'c2' }, spec: { leaseDurationSeconds: 'x' } } });
    assert.equal(bad.status, 422, bad.text);
    assert.match(bad.json.message, /^ManagedCluster.cluster.open-cluster-management.io "c2" is invalid: spec.leaseDurationSeconds/);
    const st = await raw.request('PUT', `${MC_PATH}/c1/status`, {
      body: { ...mc, spec: { hubAcceptsClient: false }, status: { version: { kubernetes: 'v1.30.0' } } },
    });
    assert.equal(st.status, 200, st.text);
    assert.equal(st.json.spec.hubAcceptsClient, true);
    assert.equal(st.json.status.version.kubernetes, 'v1.30.0');
    assert.equal(st.json.metadata.generation, 1);
    const noRv = await raw.request('PUT', `${MC_PATH}/c1`, { body: { ...st.json, metadata: { name: 'c1' } } });
    assert.equal(noRv.status, 422);
    assert.match(noRv.json.message, /metadata.resourceVersion: Invalid value: 0x0: must be specified for an update/);
    const spec = await raw.request('PATCH', `${MC_PATH}/c1`, { body: { spec: { hubAcceptsClient: false } }, headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(spec.json.metadata.generation, 2);
    assert.equal(spec.json.status.version.kubernetes, 'v1.30.0');
    const smp = await raw.request('PATCH', `${MC_PATH}/c1`, { body: {}, headers: { 'content-type': 'application/strategic-merge-patch+json' } });
    assert.equal(smp.status, 415);
    const warn = await raw.request('PATCH', `${MC_PATH}/c1`, { body: { spec: { unknownThing: 1 } }, headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(warn.status, 200);
    assert.equal(warn.headers.warning, '299 - "unknown field \\"spec.unknownThing\\""');
    const strict = await raw.request('PATCH', `${MC_PATH}/c1?fieldValidation=Strict`, { body: { spec: { unknownThing: 1 } }, headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(strict.status, 400);
    assert.equal(strict.json.message, 'strict decoding error: unknown field "spec.unknownThing"');
  });

  it('should serve the CRD through KubernetesObjectApi and as a Table with printer columns', async () => {
    const objs = KubernetesObjectApi.makeApiClient(srv.kubeConfig);
    const got = await objs.read({ apiVersion: 'cluster.open-cluster-management.io/v1', kind: 'ManagedCluster', metadata: { name: 'c1' } });
    assert.equal(got.metadata?.name, 'c1');
    const table = await raw.request('GET', MC_PATH, { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' } });
    assert.equal(table.json.kind, 'Table');
    const names = table.json.columnDefinitions.map((c: { name: string }) => c.name);
    assert.deepEqual(names.slice(0, 3), ['Name', 'Hub Accepted', 'Managed Cluster URLs']);
    assert.equal(table.json.rows[0].cells[0], 'c1');
    assert.equal(table.json.rows[0].cells[1], false);
  });

  it('should keep serving CRDs and objects after a restart', async () => {
    srv = await srv.restart();
    raw.close();
    raw = rawClient(srv.kubeConfig);
    const res = await raw.request('GET', `${MC_PATH}/c1`);
    assert.equal(res.status, 200);
    assert.equal(res.json.status.version.kubernetes, 'v1.30.0');
  });

  it('should delete custom resources, then the CRD and its discovery entries', async () => {
    const mcWithFinalizer = await raw.request('POST', MC_PATH, { body: { apiVersion: 'cluster.open-cluster-management.io/v1', kind: 'ManagedCluster', metadata: { name: 'held', finalizers: ['example.com/hold'] }, spec: {} } });
    assert.equal(mcWithFinalizer.status, 201, mcWithFinalizer.text);
    const del = await raw.request('DELETE', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CRD_NAME}`);
    assert.equal(del.status, 200);
    await waitFor(async () => (await raw.request('GET', `${MC_PATH}/c1`)).status === 404, 3000);
    const refused = await raw.request('POST', MC_PATH, { body: { apiVersion: 'cluster.open-cluster-management.io/v1', kind: 'ManagedCluster', metadata: { name: 'late' }, spec: {} } });
    assert.equal(refused.status, 405);
    await raw.request('PATCH', `${MC_PATH}/held`, { body: { metadata: { finalizers: null } }, headers: { 'content-type': 'application/merge-patch+json' } });
    await waitFor(async () => (await raw.request('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CRD_NAME}`)).status === 404, 5000);
    assert.equal((await raw.request('GET', '/apis/cluster.open-cluster-management.io/v1')).status, 404);
    assert.equal((await raw.request('GET', MC_PATH)).status, 404);
  });
});
