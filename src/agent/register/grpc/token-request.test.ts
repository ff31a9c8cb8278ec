import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiStatusError } from '../../../client/errors.js';
import { createManualClock } from '../../../client/manual-clock.js';
import { decodeObject, encodeObject } from '../../../grpc/codecs.js';
import { dataTypes } from '../../../grpc/event-types.js';
import { createFakeCloudEventsClient } from './fake-cloudevents-client.js';
import { requestToken, TOKEN_REQUEST_PATH } from './token-request.js';

const input = (over: Partial<Parameters<typeof requestToken>[0]> = {}): Parameters<typeof requestToken>[0] => ({
  client: createFakeCloudEventsClient(),
  clusterName: 'c1',
  source: 'c1',
  namespace: 'c1',
  serviceAccount: 'sa',
  body: { spec: { expirationSeconds: 600 } },
  uid: 'req-1',
  timeoutMs: 1000,
  clock: createManualClock(),
  signal: new AbortController().signal,
  ...over,
});

test('should publish the request once subscribed and return the answer carrying its uid', async () => {
  const fake = createFakeCloudEventsClient();
  const pending = requestToken(input({ client: fake }));
  assert.equal(fake.published.length, 0);
  const sub = fake.subscriptions[0]!;
  assert.deepEqual(sub.req, { clusterName: 'c1', dataType: dataTypes.tokenRequests });
  sub.handlers.onReady!();
  await new Promise((r) => setImmediate(r));
  const sent = decodeObject(fake.published[0]!);
  assert.deepEqual(sent.metadata, { name: 'sa', namespace: 'c1', uid: 'req-1' });
  assert.deepEqual(sent['spec'], { expirationSeconds: 600 });
  const answer = (uid: string, token: string) =>
    encodeObject({ metadata: { name: 'sa', namespace: 'c1', uid }, status: { token } }, { source: 'kube', type: { dataType: dataTypes.tokenRequests, subResource: 'spec', action: 'create_request' } });
  sub.handlers.onEvent(answer('someone-else', 'x'));
  sub.handlers.onEvent(answer('req-1', 'tok'));
  const got = await pending;
  assert.deepEqual(got['status'], { token: 'tok' });
  assert.equal(sub.closed, true);
});

test('should give up after the timeout, and refuse other namespaces', async () => {
  const clock = createManualClock();
  const pending = requestToken(input({ clock }));
  clock.advance(1000);
  await assert.rejects(pending, (e) => e instanceof ApiStatusError && e.code === 504);
  await assert.rejects(requestToken(input({ namespace: 'c2' })), (e) => e instanceof ApiStatusError && e.code === 403);
});

test('should recognise the token request path', () => {
  assert.deepEqual(TOKEN_REQUEST_PATH.exec('/api/v1/namespaces/c1/serviceaccounts/sa/token')?.slice(1), ['c1', 'sa']);
  assert.equal(TOKEN_REQUEST_PATH.exec('/api/v1/namespaces/c1/serviceaccounts/sa'), null);
});
