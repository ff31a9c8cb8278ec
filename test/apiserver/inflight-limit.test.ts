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

  interface Held {
    /** Sends the rest of the body; resolves with the answer's status. */
    finish(): Promise<number>;
    /** Whether the server has already answered (it refused the request). */
    answered(): boolean;
  }

  /** A create as alice whose body is sent in two parts; resolves once its first part is on the wire. */
  function slowCreate(name: string): Promise<Held> {
    const dec = (v: string | undefined): string => Buffer.from(v ?? '', 'base64').toString('utf8');
    const user = srv.kubeConfig.getCurrentUser();
    const body = Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } }));
    let res: IncomingMessage | undefined;
    const req: ClientRequest = request({
      host: '127.0.0.1', port: srv.port, method: 'POST', path: '/api/v1/namespaces/default/configmaps',
      ca: dec(srv.kubeConfig.getCurrentCluster()?.caData), cert: dec(user?.certData), key: dec(user?.keyData),
      headers: { ...AS_ALICE, 'content-type': 'application/json', 'content-length': String(body.length) },
    });
    const response = new Promise<IncomingMessage>((resolve, reject) => {
      req.on('response', (r: IncomingMessage) => {
        res = r;
        resolve(r);
      });
      req.on('error', reject);
    });
    return new Promise((sent) => {
      req.write(body.subarray(0, 10), () => sent({
        answered: () => res !== undefined,
        finish: async () => {
          req.end(body.subarray(10));
          const r = await response;
          r.resume();
          return r.statusCode ?? 0;
        },
      }));
    });
  }

  /**
   * Holds alice's place with a slow create, and returns it with the 429 of a create made while it
   * is held. The server counts the slow create once its headers are in, which on a busy machine can
   * take a while; and if a probing create holds the place at that moment, the slow create itself is
   * the one refused, so it is started again.
   */
  async function holdPlace(prefix: string): Promise<{ held: Held; refused: Awaited<ReturnType<RawClient['request']>> }> {
    const deadline = Date.now() + 30_000;
    for (let attempt = 0; Date.now() < deadline; attempt++) {
      const held = await slowCreate(`${prefix}-held-${attempt}`);
      for (let i = 0; !held.answered() && Date.now() < deadline; i++) {
        const r = await admin.request('POST', '/api/v1/namespaces/default/configmaps', { headers: AS_ALICE, body: { metadata: { name: `${prefix}-${attempt}-${i}` } } });
        if (r.status === 429 && !held.answered()) return { held, refused: r };
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
    throw new Error('the slow create never held a place');
  }

  it('should answer 429 with Retry-After to one request more than the limit, and serve it again once a place is free', async () => {
    const { held, refused } = await holdPlace('first');
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
        const send = (): Promise<number> => new Promise<number>((resolve, reject) => {
          const stream = session.request({
            ':method': method, ':path': '/api/v1/namespaces/default/configmaps', 'impersonate-user': 'alice', 'content-type': 'application/json',
          });
          let status = 0;
          stream.on('response', (h) => (status = Number(h[':status'])));
          stream.on('close', () => resolve(status));
          stream.on('error', reject);
          stream.resume();
          stream.end(method === 'POST' ? JSON.stringify({ metadata: { name: `h2-${i}` } }) : undefined);
        });
        // the server frees the place when it sees the stream close, which may come just after the
        // client does: a 429 is tried again for a while, a place never freed stays refused
        let status = await send();
        for (let t = 0; t < 100 && status === 429; t++) {
          await new Promise((resolve) => setTimeout(resolve, 20));
          status = await send();
        }
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
      const { held } = await holdPlace('again');
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
