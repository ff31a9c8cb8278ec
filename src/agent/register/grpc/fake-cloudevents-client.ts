// A CloudEventsClient for unit tests: it records what is published and hands each subscription's
// handlers to the test, which plays the hub by calling them.

import type { CloudEvent } from '../../../grpc/cloudevent.js';
import type { CloudEventsClient, SubscribeRequest, SubscriptionHandlers } from '../../../grpc/client.js';

interface FakeSubscription {
  req: SubscribeRequest;
  handlers: SubscriptionHandlers;
  closed: boolean;
}

export interface FakeCloudEventsClient extends Pick<CloudEventsClient, 'publish' | 'subscribe'> {
  published: CloudEvent[];
  subscriptions: FakeSubscription[];
  /** Answers each publish; default resolves. */
  onPublish: (e: CloudEvent) => Promise<void>;
}

export function createFakeCloudEventsClient(): FakeCloudEventsClient {
  const fake: FakeCloudEventsClient = {
    published: [],
    subscriptions: [],
    onPublish: async () => {},
    async publish(e) {
      fake.published.push(e);
      await fake.onPublish(e);
    },
    subscribe(req, handlers) {
      const sub: FakeSubscription = { req, handlers, closed: false };
      fake.subscriptions.push(sub);
      return { close: () => void (sub.closed = true) };
    },
  };
  return fake;
}
