// Garbage collection over real HTTPS: ownerReferences and the three propagation policies
// (Background, Foreground, Orphan) for built-ins and custom resources, owners that are gone or
// reborn with another uid, several owners, and a restart in the middle of the work.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { openSqliteStore } from '../../src/apiserver/storage/sqlite-store.js';
import { startTestApiServer } from '../helpers/embedded-server.js';
import { rawClient, type RawClient } from '../helpers/raw-client.js';
import { useRawServer } from '../helpers/raw-server.js';
import { waitFor } from '../helpers/wait-for.js';

const NS = 'default';
const CM = `/api/v1/namespaces/${NS}/configmaps`;
const HOLD = 'example.com/hold';

interface Meta { name: string; uid: string; resourceVersion?: string; deletionTimestamp?: string; finalizers?: string[]; ownerReferences?: Ref[] }
interface Ref { apiVersion: string; kind: string; name: string; uid: string; blockOwnerDeletion?: boolean }

const refTo = (o: { apiVersion: string; kind: string; metadata: Meta }, block?: boolean): Ref => ({
  apiVersion: o.apiVersion, kind: o.kind, name: o.metadata.name, uid: o.metadata.uid, ...(block !== undefined ? { blockOwnerDeletion: block } : {}),
});

describe('apiserver garbage collector', () => {
  let raw: RawClient;
  useRawServer((_s, r) => {
    raw = r;
  }, { controllerResyncMs: 50 });

  const createCm = async (name: string, extra: Partial<Meta> = {}, r: RawClient = raw): Promise<{ apiVersion: string; kind: string; metadata: Meta }> => {
    const res = await r.request('POST', CM, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...extra } } });
    assert.equal(res.status, 201, res.text);
    return res.json;
  };
  const getCm = async (name: string, r: RawClient = raw): Promise<{ metadata: Meta } | undefined> => {
    const res = await r.request('GET', `${CM}/${name}`);
    if (res.status === 404) return undefined;
    assert.equal(res.status, 200, res.text);
    return res.json;
  };
  const gone = (name: string, r: RawClient = raw) => waitFor(async () => (await getCm(name, r)) === undefined, 5000, { message: `${name} deleted` });
  const del = (path: string, body?: object) => raw.request('DELETE', path, body ? { body: { apiVersion: 'v1', kind: 'DeleteOptions', ...body } } : {});

  it('should delete the owner at once and its dependent afterwards by default (Background)', async () => {
    const owner = await createCm('bg-owner');
    await createCm('bg-dep', { ownerReferences: [refTo(owner)] } as Partial<Meta>);
    const res = await del(`${CM}/bg-owner`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.kind, 'Status');
    assert.equal(await getCm('bg-owner'), undefined);
    await gone('bg-dep');
  });

  it('should delete a dependent of a namespaced custom resource', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.gc.example.com' },
      spec: {
        group: 'gc.example.com', scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    };
    assert.equal((await raw.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd })).status, 201);
    const path = `/apis/gc.example.com/v1/namespaces/${NS}/widgets`;
    const w = await waitFor(async () => {
      const r = await raw.request('POST', path, { body: { apiVersion: 'gc.example.com/v1', kind: 'Widget', metadata: { name: 'w1' } } });
      return r.status === 201 ? r.json : undefined;
    }, 5000, { message: 'the Widget kind served' });
    await createCm('cr-dep', { ownerReferences: [refTo(w)] } as Partial<Meta>);
    // A custom resource owned by a ConfigMap is collected as well.
    const cmOwner = await createCm('cr-owner');
    const owned = await raw.request('POST', path, { body: { apiVersion: 'gc.example.com/v1', kind: 'Widget', metadata: { name: 'w2', ownerReferences: [refTo(cmOwner)] } } });
    assert.equal(owned.status, 201, owned.text);
    assert.equal((await del(`${path}/w1`)).status, 200);
    await gone('cr-dep');
    assert.equal((await del(`${CM}/cr-owner`)).status, 200);
    await waitFor(async () => (await raw.request('GET', `${path}/w2`)).status === 404, 5000, { message: 'w2 deleted' });
  });

  it('should keep a Foreground owner readable with its finalizer until the blocking dependents are gone', async () => {
    const owner = await createCm('fg-owner');
    await createCm('fg-blocking', { ownerReferences: [refTo(owner, true)], finalizers: [HOLD] } as Partial<Meta>);
    await createCm('fg-plain', { ownerReferences: [refTo(owner)] } as Partial<Meta>);
    const watch = await raw.stream(`${CM}?watch=true&fieldSelector=metadata.name%3Dfg-owner&resourceVersion=${owner.metadata.resourceVersion}`);
    const res = await del(`${CM}/fg-owner`, { propagationPolicy: 'Foreground' });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.kind, 'ConfigMap');
    assert.ok(res.json.metadata.deletionTimestamp);
    assert.deepEqual(res.json.metadata.finalizers, ['foregroundDeletion']);
    // The non-blocking dependent goes; the blocking one is being deleted but held by its own finalizer.
    await gone('fg-plain');
    await waitFor(async () => (await getCm('fg-blocking'))?.metadata.deletionTimestamp, 5000, { message: 'fg-blocking being deleted' });
    const held = await getCm('fg-owner');
    assert.ok(held?.metadata.deletionTimestamp);
    assert.deepEqual(held?.metadata.finalizers, ['foregroundDeletion']);
    const blocking = await getCm('fg-blocking');
    const put = await raw.request('PUT', `${CM}/fg-blocking`, { body: { ...blocking, metadata: { ...blocking?.metadata, finalizers: [] } } });
    assert.equal(put.status, 200, put.text);
    await gone('fg-owner');
    const seen: string[] = [];
    for (;;) {
      const ev = await watch.next(5000);
      if (!ev) break;
      seen.push(`${ev.type}:${(ev.object.metadata.finalizers ?? []).join(',')}`);
      if (ev.type === 'DELETED') break;
    }
    watch.close();
    // The DELETED event carries the last stored state, as etcd's does: the finalizer was removed by
    // the delete itself, never stored.
    assert.deepEqual(seen.slice(-2), ['MODIFIED:foregroundDeletion', 'DELETED:foregroundDeletion']);
  });

  it('should orphan dependents: references stripped, dependents kept (Orphan and orphanDependents)', async () => {
    for (const [name, opts] of [['orph-a', { propagationPolicy: 'Orphan' }], ['orph-b', { orphanDependents: true }]] as const) {
      const owner = await createCm(name);
      const other = await createCm(`${name}-other`);
      await createCm(`${name}-dep`, { ownerReferences: [refTo(owner, true), refTo(other)] } as Partial<Meta>);
      const res = await del(`${CM}/${name}`, opts);
      assert.equal(res.status, 200, res.text);
      assert.ok(res.json.metadata.finalizers.includes('orphan'), res.text);
      await gone(name);
      const dep = await getCm(`${name}-dep`);
      assert.deepEqual(dep?.metadata.ownerReferences, [refTo(other)]);
    }
    const lone = await createCm('orph-c');
    await createCm('orph-c-dep', { ownerReferences: [refTo(lone)] } as Partial<Meta>);
    assert.equal((await del(`${CM}/orph-c`, { propagationPolicy: 'Orphan' })).status, 200);
    await gone('orph-c');
    assert.equal((await getCm('orph-c-dep'))?.metadata.ownerReferences, undefined);
  });

  it('should refuse orphanDependents together with propagationPolicy', async () => {
    await createCm('both-opts');
    const res = await del(`${CM}/both-opts`, { orphanDependents: true, propagationPolicy: 'Orphan' });
    assert.equal(res.status, 422, res.text);
    assert.equal(res.json.kind, 'Status');
    assert.match(res.json.message, /orphanDependents and deletionPropagation cannot be both set/);
    assert.ok(await getCm('both-opts'));
  });

  it('should read orphanDependents from the query, with 202 for a pending delete that asked orphanDependents=false', async () => {
    await createCm('od-held', { finalizers: [HOLD] } as Partial<Meta>);
    const accepted = await raw.request('DELETE', `${CM}/od-held?orphanDependents=false`);
    assert.equal(accepted.status, 202, accepted.text);
    assert.deepEqual(accepted.json.metadata.finalizers, [HOLD]);
    await createCm('od-query');
    const orphaned = await raw.request('DELETE', `${CM}/od-query?orphanDependents=T`);
    assert.equal(orphaned.status, 200, orphaned.text);
    assert.ok(orphaned.json.metadata.finalizers.includes('orphan'));
    const bad = await raw.request('DELETE', `${CM}/od-query?orphanDependents=maybe`);
    assert.equal(bad.status, 400, bad.text);
    assert.equal(bad.json.kind, 'Status');
    await gone('od-query');
    const held = await getCm('od-held');
    await raw.request('PUT', `${CM}/od-held`, { body: { ...held, metadata: { ...held?.metadata, finalizers: [] } } });
    await gone('od-held');
  });

  it('should keep a dependent while another owner lives, dropping the reference to the gone one', async () => {
    const a = await createCm('two-a');
    const b = await createCm('two-b');
    await createCm('two-dep', { ownerReferences: [refTo(a), refTo(b)] } as Partial<Meta>);
    assert.equal((await del(`${CM}/two-a`)).status, 200);
    await waitFor(async () => (await getCm('two-dep'))?.metadata.ownerReferences?.length === 1, 5000, { message: 'reference to two-a dropped' });
    assert.deepEqual((await getCm('two-dep'))?.metadata.ownerReferences, [refTo(b)]);
    assert.equal((await del(`${CM}/two-b`)).status, 200);
    await gone('two-dep');
  });

  it('should treat an owner with another uid, or no owner at all, as absent', async () => {
    await createCm('reborn');
    await createCm('uid-dep', { ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'reborn', uid: '00000000-0000-0000-0000-000000000001' }] } as Partial<Meta>);
    await createCm('nobody-dep', { ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'never-was', uid: '00000000-0000-0000-0000-000000000002' }] } as Partial<Meta>);
    await gone('uid-dep');
    await gone('nobody-dep');
    assert.ok(await getCm('reborn'));
  });

  it('should collect namespaced dependents of cluster-scoped owners, and never a cluster-scoped object naming a namespaced kind', async () => {
    const crPath = '/apis/rbac.authorization.k8s.io/v1/clusterroles';
    const cr = await raw.request('POST', crPath, { body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'gc-owner-role' }, rules: [] } });
    assert.equal(cr.status, 201, cr.text);
    const invalid = await raw.request('POST', crPath, {
      body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'gc-invalid-ref', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'nope', uid: '00000000-0000-0000-0000-000000000003' }] }, rules: [] },
    });
    assert.equal(invalid.status, 201, invalid.text);
    await createCm('role-dep', { ownerReferences: [refTo(cr.json)] } as Partial<Meta>);
    assert.equal((await del(`${crPath}/gc-owner-role`)).status, 200);
    await gone('role-dep');
    // A later dangling dependent gone means the collector has looked at the invalid one too.
    await createCm('after-invalid', { ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'none', uid: '00000000-0000-0000-0000-000000000004' }] } as Partial<Meta>);
    await gone('after-invalid');
    assert.equal((await raw.request('GET', `${crPath}/gc-invalid-ref`)).status, 200);
  });

  it('should delete Events at once whatever the policy (no garbage-collection finalizers)', async () => {
    const path = `/api/v1/namespaces/${NS}/events`;
    const ev = await raw.request('POST', path, { body: { apiVersion: 'v1', kind: 'Event', metadata: { name: 'gc-ev' }, involvedObject: { kind: 'ConfigMap', name: 'x', namespace: NS }, reason: 'R', message: 'm' } });
    assert.equal(ev.status, 201, ev.text);
    const res = await del(`${path}/gc-ev`, { propagationPolicy: 'Foreground' });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.kind, 'Status');
    assert.equal((await raw.request('GET', `${path}/gc-ev`)).status, 404);
  });

  it('should delete a namespace in the foreground, with its cluster-scoped dependents, then remove it', async () => {
    const ns = await raw.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'gc-fg-ns' } } });
    assert.equal(ns.status, 201, ns.text);
    const crPath = '/apis/rbac.authorization.k8s.io/v1/clusterroles';
    const role = await raw.request('POST', crPath, {
      body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'gc-ns-owned', ownerReferences: [refTo(ns.json, true)] }, rules: [] },
    });
    assert.equal(role.status, 201, role.text);
    const res = await del('/api/v1/namespaces/gc-fg-ns', { propagationPolicy: 'Foreground' });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json.metadata.finalizers, ['foregroundDeletion']);
    assert.equal(res.json.status.phase, 'Terminating');
    await waitFor(async () => (await raw.request('GET', `${crPath}/gc-ns-owned`)).status === 404, 5000, { message: 'owned ClusterRole deleted' });
    await waitFor(async () => (await raw.request('GET', '/api/v1/namespaces/gc-fg-ns')).status === 404, 5000, { message: 'namespace removed' });
  });

  it('should keep a dependent whose owner kind is not served, and collect it once the kind is served', async () => {
    const gadgetRef = { apiVersion: 'later.example.com/v1', kind: 'Gadget', name: 'g1', uid: '00000000-0000-0000-0000-000000000005' };
    await createCm('waits-for-kind', { ownerReferences: [gadgetRef] } as Partial<Meta>);
    await createCm('marker', { ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'none', uid: '00000000-0000-0000-0000-000000000006' }] } as Partial<Meta>);
    await gone('marker');
    assert.ok(await getCm('waits-for-kind'), 'an owner of an unknown kind may still come: the dependent stays');
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'gadgets.later.example.com' },
      spec: {
        group: 'later.example.com', scope: 'Namespaced', names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    };
    assert.equal((await raw.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd })).status, 201);
    await gone('waits-for-kind');
  });

  it('should switch a Foreground deletion to Background on a second DELETE', async () => {
    const owner = await createCm('switch-owner');
    await createCm('switch-dep', { ownerReferences: [refTo(owner, true)], finalizers: [HOLD] } as Partial<Meta>);
    assert.equal((await del(`${CM}/switch-owner`, { propagationPolicy: 'Foreground' })).status, 200);
    assert.ok((await getCm('switch-owner'))?.metadata.deletionTimestamp);
    const res = await del(`${CM}/switch-owner`, { propagationPolicy: 'Background' });
    assert.equal(res.status, 200, res.text);
    assert.equal(await getCm('switch-owner'), undefined);
    const dep = await waitFor(async () => (await getCm('switch-dep'))?.metadata.deletionTimestamp ? getCm('switch-dep') : undefined, 5000);
    await raw.request('PUT', `${CM}/switch-dep`, { body: { ...dep, metadata: { ...dep.metadata, finalizers: [] } } });
    await gone('switch-dep');
  });
});

