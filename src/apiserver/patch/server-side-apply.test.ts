import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../api/meta.js';
import { ApiError } from '../http/errors.js';
import { applyTypeFromSchema } from './apply-types.js';
import { fieldSetOf, fromFieldsV1, toFieldsV1 } from './field-set.js';
import type { JsonObject } from './json.js';
import { serverSideApply, updateManagedFields } from './server-side-apply.js';

const T1 = '2026-01-01T00:00:00Z';
const T2 = '2026-01-01T00:01:00Z';

function apply(current: KubeObject | undefined, applied: JsonObject, manager: string, extra: { force?: boolean; time?: string; schema?: JsonObject } = {}): KubeObject {
  return serverSideApply({
    current, applied, manager, apiVersion: 'v1', force: extra.force ?? false, time: extra.time ?? T1,
    type: applyTypeFromSchema(extra.schema as never),
  });
}

const cm = (data: Record<string, string>): JsonObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns' }, data });

describe('serverSideApply', () => {
  it('should create with one Apply entry owning the applied fields', () => {
    const out = apply(undefined, { ...cm({ a: '1' }), metadata: { name: 'c', labels: { x: 'y' } } }, 'kubectl');
    assert.deepEqual(out.data, { a: '1' });
    assert.deepEqual(out.metadata.managedFields, [{
      manager: 'kubectl', operation: 'Apply', apiVersion: 'v1', time: T1, fieldsType: 'FieldsV1',
      fieldsV1: { 'f:data': { 'f:a': {} }, 'f:metadata': { 'f:labels': { 'f:x': {} } } },
    }]);
  });

  it('should keep the entry time when re-applying the same configuration', () => {
    const first = apply(undefined, cm({ a: '1' }), 'kubectl');
    const second = apply(first, cm({ a: '1' }), 'kubectl', { time: T2 });
    assert.deepEqual(second, first);
  });

  it('should answer 409 when another manager owns a field with a different value', () => {
    const live = apply(undefined, cm({ a: '1', b: '1' }), 'one');
    assert.throws(() => apply(live, cm({ a: '2' }), 'two'), (e: unknown) => {
      assert.ok(e instanceof ApiError);
      assert.equal(e.code, 409);
      assert.equal(e.reason, 'Conflict');
      assert.equal(e.message, 'Apply failed with 1 conflict: conflict with "one": .data.a');
      assert.deepEqual(e.status.details?.causes, [{ reason: 'FieldManagerConflict', message: 'conflict with "one"', field: '.data.a' }]);
      return true;
    });
  });

  it('should list several conflicts grouped by manager', () => {
    const live = apply(undefined, cm({ a: '1', b: '1' }), 'one');
    assert.throws(() => apply(live, cm({ a: '2', b: '2' }), 'two'),
      { message: 'Apply failed with 2 conflicts: conflicts with "one":\n- .data.a\n- .data.b' });
  });

  it('should transfer ownership with force', () => {
    const live = apply(undefined, cm({ a: '1', b: '1' }), 'one');
    const out = apply(live, cm({ a: '2' }), 'two', { force: true });
    assert.deepEqual(out.data, { a: '2', b: '1' });
    const sets = Object.fromEntries((out.metadata.managedFields ?? []).map((e) => [e.manager, e.fieldsV1]));
    assert.deepEqual(sets, { one: { 'f:data': { 'f:b': {} } }, two: { 'f:data': { 'f:a': {} } } });
  });

  it('should share ownership when the value is the same', () => {
    const live = apply(undefined, cm({ a: '1' }), 'one');
    const out = apply(live, cm({ a: '1' }), 'two');
    assert.equal(out.metadata.managedFields?.length, 2);
    // 'one' stops applying a: the field stays because 'two' still owns it.
    const after = apply(out, cm({}), 'one');
    assert.deepEqual(after.data, { a: '1' });
  });

  it('should remove fields the applier no longer applies', () => {
    const live = apply(undefined, cm({ a: '1', b: '2' }), 'one');
    const out = apply(live, cm({ a: '1' }), 'one');
    assert.deepEqual(out.data, { a: '1' });
  });

  it('should conflict with an Update manager and name its apiVersion', () => {
    const created = apply(undefined, cm({ a: '1' }), 'one');
    const edited = { ...created, data: { a: 'edited' } } as KubeObject;
    edited.metadata = { ...edited.metadata, managedFields: updateManagedFields({ before: created, after: edited, manager: 'editor', apiVersion: 'v1', time: T2 }) };
    assert.deepEqual(edited.metadata.managedFields?.map((e) => [e.manager, e.operation, e.fieldsV1]), [
      ['editor', 'Update', { 'f:data': { 'f:a': {} } }],
    ]);
    assert.throws(() => apply(edited, cm({ a: '1' }), 'one'), { message: 'Apply failed with 1 conflict: conflict with "editor" using v1: .data.a' });
  });

  const schema: JsonObject = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          items: {
            type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'],
            items: { type: 'object', properties: { name: { type: 'string' }, v: { type: 'string' } } },
          },
          tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
          atomic: { type: 'array', items: { type: 'string' } },
        },
      },
    },
  };
  const cr = (spec: JsonObject): JsonObject => ({ apiVersion: 'g/v1', kind: 'K', metadata: { name: 'k' }, spec });

  it('should merge list-map items per key and own them separately', () => {
    const a = apply(undefined, cr({ items: [{ name: 'x', v: '1' }], tags: ['t1'], atomic: ['a'] }), 'one', { schema });
    const b = apply(a, cr({ items: [{ name: 'y', v: '2' }], tags: ['t2'] }), 'two', { schema });
    assert.deepEqual((b.spec as JsonObject).items, [{ name: 'x', v: '1' }, { name: 'y', v: '2' }]);
    assert.deepEqual((b.spec as JsonObject).tags, ['t1', 't2']);
    const two = b.metadata.managedFields?.find((e) => e.manager === 'two');
    assert.deepEqual(two?.fieldsV1, {
      'f:spec': {
        'f:items': { 'k:{"name":"y"}': { '.': {}, 'f:name': {}, 'f:v': {} } },
        'f:tags': { 'v:"t2"': {} },
      },
    });
    // 'one' drops item x and tag t1: both disappear; 'two's entries stay.
    const c = apply(b, cr({ atomic: ['a'] }), 'one', { schema });
    assert.deepEqual((c.spec as JsonObject).items, [{ name: 'y', v: '2' }]);
    assert.deepEqual((c.spec as JsonObject).tags, ['t2']);
    // A different value in someone else's item conflicts with a keyed path.
    assert.throws(() => apply(c, cr({ items: [{ name: 'y', v: '3' }] }), 'one', { schema }),
      { message: 'Apply failed with 1 conflict: conflict with "two": .spec.items[name="y"].v' });
  });

  it('should replace atomic lists whole', () => {
    const a = apply(undefined, cr({ atomic: ['a', 'b'] }), 'one', { schema });
    const b = apply(a, cr({ atomic: ['c'] }), 'one', { schema });
    assert.deepEqual((b.spec as JsonObject).atomic, ['c']);
  });

  it('should reject list-map items without their key', () => {
    assert.throws(() => apply(undefined, cr({ items: [{ v: '1' }] }), 'one', { schema }), (e: unknown) => e instanceof ApiError && e.code === 422);
  });
});

