import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jsonPatchBetween } from './json-patch.js';

/** Applies add/remove/replace operations, enough to check that a patch reproduces its target. */
function apply(doc: unknown, ops: ReturnType<typeof jsonPatchBetween>): unknown {
  let root = structuredClone(doc);
  for (const op of ops) {
    if (op.path === '') {
      root = structuredClone(op.value);
      continue;
    }
    const tokens = op.path.slice(1).split('/').map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
    const last = tokens.pop()!;
    let parent = root as Record<string, unknown>;
    for (const t of tokens) parent = parent[t] as Record<string, unknown>;
    if (op.op === 'remove') delete parent[last];
    else parent[last] = structuredClone(op.value);
  }
  return root;
}

const cases: Array<{ name: string; before: unknown; after: unknown; ops?: unknown[] }> = [
  { name: 'no change', before: { a: 1, b: [1, 2] }, after: { a: 1, b: [1, 2] }, ops: [] },
  {
    name: 'a label key with a slash is escaped',
    before: { metadata: { name: 'c1' } },
    after: { metadata: { name: 'c1', labels: { 'cluster.open-cluster-management.io/clusterset': 'default' } } },
    ops: [{ op: 'add', path: '/metadata/labels', value: { 'cluster.open-cluster-management.io/clusterset': 'default' } }],
  },
  {
    name: 'a new key inside existing labels',
    before: { metadata: { labels: { 'a~b': 'x' } } },
    after: { metadata: { labels: { 'a~b': 'x', 'k/v': 'y' } } },
    ops: [{ op: 'add', path: '/metadata/labels/k~1v', value: 'y' }],
  },
  {
    name: 'taint times set element by element',
    before: { spec: { taints: [{ key: 'a', effect: 'NoSelect' }, { key: 'b', effect: 'NoSelect', timeAdded: 'T0' }] } },
    after: { spec: { taints: [{ key: 'a', effect: 'NoSelect', timeAdded: 'T1' }, { key: 'b', effect: 'NoSelect', timeAdded: 'T1' }] } },
    ops: [{ op: 'add', path: '/spec/taints/0/timeAdded', value: 'T1' }, { op: 'replace', path: '/spec/taints/1/timeAdded', value: 'T1' }],
  },
  { name: 'null replaced by an object', before: { metadata: { labels: null } }, after: { metadata: { labels: { a: 'b' } } }, ops: [{ op: 'replace', path: '/metadata/labels', value: { a: 'b' } }] },
  { name: 'removed key and resized array', before: { a: 1, b: [1] }, after: { b: [1, 2] }, ops: [{ op: 'remove', path: '/a' }, { op: 'replace', path: '/b', value: [1, 2] }] },
  { name: 'root of another type', before: [1], after: { a: 1 }, ops: [{ op: 'replace', path: '', value: { a: 1 } }] },
];

for (const c of cases) {
  test(`jsonPatchBetween: ${c.name}`, () => {
    const ops = jsonPatchBetween(c.before, c.after);
    if (c.ops) assert.deepEqual(ops, c.ops);
    assert.deepEqual(apply(c.before, ops), c.after);
  });
}
