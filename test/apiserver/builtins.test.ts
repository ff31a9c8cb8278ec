// Built-in kinds beyond ConfigMap: Events through both APIs, Leases, RBAC objects, generateName,
// DeleteCollection, and the CSR pipeline (identity injection, approval, built-in signer).

import 'reflect-metadata';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CertificatesV1Api, CoreV1Api } from '@kubernetes/client-node';
import { createCsr, generateKeyPair } from '../../src/util/x509.js';
import { startTestApiServer, type TestApiServer } from '../helpers/embedded-server.js';
import { rawClient, type RawClient } from '../helpers/raw-client.js';
import { useRawServer } from '../helpers/raw-server.js';
import { waitFor } from '../helpers/wait-for.js';

describe('apiserver built-in kinds', () => {
  let srv: TestApiServer;
  let raw: RawClient;
  useRawServer((s, r) => {
    srv = s;
    raw = r;
  });

  it('should share Events between core/v1 and events.k8s.io/v1', async () => {
    const created = await raw.request('POST', '/apis/events.k8s.io/v1/namespaces/default/events', {
      body: {
        apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'cluster1.17f3c5a9b2c1d0e8' },
        eventTime: '2025-01-01T10:00:00.123456Z', reportingController: 'registration-controller', reportingInstance: 'hub-1',
        action: 'Create', reason: 'ManagedClusterCreated', note: 'hello', type: 'Normal',
        regarding: { apiVersion: 'cluster.open-cluster-management.io/v1', kind: 'ManagedCluster', name: 'cluster1' },
      },
    });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.json.note, 'hello');
    const core = await raw.request('GET', '/api/v1/namespaces/default/events/cluster1.17f3c5a9b2c1d0e8');
    assert.equal(core.json.apiVersion, 'v1');
    assert.equal(core.json.message, 'hello');
    assert.equal(core.json.involvedObject.name, 'cluster1');
    const sel = await raw.request('GET', '/apis/events.k8s.io/v1/namespaces/default/events?fieldSelector=regarding.name%3Dcluster1');
    assert.equal(sel.json.items.length, 1);
    assert.equal(sel.json.items[0].regarding.kind, 'ManagedCluster');
    const coreSel = await raw.request('GET', '/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3Dcluster1,reason%3DManagedClusterCreated');
    assert.equal(coreSel.json.items.length, 1);
  });

  it('should expire old Events after the configured TTL', async () => {
    const short = await startTestApiServer({ eventTtlMs: 100 });
    const r = rawClient(short.kubeConfig);
    try {
      const old = await r.request('POST', '/api/v1/namespaces/default/events', {
        body: { metadata: { name: 'old.1' }, involvedObject: { name: 'x' }, reason: 'R', message: 'm', lastTimestamp: '2020-01-01T00:00:00Z' },
      });
      assert.equal(old.status, 201, old.text);
      await waitFor(async () => (await r.request('GET', '/api/v1/namespaces/default/events/old.1')).status === 404, 5000);
    } finally {
      r.close();
      await short.stop();
    }
  });

  it('should store Leases with MicroTime and reject negative durations', async () => {
    const ok = await raw.request('POST', '/apis/coordination.k8s.io/v1/namespaces/default/leases', {
      body: { metadata: { name: 'l1' }, spec: { holderIdentity: 'a', leaseDurationSeconds: 60, renewTime: '2025-01-01T10:05:00.123456Z' } },
    });
    assert.equal(ok.status, 201);
    assert.equal(ok.json.spec.renewTime, '2025-01-01T10:05:00.123456Z');
    const bad = await raw.request('POST', '/apis/coordination.k8s.io/v1/namespaces/default/leases', { body: { metadata: { name: 'l2' }, spec: { leaseDurationSeconds: -1 } } });
    assert.equal(bad.status, 422);
  });

  it('should generate names and delete collections by selector', async () => {
    const names: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await raw.request('POST', '/api/v1/namespaces/default/secrets', { body: { metadata: { generateName: 'gen-', labels: { batch: 'b1' } } } });
      assert.equal(r.status, 201);
      assert.match(r.json.metadata.name, /^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
      names.push(r.json.metadata.name);
    }
    const del = await raw.request('DELETE', '/api/v1/namespaces/default/secrets?labelSelector=batch%3Db1');
    assert.equal(del.status, 200);
    assert.equal(del.json.kind, 'SecretList');
    assert.deepEqual(del.json.items.map((i: { metadata: { name: string } }) => i.metadata.name).sort(), names.sort());
    const left = await raw.request('GET', '/api/v1/namespaces/default/secrets?labelSelector=batch%3Db1');
    assert.equal(left.json.items.length, 0);
  });

  it('should serve RBAC objects and answer SelfSubjectAccessReview', async () => {
    const role = await raw.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
      body: { metadata: { name: 'demo:reader' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }] },
    });
    assert.equal(role.status, 201, role.text);
    const ssar = await raw.request('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
      body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { verb: 'delete', resource: 'secrets', namespace: 'default' } } },
    });
    assert.equal(ssar.status, 201, ssar.text);
    assert.equal(ssar.json.status.allowed, true);
  });

  it('should issue ServiceAccount tokens through serviceaccounts/token that authenticate', async () => {
    const disc = await raw.request('GET', '/api/v1');
    const entry = disc.json.resources.find((r: { name: string }) => r.name === 'serviceaccounts/token');
    assert.deepEqual([entry.group, entry.version, entry.kind, entry.verbs], ['authentication.k8s.io', 'v1', 'TokenRequest', ['create']]);
    const tr = await raw.request('POST', '/api/v1/namespaces/default/serviceaccounts/default/token', {
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } },
    });
    assert.equal(tr.status, 201, tr.text);
    const anon = rawClient(srv.kubeConfig, { anonymous: true });
    try {
      const res = await anon.request('GET', '/api/v1/namespaces/default/secrets', { headers: { authorization: `Bearer ${tr.json.status.token}` } });
      assert.equal(res.status, 403);
      assert.match(res.json.message, /User "system:serviceaccount:default:default" cannot list resource "secrets"/);
      const bad = await anon.request('GET', '/api/v1/namespaces/default/secrets', { headers: { authorization: 'Bearer nope' } });
      assert.equal(bad.status, 401);
    } finally {
      anon.close();
    }
  });

  it('should inject the requester into CSRs and sign approved kube-apiserver-client CSRs', async () => {
    const key = await generateKeyPair('ecdsa-p256');
    const csrPem = await createCsr({ commonName: 'user1', organizations: ['team'], privateKeyPem: key.privateKeyPem });
    const api = srv.kubeConfig.makeApiClient(CertificatesV1Api);
    const created = await api.createCertificateSigningRequest({
      body: {
        metadata: { name: 'csr1' },
        spec: { request: Buffer.from(csrPem).toString('base64'), signerName: 'kubernetes.io/kube-apiserver-client', usages: ['digital signature', 'client auth'], username: 'forged', expirationSeconds: 3600 },
      },
    });
    assert.notEqual(created.spec.username, 'forged');
    assert.ok(created.spec.groups?.includes('system:masters'));
    created.status = { conditions: [{ type: 'Approved', status: 'True', reason: 'Test', message: 'ok', lastUpdateTime: new Date() }] };
    await api.replaceCertificateSigningRequestApproval({ name: 'csr1', body: created });
    const signed = await waitFor(async () => (await api.readCertificateSigningRequest({ name: 'csr1' })).status?.certificate, 10_000);
    assert.match(Buffer.from(signed, 'base64').toString('utf8'), /BEGIN CERTIFICATE/);
    const core = srv.kubeConfig.makeApiClient(CoreV1Api);
    assert.ok((await core.listNamespace()).items.length >= 4);
  });
});
