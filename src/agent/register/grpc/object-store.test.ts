import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../api/meta.js';
import { isGone } from '../../../client/errors.js';
import { createObjectStore, parseRevisionToken, revisionToken, type StoreChange } from './object-store.js';

const obj = (name: string, extra: Partial<KubeObject['metadata']> = {}): KubeObject => ({ metadata: { name, namespace: 'c1', ...extra } });

async function take<T extends KubeObject>(it: AsyncIterable<StoreChange<T>>, n: number): Promise<Array<StoreChange<T>>> {
  const out: Array<StoreChange<T>> = [];
  for await (const c of it) {
    out.push(c);
    if (out.length === n) break;
  }
  return out;
}

test('should record adds, updates and removals with increasing revisions', () => {
  const s = createObjectStore<KubeObject>({ historyLimit: 10 });
  s.apply(obj('a'));
  s.apply(obj('a', { resourceVersion: '2' }));
  s.apply(obj('b'));
  s.remove('c1', 'a');
  s.remove('c1', 'missing');
  const { items, revision } = s.list();
  assert.deepEqual(items.map((i) => i.metadata.name), ['b']);
  assert.equal(revision, 4);
  assert.equal(s.get('c1', 'b')?.metadata.name, 'b');
});

test('should drop a deleted object without finalizers and keep one with finalizers', () => {
  const s = createObjectStore<KubeObject>({ historyLimit: 10 });
  s.apply(obj('a'));
  s.apply(obj('b'));
  s.apply(obj('a', { deletionTimestamp: '2026-01-01T00:00:00Z' }));
  s.apply(obj('b', { deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['f'] }));
  s.apply(obj('never-seen', { deletionTimestamp: '2026-01-01T00:00:00Z' }));
  assert.equal(s.get('c1', 'a'), undefined);
  assert.equal(s.get('c1', 'b')?.metadata.finalizers?.[0], 'f');
  assert.equal(s.list().revision, 4);
});

test('should replay the changes after a revision, then follow new ones', async () => {
  const s = createObjectStore<KubeObject>({ historyLimit: 10 });
  s.apply(obj('a'));
  const from = s.list().revision;
  s.apply(obj('b'));
  const ac = new AbortController();
  const pending = take(s.changesSince(from, ac.signal), 2);
  setImmediate(() => s.apply(obj('b', { resourceVersion: '7' })));
  const got = await pending;
  ac.abort();
  assert.deepEqual(got.map((c) => [c.type, c.object.metadata.name, c.revision]), [['ADDED', 'b', 2], ['MODIFIED', 'b', 3]]);
  assert.equal(got[1]!.previous?.metadata.resourceVersion, undefined);
});

test('should answer 410 for a revision the history no longer reaches, or one it never had', async () => {
  const s = createObjectStore<KubeObject>({ historyLimit: 2 });
  for (const n of ['a', 'b', 'c', 'd']) s.apply(obj(n));
  const ac = new AbortController();
  await assert.rejects(take(s.changesSince(0, ac.signal), 1), (e) => isGone(e));
  await assert.rejects(take(s.changesSince(99, ac.signal), 1), (e) => isGone(e));
  // Revision 2's successors (3, 4) are still held.
  const got = await take(s.changesSince(2, ac.signal), 2);
  assert.deepEqual(got.map((c) => c.revision), [3, 4]);
});

test('should end a follow when the signal aborts', async () => {
  const s = createObjectStore<KubeObject>({ historyLimit: 2 });
  const ac = new AbortController();
  const done = take(s.changesSince(0, ac.signal), 1);
  setImmediate(() => ac.abort());
  assert.deepEqual(await done, []);
});

test('should tell its own tokens from hub resourceVersions', () => {
  assert.equal(parseRevisionToken(revisionToken(12)), 12);
  assert.equal(parseRevisionToken('12'), undefined);
  assert.equal(parseRevisionToken(''), undefined);
  assert.equal(parseRevisionToken(undefined), undefined);
});
