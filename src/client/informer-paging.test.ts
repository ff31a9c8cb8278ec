import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../api/meta.js';
import { ApiStatusError, statusFromCode } from './errors.js';
import { FakeResourceClient } from './fake-resource-client.js';
import { createInformer, type InformerEvent } from './informer.js';
import { createManualClock } from './manual-clock.js';
import { resourceTypes } from './resource-types.js';
import { waitFor } from '../../test/helpers/wait-for.js';

const cm = (name: string, rv: string): KubeObject => ({ metadata: { name, namespace: 'ns', resourceVersion: rv } });
const gone = (): ApiStatusError => new ApiStatusError({ ...statusFromCode(410, 'The provided continue parameter is too old'), reason: 'Expired' });

function setup() {
  const client = new FakeResourceClient(resourceTypes.configMaps, 'ns');
  const events: InformerEvent[] = [];
  const inf = createInformer(client, {
    clock: createManualClock(),
    random: () => 0,
    pageSize: 2,
    backoff: { initialMs: 1000, maxMs: 30_000, resetAfterMs: 120_000, jitter: 0 },
    onEvent: (e) => events.push(e),
  });
  return { client, inf, events, ac: new AbortController() };
}

test('should list in pages, following continue tokens (pages may hold fewer items than the limit)', async () => {
  const { client, inf, ac } = setup();
  client.answerList({ items: [cm('a', '1'), cm('b', '2')], resourceVersion: '10', continue: 't1' });
  client.answerList({ items: [cm('c', '3')], resourceVersion: '10', continue: 't2' });
  client.answerList({ items: [cm('d', '4')], resourceVersion: '10' });
  inf.start(ac.signal);
  await inf.waitForSync();
  assert.deepEqual(client.lists.map((l) => [l.limit, l.continue]), [[2, undefined], [2, 't1'], [2, 't2']]);
  assert.deepEqual(inf.lister.list().map((o) => o.metadata.name).sort(), ['a', 'b', 'c', 'd']);
  await waitFor(() => client.watches.length === 1);
  assert.equal(client.lastWatch().opts.resourceVersion, '10');
  ac.abort();
});

test('should restart paging from the first page when a continue token expires, never falling back to an unpaged list', async () => {
  const { client, inf, ac, events } = setup();
  client.answerList({ items: [cm('a', '1'), cm('b', '2')], resourceVersion: '10', continue: 't1' });
  client.answerList(gone());
  client.answerList({ items: [cm('a', '1'), cm('c', '12')], resourceVersion: '20', continue: 't3' });
  client.answerList({ items: [cm('d', '13')], resourceVersion: '20' });
  inf.start(ac.signal);
  await inf.waitForSync();
  assert.ok(client.lists.every((l) => l.limit === 2), 'every list call is paged');
  assert.deepEqual(client.lists.map((l) => l.continue), [undefined, 't1', undefined, 't3']);
  assert.deepEqual(inf.lister.list().map((o) => o.metadata.name).sort(), ['a', 'c', 'd']);
  assert.ok(!events.some((e) => e.type === 'failure'));
  ac.abort();
});

test('should leave a second expiry in a row to the backoff', async () => {
  const { client, inf, ac, events } = setup();
  client.answerList({ items: [cm('a', '1')], resourceVersion: '10', continue: 't1' });
  client.answerList(gone());
  client.answerList({ items: [cm('a', '1')], resourceVersion: '20', continue: 't2' });
  client.answerList(gone());
  inf.start(ac.signal);
  await waitFor(() => events.some((e) => e.type === 'failure'));
  assert.equal(client.lists.length, 4);
  assert.ok(client.lists.every((l) => l.limit === 2));
  ac.abort();
});