describe('apiserver garbage collector across a restart', () => {
  it('should finish a Foreground deletion and collect dependents of an owner deleted while it was down', async () => {
    let srv = await startTestApiServer({ controllerResyncMs: 50, keepDataDir: true });
    let raw = rawClient(srv.kubeConfig);
    const post = async (r: RawClient, metadata: object) => {
      const res = await r.request('POST', CM, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata } });
      assert.equal(res.status, 201, res.text);
      return res.json;
    };
    try {
      const fg = await post(raw, { name: 'r-fg' });
      await post(raw, { name: 'r-fg-dep', ownerReferences: [refTo(fg, true)], finalizers: [HOLD] });
      const bg = await post(raw, { name: 'r-bg' });
      await post(raw, { name: 'r-bg-dep', ownerReferences: [refTo(bg)] });
      assert.equal((await raw.request('DELETE', `${CM}/r-fg`, { body: { propagationPolicy: 'Foreground' } })).status, 200);
      await waitFor(async () => (await raw.request('GET', `${CM}/r-fg-dep`)).json?.metadata?.deletionTimestamp, 5000);
      raw.close();
      await srv.server.close();
      // While the server is down, the owner disappears behind the collector's back.
      const store = openSqliteStore({ path: join(srv.dataDir, 'state.db') });
      store.delete(`/core/configmaps/${NS}/r-bg`);
      store.close();
      srv = await startTestApiServer({ controllerResyncMs: 50, dataDir: srv.dataDir, keepDataDir: false });
      raw = rawClient(srv.kubeConfig);
      const r = raw;
      await waitFor(async () => (await r.request('GET', `${CM}/r-bg-dep`)).status === 404, 5000, { message: 'r-bg-dep collected after restart' });
      const owner = await raw.request('GET', `${CM}/r-fg`);
      assert.deepEqual(owner.json.metadata.finalizers, ['foregroundDeletion']);
      const dep = (await raw.request('GET', `${CM}/r-fg-dep`)).json;
      assert.equal((await raw.request('PUT', `${CM}/r-fg-dep`, { body: { ...dep, metadata: { ...dep.metadata, finalizers: [] } } })).status, 200);
      await waitFor(async () => (await r.request('GET', `${CM}/r-fg`)).status === 404, 5000, { message: 'r-fg removed after restart' });
    } finally {
      raw.close();
      await srv.stop();
    }
  });
});
