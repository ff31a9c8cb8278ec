// managedFields of ordinary writes over real HTTPS, as kube-apiserver records them: creates,
// updates and every patch type add an Update entry for their manager (the fieldManager parameter,
// else the User-Agent's first segment); a status write records the subresource; a server-side
// apply over a field another manager updated conflicts with it. Also the delete preconditions'
// refusals, worded as kube-apiserver words them.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { type RawClient } from '../helpers/raw-client.js';
import { useRawServer } from '../helpers/raw-server.js';

const NS = '/api/v1/namespaces/default';
const MERGE = { 'content-type': 'application/merge-patch+json' };
const APPLY = { 'content-type': 'application/apply-patch+yaml' };

interface Entry { manager: string; operation: string; apiVersion: string; time?: string; fieldsV1: unknown; subresource?: string }

/** The entries without their times, which depend on the clock. */
function owners(obj: { metadata: { managedFields?: Entry[] } }): Omit<Entry, 'time'>[] {
  return (obj.metadata.managedFields ?? []).map(({ time, ...rest }) => {
    assert.match(time ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    return rest;
  });
}

describe('managedFields of ordinary writes', () => {
  let raw: RawClient;
  useRawServer((_s, r) => {
    raw = r;
  });

  it('records a create, an update and a patch as Update entries of their managers', async () => {
    const created = await raw.request('POST', `${NS}/configmaps?fieldManager=creator`, { body: { metadata: { name: 'mf1', labels: { a: 'b' } }, data: { x: '1', y: '1' } } });
    assert.equal(created.status, 201);
    assert.deepEqual(owners(created.json), [
      { manager: 'creator', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { '.': {}, 'f:x': {}, 'f:y': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } } } },
    ].map(({ fieldsType: _, ...e }) => ({ ...e, fieldsType: 'FieldsV1' })));
    const updated = await raw.request('PUT', `${NS}/configmaps/mf1?fieldManager=editor`, {
      body: { metadata: { name: 'mf1', labels: { a: 'b' }, resourceVersion: created.json.metadata.resourceVersion }, data: { x: '2', y: '1' } },
    });
    assert.equal(updated.status, 200);
    const patched = await raw.request('PATCH', `${NS}/configmaps/mf1`, { body: { data: { z: '3' } }, headers: { ...MERGE, 'user-agent': 'my-tool/1.2 (linux) extra' } });
    assert.equal(patched.status, 200);
    const byManager = Object.fromEntries(owners(patched.json).map((e) => [e.manager, e.fieldsV1]));
    assert.deepEqual(byManager, {
      creator: { 'f:data': { '.': {}, 'f:y': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } } },
      editor: { 'f:data': { 'f:x': {} } },
      'my-tool': { 'f:data': { 'f:z': {} } },
    });
  });

  it('makes a server-side apply conflict with the manager that updated the field', async () => {
    await raw.request('POST', `${NS}/configmaps?fieldManager=kubectl-create`, { body: { metadata: { name: 'mf2' }, data: { k: '1' } } });
    await raw.request('PATCH', `${NS}/configmaps/mf2?fieldManager=kubectl-edit`, { body: { data: { k: '2' } }, headers: MERGE });
    const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'mf2' }, data: { k: '3' } });
    const res = await raw.request('PATCH', `${NS}/configmaps/mf2?fieldManager=applier`, { body, headers: APPLY });
    assert.equal(res.status, 409);
    assert.equal(res.json.message, 'Apply failed with 1 conflict: conflict with "kubectl-edit" using v1: .data.k');
    assert.deepEqual(res.json.details.causes, [{ reason: 'FieldManagerConflict', message: 'conflict with "kubectl-edit" using v1', field: '.data.k' }]);
    const forced = await raw.request('PATCH', `${NS}/configmaps/mf2?fieldManager=applier&force=true`, { body, headers: APPLY });
    assert.equal(forced.status, 200);
    // The creator keeps the data map it added; the field itself changed hands.
    assert.deepEqual(owners(forced.json).map((e) => [e.manager, e.operation, e.fieldsV1]), [
      ['applier', 'Apply', { 'f:data': { 'f:k': {} } }], ['kubectl-create', 'Update', { 'f:data': {} }],
    ]);
  });

  it('records a status write under the status subresource and leaves status out of main-resource entries', async () => {
    const created = await raw.request('POST', '/api/v1/namespaces?fieldManager=ns-maker', { body: { metadata: { name: 'mf-ns' }, status: { phase: 'Whatever' } } });
    assert.equal(created.status, 201);
    assert.deepEqual(owners(created.json).map((e) => e.manager), []);
    const labelled = await raw.request('PATCH', '/api/v1/namespaces/mf-ns?fieldManager=ns-maker', { body: { metadata: { labels: { l: 'v' } } }, headers: MERGE });
    // The labels map was there already (the server's kubernetes.io/metadata.name), so only the label is new.
    assert.deepEqual(owners(labelled.json).map((e) => [e.manager, e.fieldsV1]), [['ns-maker', { 'f:metadata': { 'f:labels': { 'f:l': {} } } }]]);
    const cond = { type: 'NamespaceDeletionDiscoveryFailure', status: 'False', reason: 'R', message: 'm', lastTransitionTime: '2026-01-01T00:00:00Z' };
    const status = await raw.request('PATCH', '/api/v1/namespaces/mf-ns/status?fieldManager=ns-status', { body: { status: { conditions: [cond] } }, headers: MERGE });
    assert.equal(status.status, 200);
    const entry = owners(status.json).find((e) => e.manager === 'ns-status');
    assert.equal(entry?.subresource, 'status');
    assert.deepEqual(Object.keys(entry?.fieldsV1 as object), ['f:status']);
  });

  it('keeps the entries of an update that changes nothing, and forgets every owner on managedFields [{}]', async () => {
    const created = await raw.request('POST', `${NS}/configmaps?fieldManager=one`, { body: { metadata: { name: 'mf3' }, data: { a: '1' } } });
    const same = await raw.request('PUT', `${NS}/configmaps/mf3?fieldManager=two`, { body: { metadata: { name: 'mf3' }, data: { a: '1' } } });
    assert.equal(same.json.metadata.resourceVersion, created.json.metadata.resourceVersion);
    assert.deepEqual(owners(same.json).map((e) => e.manager), ['one']);
    const reset = await raw.request('PATCH', `${NS}/configmaps/mf3?fieldManager=two`, { body: { metadata: { managedFields: [{}] } }, headers: MERGE });
    assert.equal(reset.status, 200);
    assert.equal(reset.json.metadata.managedFields, undefined);
  });

  it('refuses an unprintable fieldManager on create with 422 on CreateOptions', async () => {
    const res = await raw.request('POST', `${NS}/configmaps?fieldManager=bad%07one`, { body: { metadata: { name: 'mf4' } } });
    assert.equal(res.status, 422);
    assert.equal(res.json.details.kind, 'CreateOptions');
    assert.equal(res.json.details.causes[0].message, 'Invalid value: "bad\\aone": invalid character U+0007 (at position 3)');
  });

  it('merges the oldest of more than ten updaters into ancient-changes', async () => {
    await raw.request('POST', `${NS}/configmaps?fieldManager=m0`, { body: { metadata: { name: 'mf5' }, data: { k0: '0' } } });
    let last: { json: { metadata: { managedFields?: Entry[] } } } | undefined;
    for (let i = 1; i <= 11; i++) {
      last = await raw.request('PATCH', `${NS}/configmaps/mf5?fieldManager=m${i}`, { body: { data: { [`k${i}`]: String(i) } }, headers: MERGE });
    }
    const managers = owners(last?.json as { metadata: { managedFields?: Entry[] } }).map((e) => e.manager);
    assert.equal(managers.length, 10);
    assert.ok(managers.includes('ancient-changes'));
    assert.ok(managers.includes('m11'));
  });
});