describe('fieldsV1 encoding', () => {
  it('should round-trip sets', () => {
    const type = applyTypeFromSchema({ type: 'object', properties: { l: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['k'], items: { type: 'object' } } } });
    const set = fieldSetOf({ metadata: { name: 'x', resourceVersion: '1', labels: { a: 'b' } }, l: [{ k: 1, z: 2 }] }, type);
    const enc = toFieldsV1(set);
    assert.deepEqual(enc, { 'f:l': { 'k:{"k":1}': { '.': {}, 'f:k': {}, 'f:z': {} } }, 'f:metadata': { 'f:labels': { 'f:a': {} } } });
    assert.deepEqual([...fromFieldsV1(enc).keys()].sort(), [...set.keys()].sort());
  });
});

describe('updateManagedFields', () => {
  it('should record the writer, take changed fields from others and drop removed ones', () => {
    const before = { metadata: { name: 'a', managedFields: [
      { manager: 'one', operation: 'Update' as const, apiVersion: 'v1', time: T1, fieldsType: 'FieldsV1' as const, fieldsV1: { 'f:data': { 'f:a': {}, 'f:b': {} } } },
    ] }, data: { a: '1', b: '1' } };
    const after = { ...before, data: { a: '2' } };
    const mf = updateManagedFields({ before, after, manager: 'two', apiVersion: 'v1', time: T2 });
    assert.deepEqual(mf, [
      { manager: 'two', operation: 'Update', apiVersion: 'v1', time: T2, fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {} } } },
    ]);
  });

  it('should add no entry for a write that changes nothing', () => {
    const obj = { metadata: { name: 'a' }, data: { a: '1' } };
    assert.deepEqual(updateManagedFields({ before: obj, after: obj, manager: 'x', apiVersion: 'v1', time: T1 }), []);
  });

  it('should clear managedFields when the client sends an empty list', () => {
    const before = apply(undefined, cm({ a: '1' }), 'one');
    const after = { ...before, metadata: { ...before.metadata, managedFields: [] } };
    assert.deepEqual(updateManagedFields({ before, after, manager: 'x', apiVersion: 'v1', time: T1 }), []);
  });
});

describe('serverSideApply ignored fields', () => {
  it('should neither change nor own ignored top-level fields, nor accept managedFields from the body', () => {
    const live = { apiVersion: 'g/v1', kind: 'K', metadata: { name: 'k' }, status: { phase: 'A' } } as KubeObject;
    const out = serverSideApply({
      current: live, manager: 'm', apiVersion: 'g/v1', force: false, ignoredFields: ['status'],
      applied: { metadata: { name: 'k', managedFields: [{ manager: 'evil' }] }, spec: { a: 1 }, status: { phase: 'B' } },
    });
    assert.deepEqual(out.status, { phase: 'A' });
    assert.deepEqual(out.metadata.managedFields, [{ manager: 'm', operation: 'Apply', apiVersion: 'g/v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:a': {} } } }]);
  });
});
