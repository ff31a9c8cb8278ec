// The subscribers of the hub's CloudEvents server, by cluster and kind, and what each is sent: the
// changes of its cluster's objects, the answers to its cluster's resync requests and token
// requests. Sending never throws; a subscriber that cannot keep up is the transport's business.

import { randomUUID } from 'node:crypto';
import type { CloudEvent } from '../../grpc/cloudevent.js';
import type { RegistrationKind } from '../../grpc/event-types.js';

interface Subscriber {
  cluster: string;
  kind: RegistrationKind;
  send(e: CloudEvent): void;
}

export interface Broker {
  /** Registers a subscriber; returns its id. */
  add(s: Subscriber): string;
  remove(id: string): void;
  /** Sends `e` to every subscriber of `cluster` and `kind`. */
  publish(kind: RegistrationKind, cluster: string, e: CloudEvent): void;
  /** Clusters with at least one subscriber. */
  subscribedClusters(): Set<string>;
}

export function createBroker(): Broker {
  const subs = new Map<string, Subscriber>();
  return {
    add(s) {
      const id = randomUUID();
      subs.set(id, s);
      return id;
    },
    remove(id) {
      subs.delete(id);
    },
    publish(kind, cluster, e) {
      for (const s of subs.values()) if (s.kind === kind && s.cluster === cluster) s.send(e);
    },
    subscribedClusters() {
      return new Set([...subs.values()].map((s) => s.cluster));
    },
  };
}
