import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../api/meta.js';
import { enqueueByName, onEveryChange } from './event-handlers.js';
import type { InformerHandlers } from './types.js';

function handlersOf(register: (informer: { addHandlers(h: InformerHandlers<KubeObject>): void }) => void): InformerHandlers<KubeObject> {
  let handlers: InformerHandlers<KubeObject> = {};
  register({ addHandlers: (h) => void (handlers = h) });
  return handlers;
}

const obj = (name: string): KubeObject => ({ metadata: { name } });

test('onEveryChange passes the added, the new updated and the deleted object', () => {
  const seen: string[] = [];
  const h = handlersOf((i) => onEveryChange(i, (o) => seen.push(o.metadata.name ?? '')));
  h.onAdd?.(obj('added'));
  h.onUpdate?.(obj('old'), obj('new'));
  h.onDelete?.(obj('deleted'));
  assert.deepEqual(seen, ['added', 'new', 'deleted']);
});

test('enqueueByName enqueues names on every change, and nothing for an object without one', () => {
  const keys: string[] = [];
  const h = handlersOf((i) => enqueueByName(i, { enqueue: (k) => void keys.push(k) }));
  h.onAdd?.(obj('a'));
  h.onUpdate?.(obj('a'), obj('b'));
  h.onDelete?.(obj('c'));
  h.onAdd?.({ metadata: {} });
  assert.deepEqual(keys, ['a', 'b', 'c']);
});
