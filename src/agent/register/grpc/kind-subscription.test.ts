import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../api/meta.js';
import { createManualClock } from '../../../client/manual-clock.js';
import type { CloudEvent } from '../../../grpc/cloudevent.js';
import { decodeObject, encodeObject } from '../../../grpc/codecs.js';
import { dataTypes, formatDataType, type EventAction } from '../../../grpc/event-types.js';
import { nullLogger } from '../../../util/logger.js';
import { createFakeCloudEventsClient } from './fake-cloudevents-client.js';
import { createKindSubscription, interpretEvent } from './kind-subscription.js';
import { createObjectStore } from './object-store.js';

const lease = (name: string, extra: Partial<KubeObject['metadata']> = {}): KubeObject => ({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name, namespace: 'c1', ...extra } });

function leaseEvent(obj: KubeObject, action: EventAction, subResource: 'spec' | 'status' = 'spec', clusterName?: string): CloudEvent {
  return encodeObject(obj, { source: 'kube', type: { dataType: dataTypes.leases, subResource, action }, ...(clusterName ? { clusterName } : {}) });
}

test('should interpret the hub events as OCM agent clients do', () => {
  const o = { kind: 'leases' as const, clusterName: 'c1', decode: (e: CloudEvent) => decodeObject(e) };
  const cases: Array<{ name: string; event: CloudEvent; expected: string }> = [
    { name: 'create', event: leaseEvent(lease('a'), 'create_request'), expected: 'apply' },
    { name: 'update', event: leaseEvent(lease('a'), 'update_request'), expected: 'apply' },
    { name: 'delete without deletion mark removes', event: leaseEvent(lease('a'), 'delete_request'), expected: 'remove' },
    { name: 'delete with a deletion mark is applied', event: leaseEvent(lease('a', { deletionTimestamp: '2026-01-01T00:00:00Z' }), 'delete_request'), expected: 'apply' },
    { name: 'status events are not for agents', event: leaseEvent(lease('a'), 'resync_request', 'status'), expected: 'ignore' },
    { name: 'another cluster', event: leaseEvent(lease('a'), 'update_request', 'spec', 'c2'), expected: 'ignore' },
    { name: 'another kind', event: { ...leaseEvent(lease('a'), 'update_request'), type: `${formatDataType(dataTypes.csrs)}.spec.update_request` }, expected: 'ignore' },
    { name: 'garbage type', event: { ...leaseEvent(lease('a'), 'update_request'), type: 'nonsense' }, expected: 'ignore' },
  ];
  for (const c of cases) assert.equal(interpretEvent(c.event, o).kind, c.expected, c.name);
});

test('should resync once registered, keep the store from the events, and subscribe again after an end', async () => {
  const fake = createFakeCloudEventsClient();
  const clock = createManualClock();
  const store = createObjectStore<KubeObject>({ historyLimit: 16 });
  store.apply(lease('held', { uid: 'u1', generation: 3 }));
  const sub = createKindSubscription<KubeObject>({
    client: () => fake,
    kind: 'leases',
    clusterName: 'c1',
    source: 'c1',
    store,
    decode: (e) => decodeObject(e),
    log: nullLogger(),
    clock,
    random: () => 0,
    reconnectInitialMs: 100,
  });
  const ac = new AbortController();
  const running = sub.run(ac.signal);
  assert.equal(fake.subscriptions.length, 1);
  assert.deepEqual(fake.subscriptions[0]!.req, { clusterName: 'c1', dataType: dataTypes.leases });
  const ready = sub.ready(ac.signal);
  fake.subscriptions[0]!.handlers.onReady!();
  await ready;
  await new Promise((r) => setImmediate(r));
  assert.equal(fake.published.length, 1);
  assert.equal(fake.published[0]!.type, `${formatDataType(dataTypes.leases)}.spec.resync_request`);
  assert.deepEqual(JSON.parse(fake.published[0]!.data!.toString()), { resourceVersions: [{ resourceID: 'u1', resourceVersion: 3 }] });

  fake.subscriptions[0]!.handlers.onEvent(leaseEvent(lease('c1-lease', { resourceVersion: '9' }), 'update_request'));
  assert.equal(store.get('c1', 'c1-lease')?.metadata.resourceVersion, '9');

  // The server goes away: after the backoff, a new subscription and a new resync.
  fake.subscriptions[0]!.handlers.onEnd(new Error('UNAVAILABLE'));
  await new Promise((r) => setImmediate(r));
  assert.equal(fake.subscriptions.length, 1);
  clock.advance(100);
  await new Promise((r) => setImmediate(r));
  assert.equal(fake.subscriptions.length, 2);
  fake.subscriptions[1]!.handlers.onReady!();
  await new Promise((r) => setImmediate(r));
  assert.equal(fake.published.length, 2);

  ac.abort();
  await running;
  assert.equal(fake.subscriptions[1]!.closed, true);
});
