// What the agents see of the hub, measured without touching their code: this probe times the
// cluster lease renewals (PUT of managed-cluster-lease), counts each cluster's lease requests (GET and
// PUT sent; under HTTP/2 only those sent on a connected session) and counts the watch streams open
// to one server. Over HTTP/1.1 Node's client publishes every request on diagnostics channels. Node 20
// publishes nothing for HTTP/2 client streams, so while the probe is open it also wraps the request
// method shared by every HTTP/2 client session of the process.

import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { ClientRequest, IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import * as http2 from 'node:http2';
import { performance } from 'node:perf_hooks';
import { Duplex } from 'node:stream';
import { createLoopDelayMeter, type LoopDelayMeter } from './loop-delay.js';
import { Reservoir } from './stats.js';

const LEASE_PATH = /^\/apis\/coordination\.k8s\.io\/v1\/namespaces\/([^/]+)\/leases\/managed-cluster-lease(\?|$)/;
const WATCH_QUERY = /[?&]watch=(true|1)(&|$)/;

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
  /** Event-loop delay of the agents' process(es); `reset()` resets it too. */
  readonly loopDelay: LoopDelayMeter;
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

/** One request as the probe follows it, whatever the protocol. */
interface Observed {
  method: string;
  path: string;
  /** Runs once when the request ends: with the status when a response came, undefined otherwise. */
  onEnd(fn: (status: number | undefined) => void): void;
  /** Runs once when the request or stream is gone (watches). */
  onClose(fn: () => void): void;
}

type RequestFn = (this: http2.ClientHttp2Session, headers?: OutgoingHttpHeaders, options?: http2.ClientSessionRequestOptions) => http2.ClientHttp2Stream;

/** The prototype every HTTP/2 client session shares, taken from a session on a stream that goes nowhere. */
function clientSessionPrototype(): { request: RequestFn } {
  const nowhere = new Duplex({ read() {}, write: (_chunk, _enc, cb) => cb() });
  const session = http2.connect('http://probe.invalid', { createConnection: () => nowhere });
  session.on('error', () => {});
  const proto = Object.getPrototypeOf(session) as { request: RequestFn };
  session.destroy();
  nowhere.destroy();
  return proto;
}

/** `host:port` of the server an HTTP/2 session talks to (requests name it only when they set :authority themselves). */
function sessionHost(session: http2.ClientHttp2Session): string | undefined {
  const origin = session.originSet?.[0];
  if (origin !== undefined) return new URL(origin).host;
  const socket = session.socket as { remoteAddress?: string; remotePort?: number } | undefined;
  return socket?.remoteAddress !== undefined ? `${socket.remoteAddress}:${socket.remotePort}` : undefined;
}

interface RequestProbeOptions {
  /** Also called with each successful lease renewal's latency (ms): a worker process ships them to the coordinator. */
  onLeaseUpdate?: (ms: number) => void;
}

/** Matches requests to `host:port` (the Host header, or the HTTP/2 :authority, our transport and Node set). */
export function createRequestProbe(hostPort: string, opts: RequestProbeOptions = {}): RequestProbe {
  const leaseUpdates = new Reservoir(100_000);
  const loop = createLoopDelayMeter();
  let failures = 0;
  let watches = 0;
  let count = 0;
  const leaseRequests = new Map<string, number>();
  const observe = (r: Observed): void => {
    count++;
    const lease = LEASE_PATH.exec(r.path);
    if (lease && (r.method === 'GET' || r.method === 'PUT')) leaseRequests.set(lease[1]!, (leaseRequests.get(lease[1]!) ?? 0) + 1);
    if (r.method === 'PUT' && lease) {
      const t0 = performance.now();
      r.onEnd((code) => {
        if (code !== undefined && code >= 200 && code < 300) {
          const ms = performance.now() - t0;
          leaseUpdates.add(ms);
          opts.onLeaseUpdate?.(ms);
        } else {
          failures++;
        }
      });
    } else if (r.method === 'GET' && WATCH_QUERY.test(r.path)) {
      watches++;
      r.onClose(() => watches--);
    }
  };

  // HTTP/1.1: the request's start, its response's end, and its close (an error or abort when no response ended first).
  const ends = new WeakMap<ClientRequest, (status: number | undefined) => void>();
  const onStart = (msg: unknown): void => {
    const { request } = msg as StartMessage;
    if (request.getHeader('host') !== hostPort) return;
    observe({
      method: request.method,
      path: request.path,
      onEnd: (fn) => {
        ends.set(request, fn);
        request.once('close', () => {
          const end = ends.get(request);
          ends.delete(request);
          end?.(undefined);
        });
      },
      onClose: (fn) => request.once('close', fn),
    });
  };
  const onFinish = (msg: unknown): void => {
    const { request, response } = msg as FinishMessage;
    const end = ends.get(request);
    if (!end) return;
    ends.delete(request);
    end(response.statusCode ?? 0);
  };
  subscribe('http.client.request.start', onStart);
  subscribe('http.client.response.finish', onFinish);

  // HTTP/2: each stream a session opens; it ends at its close, with the :status of its response if one came.
  const proto = clientSessionPrototype();
  const original = proto.request;
  const follow = (stream: http2.ClientHttp2Stream, headers: OutgoingHttpHeaders | undefined): void => {
    let status: number | undefined;
    stream.once('response', (h) => (status = Number(h[':status'])));
    observe({
      method: String(headers?.[':method'] ?? 'GET'),
      path: String(headers?.[':path'] ?? ''),
      onEnd: (fn) => stream.once('close', () => fn(status)),
      onClose: (fn) => stream.once('close', fn),
    });
  };
  const wrapped: RequestFn = function (this: http2.ClientHttp2Session, headers, options) {
    const stream = original.call(this, headers, options);
    const explicit = headers?.[':authority'];
    if (explicit !== undefined) {
      if (explicit === hostPort) follow(stream, headers);
    } else if (this.connecting) {
      // The server is known once connected; the stream's events come later still.
      this.once('connect', () => {
        if (sessionHost(this) === hostPort) follow(stream, headers);
      });
    } else if (sessionHost(this) === hostPort) {
      follow(stream, headers);
    }
    return stream;
  };
  proto.request = wrapped;

  return {
    leaseUpdates,
    leaseFailures: () => failures,
    leaseRequestsByCluster: () => new Map(leaseRequests),
    openWatches: () => watches,
    requests: () => count,
    loopDelay: loop,
    reset() {
      leaseUpdates.clear();
      failures = 0;
      count = 0;
      loop.reset();
    },
    close() {
      loop.close();
      unsubscribe('http.client.request.start', onStart);
      unsubscribe('http.client.response.finish', onFinish);
      if (proto.request === wrapped) proto.request = original;
    },
  };
}
