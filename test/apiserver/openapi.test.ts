// OpenAPI v2 and v3 over real HTTPS: the documents, their caching headers, who may read them, and
// how they follow CRDs created, changed and deleted at run time.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { KubeConfig } from '@kubernetes/client-node';
import { HUB_CRD_NAMES } from '../../src/api/crds.js';
import { startOcmApiServer, type OcmApiServer } from '../helpers/ocm-api-server.js';
import { rawClient, type RawClient } from '../helpers/raw-client.js';
import { waitFor } from '../helpers/wait-for.js';

const CRD_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const PROTOBUF_V2 = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

function gadgetCrd(fields: Record<string, unknown>): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'gadgets.example.com' },
    spec: {
      group: 'example.com', scope: 'Cluster', names: { plural: 'gadgets', kind: 'Gadget' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: fields } } } } }],
    },
  };
}

describe('OpenAPI documents', () => {
  let api: OcmApiServer;
  let raw: RawClient;
  before(async () => {
    api = await startOcmApiServer({ crds: HUB_CRD_NAMES });
    raw = rawClient(api.server.kubeConfig);
  });
  after(async () => {
    raw.close();
    await api.stop();
  });

  const discovery = async (): Promise<Record<string, { serverRelativeURL: string }>> => {
    const res = await raw.request('GET', '/openapi/v3');
    assert.equal(res.status, 200);
    return res.json.paths;
  };

  it('should list every group version in /openapi/v3 and serve each as OpenAPI 3.0 with kube-apiserver names', async () => {
    const paths = await discovery();
    for (const gv of ['api/v1', 'apis/apps/v1', 'apis/cluster.open-cluster-management.io/v1', 'apis/cluster.open-cluster-management.io/v1beta2']) {
      assert.match(paths[gv]?.serverRelativeURL ?? '', new RegExp(`^/openapi/v3/${gv}\\?hash=[0-9A-F]{128}$`), gv);
    }
    const res = await raw.request('GET', paths['apis/cluster.open-cluster-management.io/v1'].serverRelativeURL);
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'], 'application/json');
    assert.equal(res.json.openapi, '3.0.0');
    const mc = res.json.components.schemas['io.open-cluster-management.cluster.v1.ManagedCluster'];
    assert.deepEqual(mc['x-kubernetes-group-version-kind'], [{ group: 'cluster.open-cluster-management.io', version: 'v1', kind: 'ManagedCluster' }]);
    assert.equal(mc.properties.spec.properties.hubAcceptsClient.type, 'boolean');
    assert.ok(res.json.components.schemas['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta']);
    const item = res.json.paths['/apis/cluster.open-cluster-management.io/v1/managedclusters/{name}'];
    assert.deepEqual(item.get['x-kubernetes-group-version-kind'], { group: 'cluster.open-cluster-management.io', version: 'v1', kind: 'ManagedCluster' });

    const core = await raw.request('GET', paths['api/v1'].serverRelativeURL);
    assert.deepEqual(core.json.components.schemas['io.k8s.api.core.v1.Namespace']['x-kubernetes-group-version-kind'], [{ group: '', version: 'v1', kind: 'Namespace' }]);
    assert.ok(core.json.paths['/api/v1/namespaces/{namespace}/configmaps/{name}'].patch);
  });

  it('should cache by hash: immutable when it matches, a redirect when stale, 304 for a known ETag', async () => {
    const url = (await discovery())['api/v1'].serverRelativeURL;
    const hash = new URL(url, 'https://x').searchParams.get('hash');
    const pinned = await raw.request('GET', url);
    assert.equal(pinned.headers['cache-control'], 'public, immutable');
    assert.equal(pinned.headers.etag, `"${hash}"`);
    assert.ok(Date.parse(String(pinned.headers.expires)) > Date.now() + 300 * 24 * 3600 * 1000);

    const unpinned = await raw.request('GET', '/openapi/v3/api/v1');
    assert.equal(unpinned.status, 200);
    assert.equal(unpinned.headers['cache-control'], 'no-cache, private');
    assert.equal(unpinned.headers.etag, `"${hash}"`);

    const stale = await raw.request('GET', '/openapi/v3/api/v1?hash=0123');
    assert.equal(stale.status, 301);
    assert.equal(stale.headers.location, url);

    const notModified = await raw.request('GET', url, { headers: { 'if-none-match': `"${hash}"` } });
    assert.equal(notModified.status, 304);
    assert.equal(notModified.text, '');
    const root = await raw.request('GET', '/openapi/v3');
    assert.equal((await raw.request('GET', '/openapi/v3', { headers: { 'if-none-match': String(root.headers.etag) } })).status, 304);
  });

  it('should answer bad requests with a Status: unknown group version, unacceptable type, wrong method', async () => {
    const cases: Array<{ method: string; path: string; headers: Record<string, string>; code: number; reason: string }> = [
      { method: 'GET', path: '/openapi/v3/apis/nope.example.com/v1', headers: {}, code: 404, reason: 'NotFound' },
      { method: 'GET', path: '/openapi/v3/api/v1', headers: { accept: 'application/com.github.proto-openapi.spec.v3@v1.0+protobuf' }, code: 406, reason: 'NotAcceptable' },
      { method: 'GET', path: '/openapi/v2', headers: { accept: 'text/html' }, code: 406, reason: 'NotAcceptable' },
      { method: 'POST', path: '/openapi/v3', headers: {}, code: 405, reason: 'MethodNotAllowed' },
      { method: 'DELETE', path: '/openapi/v2', headers: {}, code: 405, reason: 'MethodNotAllowed' },
    ];
    for (const c of cases) {
      const res = await raw.request(c.method, c.path, { headers: c.headers });
      assert.equal(res.status, c.code, `${c.method} ${c.path}`);
      assert.equal(res.json?.kind, 'Status');
      assert.equal(res.json.apiVersion, 'v1');
      assert.equal(res.json.status, 'Failure');
      assert.equal(res.json.reason, c.reason);
      assert.equal(res.json.code, c.code);
    }
  });

  it('should serve Swagger 2.0 JSON on /openapi/v2, and the minimal protobuf document to protobuf clients', async () => {
    const json = await raw.request('GET', '/openapi/v2', { headers: { accept: 'application/json' } });
    assert.equal(json.status, 200);
    assert.equal(json.headers['content-type'], 'application/json');
    assert.match(String(json.headers.etag), /^"[0-9A-F]{128}"$/);
    assert.equal(json.json.swagger, '2.0');
    const defs = json.json.definitions;
    assert.deepEqual(defs['io.k8s.api.core.v1.Namespace']['x-kubernetes-group-version-kind'], [{ group: '', version: 'v1', kind: 'Namespace' }]);
    assert.deepEqual(defs['io.open-cluster-management.cluster.v1beta2.ManagedClusterSet']['x-kubernetes-group-version-kind'], [{ group: 'cluster.open-cluster-management.io', version: 'v1beta2', kind: 'ManagedClusterSet' }]);
    assert.equal(defs['io.open-cluster-management.cluster.v1.ManagedCluster'].properties.metadata.$ref, '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
    assert.ok(json.json.paths['/apis/cluster.open-cluster-management.io/v1/managedclusters/{name}'].get);
    assert.equal((await raw.request('GET', '/openapi/v2')).json?.swagger, '2.0', 'JSON without an Accept header');

    for (const path of ['/openapi/v2', '/swagger-2.0.0.pb-v1']) {
      const pb = await raw.request('GET', path, { headers: { accept: PROTOBUF_V2 } });
      assert.equal(pb.status, 200, path);
      assert.equal(pb.headers['content-type'], 'application/octet-stream');
      assert.equal(pb.text, '\n\u00032.0');
    }
  });

  it('should let any authenticated user read the documents (system:discovery) and not anonymous users', async () => {
    const cert = await api.server.server.pki.issueClientCertificate({ commonName: 'nobody-special', organizations: [] });
    const kc = new KubeConfig();
    const cluster = api.server.kubeConfig.getCurrentCluster();
    assert.ok(cluster);
    kc.loadFromOptions({
      clusters: [cluster], contexts: [{ name: 'u', cluster: cluster.name, user: 'u' }], currentContext: 'u',
      users: [{ name: 'u', certData: Buffer.from(cert.certPem).toString('base64'), keyData: Buffer.from(cert.keyPem).toString('base64') }],
    });
    const user = rawClient(kc);
    const anon = rawClient(api.server.kubeConfig, { anonymous: true });
    try {
      for (const path of ['/openapi/v3', '/openapi/v3/api/v1', '/openapi/v2']) {
        assert.equal((await user.request('GET', path)).status, 200, path);
        const denied = await anon.request('GET', path);
        assert.equal(denied.status, 403, path);
        assert.equal(denied.json.reason, 'Forbidden');
      }
      assert.equal((await user.request('GET', '/api/v1/namespaces')).status, 403, 'no more than discovery');
    } finally {
      user.close();
      anon.close();
    }
  });

  it('should follow a CRD created, changed and deleted at run time', async () => {
    const gadgetUrl = async (): Promise<string | undefined> => (await discovery())['apis/example.com/v1']?.serverRelativeURL;
    assert.equal(await gadgetUrl(), undefined);
    const v2Before = (await raw.request('GET', '/openapi/v2')).headers.etag;
    assert.equal((await raw.request('POST', CRD_PATH, { body: gadgetCrd({ size: { type: 'integer' } }) })).status, 201);
    const first = await waitFor(gadgetUrl, 10_000, { message: 'gadgets in /openapi/v3' });
    const doc = (await raw.request('GET', first)).json;
    assert.equal(doc.components.schemas['com.example.v1.Gadget'].properties.spec.properties.size.type, 'integer');
    assert.notEqual((await raw.request('GET', '/openapi/v2')).headers.etag, v2Before);

    const crd = (await raw.request('GET', `${CRD_PATH}/gadgets.example.com`)).json;
    crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.colour = { type: 'string' };
    assert.equal((await raw.request('PUT', `${CRD_PATH}/gadgets.example.com`, { body: crd })).status, 200);
    const second = await waitFor(async () => ((await gadgetUrl()) !== first ? gadgetUrl() : undefined), 10_000, { message: 'a new hash after the CRD changed' });
    const changed = (await raw.request('GET', second)).json;
    assert.equal(changed.components.schemas['com.example.v1.Gadget'].properties.spec.properties.colour.type, 'string');
    const redirected = await raw.request('GET', first);
    assert.equal(redirected.status, 301, 'the old hash points at the new document');
    assert.equal(redirected.headers.location, second);

    assert.equal((await raw.request('DELETE', `${CRD_PATH}/gadgets.example.com`)).status, 200);
    await waitFor(async () => (await gadgetUrl()) === undefined, 10_000, { message: 'gadgets gone from /openapi/v3' });
    assert.equal((await raw.request('GET', '/openapi/v3/apis/example.com/v1')).status, 404);
    await waitFor(async () => (await raw.request('GET', '/openapi/v2')).headers.etag === v2Before, 10_000, { message: 'v2 back to its first content' });
  });
});
