// The fuzz suite's write attribution: what it reads from keys and paths, and which writes it
// recognises as the server's own controllers'.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../src/api/meta.js';
import type { StoreEvent, StoredObject } from '../../src/apiserver/storage/types.js';
import { auditWrites, isControllerWrite, keyParts, requestTarget } from './store-audit.js';

const obj = (o: Partial<KubeObject> & { metadata?: KubeObject['metadata'] } & Record<string, unknown> = {}): KubeObject => ({ apiVersion: 'v1', kind: 'X', metadata: { name: 'n' }, ...o }) as KubeObject;
const ev = (type: StoreEvent['type'], key: string, object: KubeObject, prevObject?: KubeObject): StoreEvent => ({ type, key, revision: 1, object, ...(prevObject ? { prevObject } : {}) });
const storeWith = (objects: Record<string, KubeObject>) => ({ get: (key: string): StoredObject | undefined => (objects[key] ? { key, revision: 1, object: objects[key] as KubeObject } : undefined) });

describe('fuzz store audit', () => {
  it('splits storage keys', () => {
    assert.deepEqual(keyParts('/core/configmaps/default/a'), { group: '', resource: 'configmaps', namespace: 'default', name: 'a' });
    assert.deepEqual(keyParts('/rbac.authorization.k8s.io/clusterroles//admin'), { group: 'rbac.authorization.k8s.io', resource: 'clusterroles', namespace: '', name: 'admin' });
  });

  it('reads subresource and watch from request paths', () => {
    assert.deepEqual(requestTarget('/api/v1/namespaces/ns/configmaps/a', ''), { resourceRequest: true, subresource: '', watch: false });
    assert.deepEqual(requestTarget('/apis/certificates.k8s.io/v1/certificatesigningrequests/c/approval', ''), { resourceRequest: true, subresource: 'approval', watch: false });
    assert.deepEqual(requestTarget('/api/v1/namespaces/ns/finalize', ''), { resourceRequest: true, subresource: 'finalize', watch: false });
    assert.deepEqual(requestTarget('/api/v1/watch/namespaces/ns/configmaps', ''), { resourceRequest: true, subresource: '', watch: true });
    assert.equal(requestTarget('/api/v1/configmaps', 'watch=true').watch, true);
    assert.equal(requestTarget('/api/v1/configmaps', 'watch=yes').watch, false);
    assert.equal(requestTarget('/healthz', '').resourceRequest, false);
  });

  it('recognises the namespace controller, the CSR signer and the CRD establisher, and nothing else', () => {
    const terminating = obj({ metadata: { name: 'gone', deletionTimestamp: '2024-01-01T00:00:00Z' } });
    const store = storeWith({ '/core/namespaces//gone': terminating, '/core/namespaces//live': obj({ metadata: { name: 'live' } }) });
    const approved = { status: { conditions: [{ type: 'Approved', status: 'True' }] } };
    const csr = obj({ kind: 'CertificateSigningRequest', spec: { request: 'x' }, ...approved });
    const cases: { name: string; ev: StoreEvent; expected: boolean }[] = [
      { name: 'clean-up in a terminating namespace', ev: ev('DELETED', '/core/secrets/gone/s', obj()), expected: true },
      { name: 'a delete in a live namespace', ev: ev('DELETED', '/core/secrets/live/s', obj()), expected: false },
      { name: 'finalizing a namespace', ev: ev('MODIFIED', '/core/namespaces//gone', terminating, terminating), expected: true },
      { name: 'the default ServiceAccount', ev: ev('ADDED', '/core/serviceaccounts/live/default', obj()), expected: true },
      { name: 'another ServiceAccount', ev: ev('ADDED', '/core/serviceaccounts/live/other', obj()), expected: false },
      { name: 'the signer filling in an approved CSR', ev: ev('MODIFIED', '/certificates.k8s.io/certificatesigningrequests//c', { ...csr, status: { ...approved.status, certificate: 'y' } } as KubeObject, csr), expected: true },
      { name: 'a CSR spec change', ev: ev('MODIFIED', '/certificates.k8s.io/certificatesigningrequests//c', { ...csr, spec: { request: 'z' } } as KubeObject, csr), expected: false },
      { name: 'approving a CSR', ev: ev('MODIFIED', '/certificates.k8s.io/certificatesigningrequests//c', csr, obj({ kind: 'CertificateSigningRequest', spec: { request: 'x' } })), expected: false },
      { name: 'CRD status', ev: ev('MODIFIED', '/apiextensions.k8s.io/customresourcedefinitions//a.b', obj({ spec: { a: 1 }, status: { x: 2 } }), obj({ spec: { a: 1 } })), expected: true },
      { name: 'the expiry of an old Event', ev: ev('DELETED', '/core/events/live/e', obj({ lastTimestamp: '2024-01-01T00:00:00Z' })), expected: true },
      { name: 'the expiry of a new Event with an old eventTime', ev: ev('DELETED', '/core/events/live/e', obj({ eventTime: '2024-01-01T00:00:00.000000Z', metadata: { name: 'e', creationTimestamp: new Date().toISOString() } })), expected: true },
      { name: 'the delete of a recent Event', ev: ev('DELETED', '/core/events/live/e', obj({ lastTimestamp: new Date().toISOString() })), expected: false },
      { name: 'a CRD spec change', ev: ev('MODIFIED', '/apiextensions.k8s.io/customresourcedefinitions//a.b', obj({ spec: { a: 2 } }), obj({ spec: { a: 1 } })), expected: false },
    ];
    for (const c of cases) assert.equal(isControllerWrite(c.ev, store), c.expected, c.name);
  });
});

describe('fuzz write audit', () => {
  const user = { username: 'u', groups: ['system:authenticated'] };
  const write = ev('MODIFIED', '/core/configmaps/live/c', obj());
  const store = storeWith({ '/core/namespaces//live': obj({ metadata: { name: 'live' } }) });
  const adminSaying = (allowed: boolean) => ({ request: async () => ({ status: { allowed } }) }) as unknown as Parameters<typeof auditWrites>[0];
  const audit = (o: Partial<Parameters<typeof auditWrites>[2]>, allowed = true) =>
    auditWrites(adminSaying(allowed), store, { method: 'PUT', path: '/api/v1/namespaces/live/configmaps/c', query: '', status: 200, user, superuser: false, events: [write], ...o })
      .then((vs) => vs.map((v) => v.kind));

  it('flags writes of refused requests, reads and dry runs, and writes beyond the rights', async () => {
    assert.deepEqual(await audit({}), []);
    assert.deepEqual(await audit({ status: 403 }), ['write-on-error']);
    assert.deepEqual(await audit({ status: undefined }), ['write-on-error']);
    assert.deepEqual(await audit({ method: 'GET' }), ['write-on-read']);
    assert.deepEqual(await audit({ query: 'dryRun=All' }), ['write-on-dry-run']);
    assert.deepEqual(await audit({}, false), ['write-beyond-rights']);
    assert.deepEqual(await audit({ superuser: true }, false), []);
    assert.deepEqual(await audit({ events: [ev('ADDED', '/core/serviceaccounts/live/default', obj())] }, false), []);
    assert.deepEqual(await audit({ superuser: true, events: [ev('ADDED', '/core/configmaps/live/big', obj({ data: { a: 'x'.repeat(2 * 1024 * 1024) } }))] }), ['oversized-object-stored']);
  });
});
