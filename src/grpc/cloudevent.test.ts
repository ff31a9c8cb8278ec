import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CloudEventFormatError, fromPbCloudEvent, toPbCloudEvent, type CloudEvent } from './cloudevent.js';
import { cloudEventServiceDefinition, type PbCloudEvent } from './proto.js';

const def = cloudEventServiceDefinition();
const publish = def['Publish']!;
const subscribe = def['Subscribe']!;

test('method paths are those of OCM\'s CloudEventService', () => {
  assert.equal(publish.path, '/io.cloudevents.v1.CloudEventService/Publish');
  assert.equal(subscribe.path, '/io.cloudevents.v1.CloudEventService/Subscribe');
  assert.equal(subscribe.responseStream, true);
});

test('SubscriptionRequest encodes with the wire field numbers', () => {
  const bytes = subscribe.requestSerialize({ clusterName: 'c1', dataType: 'a.b.c' });
  assert.deepEqual([...bytes], [0x12, 2, ...Buffer.from('c1'), 0x1a, 5, ...Buffer.from('a.b.c')]);
});

test('CloudEvent encodes id, spec version, a ce- attribute and binary data with the wire field numbers', () => {
  const pb = toPbCloudEvent({ id: 'x', source: 's', specVersion: '1.0', type: 't', extensions: { k: 'v' }, data: Buffer.from('{}') });
  const bytes = subscribe.responseSerialize(pb);
  const entry = [0x0a, 4, ...Buffer.from('ce-k'), 0x12, 3, 0x1a, 1, ...Buffer.from('v')];
  assert.deepEqual([...bytes], [
    0x0a, 1, ...Buffer.from('x'), 0x12, 1, ...Buffer.from('s'), 0x1a, 3, ...Buffer.from('1.0'), 0x22, 1, ...Buffer.from('t'),
    0x2a, entry.length, ...entry, 0x32, 2, ...Buffer.from('{}'),
  ]);
});

test('an event survives the protobuf round trip with every attribute type', () => {
  const time = new Date('2026-12-03T10:00:00.123Z');
  const e: CloudEvent = {
    id: 'id1', source: 'agent', specVersion: '1.0', type: 'a.v1.r.spec.create_request', dataContentType: 'application/json',
    extensions: { clustername: 'c1', resourceversion: 42, flag: true, time, blob: Buffer.from([1, 2]) },
    data: Buffer.from('{"a":1}'),
  };
  const wire = publish.requestSerialize({ event: toPbCloudEvent(e) });
  const back = fromPbCloudEvent((publish.requestDeserialize(wire) as { event: PbCloudEvent }).event);
  assert.deepEqual(back, e);
});

test('garbage is refused with a format error, never a crash', () => {
  assert.throws(() => fromPbCloudEvent(undefined), CloudEventFormatError);
  assert.throws(() => fromPbCloudEvent({ id: 'a', source: 's', type: 't' }), /spec version/);
  assert.throws(() => fromPbCloudEvent({ id: '', source: 's', type: 't', specVersion: '1.0' }), /missing id/);
  assert.throws(() => fromPbCloudEvent({ id: 'a', source: 's', type: 't', specVersion: '1.0', attributes: { 'ce-x': {} } }), /no value/);
  assert.throws(() => toPbCloudEvent({ id: 'a', source: 's', type: 't', specVersion: '1.0', extensions: { n: 2 ** 40 } }), /32-bit/);
});
