import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../api/meta.js';
import { nullLogger } from '../util/logger.js';
import { ApiStatusError, statusFromCode } from './errors.js';
import { createEventRecorder } from './event-recorder.js';
import { createManualClock } from './manual-clock.js';
import type { KubeClient, ResourceClient, ResourceType } from './types.js';

interface Call {
  verb: string;
  path: string;
  body: unknown;
}

function fakeClient(opts: { failCreate?: boolean; patchNotFound?: boolean } = {}): { client: KubeClient; calls: Call[] } {
  const calls: Call[] = [];
  const resource = (type: ResourceType, ns?: string): ResourceClient => {
    const path = `${type.group || 'core'}/${type.version}/${ns ?? ''}/${type.resource}`;
    const rc: Partial<ResourceClient> = {
      type,
      namespace: ns,
      create: async (obj: KubeObject) => {
        calls.push({ verb: 'create', path, body: obj });
        if (opts.failCreate) throw new ApiStatusError(statusFromCode(403, 'forbidden'));
        return obj;
      },
      patch: async (name: string, pt: string, body: unknown) => {
        calls.push({ verb: `patch-${pt}`, path: `${path}/${name}`, body });
        if (opts.patchNotFound) throw new ApiStatusError(statusFromCode(404, 'gone'));
        return { metadata: { name } };
      },
    };
    return rc as ResourceClient;
  };
  const client = { server: 'https://x', resource, request: async () => undefined, probe: async () => ({ statusCode: 200, body: '' }), close() {} } as unknown as KubeClient;
  return { client, calls };
}

const cluster: KubeObject = { apiVersion: 'cluster.open-cluster-management.io/v1', kind: 'ManagedCluster', metadata: { name: 'cluster1', uid: 'u-1' } };

test('should create events.k8s.io/v1 Events with the upstream fields and aggregate repeats', async () => {
  const clock = createManualClock(Date.parse('2025-01-01T10:00:00.123Z'));
  const { client, calls } = fakeClient();
  const rec = createEventRecorder(client, { component: 'klusterlet-agent', host: 'node1', log: nullLogger(), clock });
  rec.event(cluster, 'Normal', 'Available', 'The cluster1 is available', 'cluster1');
  await rec.flush();
  clock.advance(1000);
  rec.event(cluster, 'Normal', 'Available', 'The cluster1 is available', 'cluster1');
  await rec.flush();
  assert.equal(calls.length, 2);
  const ev = calls[0]?.body as Record<string, unknown>;
  assert.equal(calls[0]?.path, 'events.k8s.io/v1/cluster1/events');
  assert.deepEqual(ev, {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: { name: `cluster1.${(BigInt(Date.parse('2025-01-01T10:00:00.123Z')) * 1_000_000n).toString(16)}`, namespace: 'cluster1' },
    eventTime: '2025-01-01T10:00:00.123000Z',
    reportingController: 'klusterlet-agent',
    reportingInstance: 'klusterlet-agent-node1',
    action: 'Available',
    reason: 'Available',
    note: 'The cluster1 is available',
    type: 'Normal',
    regarding: { apiVersion: 'cluster.open-cluster-management.io/v1', kind: 'ManagedCluster', name: 'cluster1', namespace: 'cluster1', uid: 'u-1' },
  });
  assert.equal(calls[1]?.verb, 'patch-merge');
  assert.deepEqual(calls[1]?.body, { series: { count: 2, lastObservedTime: '2025-01-01T10:00:01.123000Z' } });
});

test('should write core/v1 Events when asked, in default for cluster-scoped objects', async () => {
  const clock = createManualClock(Date.parse('2025-01-01T10:00:00Z'));
  const { client, calls } = fakeClient();
  const rec = createEventRecorder(client, { component: 'registration-controller', log: nullLogger(), clock, api: 'v1' });
  rec.event(cluster, 'Warning', 'AvailableUnknown', 'm');
  rec.event(cluster, 'Warning', 'AvailableUnknown', 'm');
  await rec.flush();
  assert.deepEqual(calls.map((c) => c.verb), ['create', 'patch-merge']);
  const ev = calls[0]?.body as Record<string, unknown>;
  assert.equal(calls[0]?.path, 'core/v1/default/events');
  assert.deepEqual(ev.involvedObject, { apiVersion: 'cluster.open-cluster-management.io/v1', kind: 'ManagedCluster', name: 'cluster1', uid: 'u-1' });
  assert.equal(ev.count, 1);
  assert.deepEqual(ev.source, { component: 'registration-controller' });
  assert.equal(ev.firstTimestamp, '2025-01-01T10:00:00Z');
  assert.deepEqual(calls[1]?.body, { count: 2, lastTimestamp: '2025-01-01T10:00:00Z' });
});

test('should never throw, and create a new Event when the aggregated one is gone', async () => {
  const clock = createManualClock();
  const failing = fakeClient({ failCreate: true });
  const rec = createEventRecorder(failing.client, { component: 'c', log: nullLogger(), clock });
  assert.doesNotThrow(() => rec.event(cluster, 'Normal', 'R', 'm'));
  await rec.flush();
  const gone = fakeClient({ patchNotFound: true });
  const rec2 = createEventRecorder(gone.client, { component: 'c', log: nullLogger(), clock });
  rec2.event(cluster, 'Normal', 'R', 'm');
  rec2.event(cluster, 'Normal', 'R', 'm');
  await rec2.flush();
  assert.deepEqual(gone.calls.map((c) => c.verb), ['create', 'patch-merge', 'create']);
});
