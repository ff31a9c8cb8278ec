// What the agents see of the hub, measured without touching their code: Node's HTTP client
// publishes every request on diagnostics channels, and this probe times the cluster lease renewals
// (PUT of managed-cluster-lease), counts each cluster's lease requests (GET and PUT, answered or
// not) and counts the watch streams open to one server.

import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { ClientRequest, IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';
import { Reservoir } from './stats.js';

const LEASE_PATH = /^\/apis\/coordination\.k8s\.io\/v1\/namespaces\/([^/]+)\/leases\/managed-cluster-lease(\?|$)/;

export interface RequestProbe {
  /** Latencies (ms) of successful lease renewals since the last reset. */
  readonly leaseUpdates: Reservoir;
  /** Lease renewals that failed (error or non-2xx) since the last reset. */
  leaseFailures(): number;
  /** Lease requests (GET or PUT, whatever their outcome) sent so far, by cluster namespace; never reset. */
  leaseRequestsByCluster(): ReadonlyMap<string, number>;
  /** Watch requests to the server currently open. */
  openWatches(): number;
  /** Requests of any kind sent to the server since the last reset. */
  requests(): number;
  reset(): void;
  close(): void;
}

interface StartMessage {
  request: ClientRequest;
}
interface FinishMessage {
  request: ClientRequest;
  response: IncomingMessage;
}

/** Matches requests to `host:port` (the Host header our transport and Node set). */
export function createRequestProbe(hostPort: string): RequestProbe {
  const leaseUpdates = new Reservoir(100_000);
  const started = new WeakMap<ClientRequest, number>();
  let failures = 0;
  let watches = 0;
  let count = 0;
  const leaseRequests = new Map<string, number>();
  const isTarget = (req: ClientRequest): boolean => req.getHeader('host') === hostPort;
  const onStart = (msg: unknown): void => {
    const { request } = msg as StartMessage;
    if (!isTarget(request)) return;
    count++;
    const lease = LEASE_PATH.exec(request.path);
    if (lease && (request.method === 'GET' || request.method === 'PUT')) leaseRequests.set(lease[1]!, (leaseRequests.get(lease[1]!) ?? 0) + 1);
    if (request.method === 'PUT' && lease) {
      started.set(request, performance.now());
      request.once('close', () => {
        // Still here: no response finished (an error or an abort).
        if (started.delete(request)) failures++;
      });
    } else if (request.method === 'GET' && /[?&]watch=(true|1)(&|$)/.test(request.path)) {
      watches++;
      request.once('close', () => watches--);
    }
  };
  const onFinish = (msg: unknown): void => {
    const { request, response } = msg as FinishMessage;
    const t0 = started.get(request);
    if (t0 === undefined) return;
    started.delete(request);
    const code = response.statusCode ?? 0;
    if (code >= 200 && code < 300) leaseUpdates.add(performance.now() - t0);
    else failures++;
  };
  subscribe('http.client.request.start', onStart);
  subscribe('http.client.response.finish', onFinish);
  return {
    leaseUpdates,
    leaseFailures: () => failures,
    leaseRequestsByCluster: () => new Map(leaseRequests),
    openWatches: () => watches,
    requests: () => count,
    reset() {
      leaseUpdates.clear();
      failures = 0;
      count = 0;
    },
    close() {
      unsubscribe('http.client.request.start', onStart);
      unsubscribe('http.client.response.finish', onFinish);
    },
  };
}
