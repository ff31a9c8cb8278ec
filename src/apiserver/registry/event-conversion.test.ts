import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { coreToEventsV1, eventsV1ToCore } from './event-conversion.js';

describe('event conversion', () => {
  it('should map core/v1 fields to events.k8s.io/v1 and back', () => {
    const core = { apiVersion: 'v1', kind: 'Event', metadata: { name: 'e' }, involvedObject: { name: 'x' }, message: 'm', reportingComponent: 'c', count: 2, reason: 'R' };
    const ev = coreToEventsV1(core);
    assert.deepEqual(ev, { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'e' }, regarding: { name: 'x' }, note: 'm', reportingController: 'c', deprecatedCount: 2, reason: 'R' });
    assert.deepEqual(eventsV1ToCore(ev), core);
  });
});
