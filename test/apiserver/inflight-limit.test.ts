// kube-apiserver's max-in-flight limits over real HTTPS: a request still sending its body holds its
// place; one more of the same kind is answered 429 with Retry-After: 1 before anything is done for
// it, the other kind, watches and system:masters are not held back, and the place is free again
// once the first request has been answered.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect as http2Connect } from 'node:http2';
import type { ClientRequest, IncomingMessage } from 'node:http';
import { request } from 'node:https';
import { startTestApiServer, type TestApiServer } from '../helpers/embedded-server.js';
import { rawClient, type RawClient } from '../helpers/raw-client.js';
import { createKubeClient } from '../../src/client/rest-client.js';
import { resourceTypes } from '../../src/client/resource-types.js';

const AS_ALICE = { 'Impersonate-User': 'alice' };

describe('apiserver in-flight limits', () => {
  let srv: TestApiServer;
  let admin: RawClient;

  before(async () => {
    srv = await startTestApiServer({ inflightLimits: { maxRequestsInflight: 1, maxMutatingRequestsInflight: 1 } });
    admin = rawClient(srv.kubeConfig);
    // alice may do anything, without being in system:masters (whose requests are never held back)
    const binding = {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'alice-admin' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' }],
    };
    assert.equal((await admin.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', { body: binding })).status, 201);
  });
  after(async () => {
    admin.close();
    await srv.stop();
  });

  /** A create as alice whose body is sent in two parts: the request is in flight until `finish()`. */
  function slowCreate(name: string): { finish: () => Promise<number> } {
    const dec = (v: string | undefined): string => Buffer.from(v ?? '', 'base64').toString('utf8');
    const user = srv.kubeConfig.getCurrentUser();
    const body = Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } }));
    let held: ClientRequest | undefined;
    const answered = new Promise<IncomingMessage>((resolve, reject) => {
      const req: ClientRequest = request({
        host: '127.0.0.1', port: srv.port, method: 'POST', path: '/api/v1/namespaces/default/configmaps',
        ca: dec(srv.kubeConfig.getCurrentCluster()?.caData), cert: dec(user?.certData), key: dec(user?.keyData),
        headers: { ...AS_ALICE, 'content-type': 'application/json', 'content-length': String(body.length) },
      }, resolve);
      req.on('error', reject);
      req.write(body.subarray(0, 10));
      held = req;
    });
    return {
      finish: async () => {
        held!.end(body.subarray(10));
        const res = await answered;
        res.resume();
        return res.statusCode ?? 0;
      },
    };
  }

  it('should answer 429 with Retry-After to one request more than the limit, and serve it again once a place is free', async () => {
    const held = slowCreate('held');
    // the server counts the request once its headers are in; wait until a second one is refused
    let refused = await admin.request('POST', '/api/v1/namespaces/default/configmaps', { headers: AS_ALICE, body: { metadata: { name: 'second' } } });
    for (let i = 0; i < 50 && refused.status !== 429; i++) {
      await new Promise((r) => setTimeout(r, 20));
      refused = await admin.request('POST', '/api/v1/namespaces/default/configmaps', { headers: AS_ALICE, body: { metadata: { name: `second-${i}` } } });
    }
    assert.equal(refused.status, 429);
    assert.equal(refused.headers['retry-after'], '1');
    assert.equal(refused.json.kind, 'Status');
    assert.equal(refused.json.reason, 'TooManyRequests');
    assert.equal(refused.json.message, 'Too many requests, please try again later.');
    assert.equal(refused.json.details.retryAfterSeconds, 1);

    // reads have their own limit; watches, system:masters and health probes are never held back
    assert.equal((await admin.request('GET', '/api/v1/namespaces/default/configmaps', { headers: AS_ALICE })).status, 200);
    const watch = await admin.stream('/api/v1/namespaces/default/configmaps?watch=true', AS_ALICE);
    assert.equal(watch.status, 200);
    assert.equal((await admin.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'by-admin' } } })).status, 201);
    assert.equal((await admin.request('GET', '/readyz', { headers: AS_ALICE })).status, 200);
    watch.close();

    assert.equal(await held.finish(), 201);
    assert.equal((await admin.request('POST', '/api/v1/namespaces/default/configmaps', { headers: AS_ALICE, body: { metadata: { name: 'after' } } })).status, 201);
  });

  it('should free the place of every request answered over HTTP/2, as over HTTP/1.1', async () => {
    const dec = (v: string | undefined): string => Buffer.from(v ?? '', 'base64').toString('utf8');
    const user = srv.kubeConfig.getCurrentUser();
    const session = http2Connect(`https://127.0.0.1:${srv.port}`, {
      ca: dec(srv.kubeConfig.getCurrentCluster()?.caData), cert: dec(user?.certData), key: dec(user?.keyData), servername: 'localhost',
    });
    try {
      // with a limit of one, a place not freed would refuse the next request
      for (let i = 0; i < 20; i++) {
        const method = i % 2 === 0 ? 'GET' : 'POST';
        const status = await new Promise<number>((resolve, reject) => {
          const stream = session.request({
            ':method': method, ':path': '/api/v1/namespaces/default/configmaps', 'impersonate-user': 'alice', 'content-type': 'application/json',
          });
          stream.on('response', (h) => resolve(Number(h[':status'])));
          stream.on('error', reject);
          stream.resume();
          stream.end(method === 'POST' ? JSON.stringify({ metadata: { name: `h2-${i}` } }) : undefined);
        });
        assert.equal(status, method === 'GET' ? 200 : 201, `${method} #${i}`);
      }
    } finally {
      session.close();
    }
  });

  it("should have ocm-ts's own client send a refused request again after Retry-After, as client-go does", async () => {
    const dec = (v: string | undefined): string => Buffer.from(v ?? '', 'base64').toString('utf8');
    const user = srv.kubeConfig.getCurrentUser();
    const client = createKubeClient({
      server: srv.url, caPem: dec(srv.kubeConfig.getCurrentCluster()?.caData), certPem: dec(user?.certData), keyPem: dec(user?.keyData),
      contextName: 'test', impersonate: { user: 'alice' },
    });
    try {
      const held = slowCreate('held-again');
      // the held create is in flight once another create is refused
      for (let i = 0; i < 50; i++) {
        const r = await admin.request('POST', '/api/v1/namespaces/default/configmaps', { headers: AS_ALICE, body: { metadata: { name: `probe-${i}` } } });
        if (r.status === 429) break;
        await new Promise((r2) => setTimeout(r2, 20));
      }
      const created = client.resource(resourceTypes.configMaps, 'default').create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'retried' } });
      // refused first (the place is taken), then sent again one second later, after the place is free
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(await held.finish(), 201);
      assert.equal((await created).metadata.name, 'retried');
    } finally {
      client.close();
    }
  });
});