describe('delete preconditions, as kube-apiserver refuses them', () => {
  let raw: RawClient;
  useRawServer((_s, r) => {
    raw = r;
  });

  it('names the kind and both values in a 409', async () => {
    const created = await raw.request('POST', `${NS}/configmaps`, { body: { metadata: { name: 'pre' } } });
    const { uid, resourceVersion } = created.json.metadata;
    const byUid = await raw.request('DELETE', `${NS}/configmaps/pre`, { body: { preconditions: { uid: 'other' } } });
    assert.equal(byUid.status, 409);
    assert.equal(byUid.json.message, `Operation cannot be fulfilled on ConfigMap "pre": the UID in the precondition (other) does not match the UID in record (${uid}). The object might have been deleted and then recreated`);
    assert.deepEqual(byUid.json.details, { name: 'pre', kind: 'ConfigMap' });
    const byRv = await raw.request('DELETE', `${NS}/configmaps/pre`, { body: { preconditions: { resourceVersion: '1' } } });
    assert.equal(byRv.status, 409);
    assert.equal(byRv.json.message, `Operation cannot be fulfilled on ConfigMap "pre": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (${resourceVersion}). The object might have been modified`);
    const crb = await raw.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', { body: { metadata: { name: 'pre-role' } } });
    assert.equal(crb.status, 201);
    const grouped = await raw.request('DELETE', '/apis/rbac.authorization.k8s.io/v1/clusterroles/pre-role', { body: { preconditions: { uid: 'other' } } });
    assert.deepEqual(grouped.json.details, { name: 'pre-role', group: 'rbac.authorization.k8s.io', kind: 'ClusterRole' });
  });
});
