// The agent side of OCM's CloudEventService over grpc-js: one channel to the server (TLS with the
// configured CA, a client certificate or a bearer token), Publish as a promise and Subscribe as a
// stream of decoded events. A subscription reports its end once (error, end of stream, or no
// heartbeat within serverHealthinessTimeout) and the caller decides when to subscribe again.

import { createRequire } from 'node:module';
import { createSecureContext } from 'node:tls';
import type * as GrpcJs from '@grpc/grpc-js';
import type { ChannelCredentials, Client, ClientReadableStream, ServiceError } from '@grpc/grpc-js';
import { ApiStatusError } from '../client/errors.js';
import { fromPbCloudEvent, toPbCloudEvent, type CloudEvent } from './cloudevent.js';
import { formatDataType, HEARTBEAT_EVENT_TYPE, type DataType } from './event-types.js';
import type { GrpcClientConfig } from './grpc-config.js';
import { cloudEventServiceClient, type PbCloudEvent, type PbPublishRequest, type PbSubscriptionRequest } from './proto.js';
import { parseStatusErrorMessage } from './status-error.js';
import { setIoTimeout, type IoTimeout } from '../util/io-timeout.js';

// grpc-js (and the protobuf code behind it) is required on first use rather than imported: the
// agent's modules reach this one whatever its registration driver, and with the CSR driver the
// gRPC library would only cost memory.
const requireCjs = createRequire(import.meta.url);
let grpcJs: typeof GrpcJs | undefined;
const grpc = (): typeof GrpcJs => (grpcJs ??= requireCjs('@grpc/grpc-js') as typeof GrpcJs);

/** A failed call that carried no Kubernetes status: `code` is the gRPC status code. */
export class GrpcCallError extends Error {
  readonly code: number;
  constructor(code: number, message: string, opts: { cause?: unknown } = {}) {
    super(message, opts.cause !== undefined ? { cause: opts.cause } : undefined);
    this.name = 'GrpcCallError';
    this.code = code;
  }
}

export interface SubscribeRequest {
  clusterName: string;
  dataType: DataType;
  /** Empty: events from every source (what OCM's agent asks for). */
  source?: string;
}

export interface SubscriptionHandlers {
  onEvent(e: CloudEvent): void;
  /**
   * The server registered the subscription (its response headers arrived, as OCM's server sends
   * them once the subscriber is registered): events published from now on reach this stream.
   */
  onReady?(): void;
  /** The subscription ended (never after close()): a GrpcCallError, or an Error for a health timeout or end of stream. */
  onEnd(err: Error): void;
  /** A heartbeat arrived (the server is alive). */
  onHeartbeat?(): void;
  /** A frame that is not a valid CloudEvent; it is skipped. */
  onBadEvent?(err: Error): void;
}

interface Subscription {
  close(): void;
}

export interface CloudEventsClient {
  /**
   * Publishes one event. Rejects with ApiStatusError when the server answered with a Kubernetes
   * status (as OCM's server does for API errors), else GrpcCallError.
   */
  publish(e: CloudEvent, opts?: { signal?: AbortSignal; timeoutMs?: number }): Promise<void>;
  subscribe(req: SubscribeRequest, handlers: SubscriptionHandlers): Subscription;
  /** Resolves once the channel is connected; rejects after `timeoutMs`. */
  waitForReady(timeoutMs: number): Promise<void>;
  close(): void;
}

interface ConnectOptions {
  /** Overrides the TLS server name checked against the certificate (tests). */
  serverName?: string;
}

function toCallError(err: ServiceError): Error {
  const status = parseStatusErrorMessage(err.details ?? '');
  if (status) return new ApiStatusError(status, { cause: err });
  return new GrpcCallError(err.code, `${grpc().status[err.code] ?? err.code}: ${err.details ?? err.message}`, { cause: err });
}

function credentials(config: GrpcClientConfig): ChannelCredentials {
  const { CallCredentials, ChannelCredentials, Metadata } = grpc();
  if (config.caPem === undefined && config.clientCertPem === undefined && config.token === undefined) return ChannelCredentials.createInsecure();
  // TLS 1.3 only, as OCM's gRPC clients.
  const ctx = createSecureContext({
    minVersion: 'TLSv1.3',
    ...(config.caPem !== undefined ? { ca: config.caPem } : {}),
    ...(config.clientCertPem !== undefined ? { cert: config.clientCertPem, key: config.clientKeyPem } : {}),
  });
  const channel = ChannelCredentials.createFromSecureContext(ctx);
  if (config.token === undefined) return channel;
  const token = config.token;
  const call = CallCredentials.createFromMetadataGenerator((_params, cb) => {
    const md = new Metadata();
    md.set('authorization', `Bearer ${token}`);
    cb(null, md);
  });
  return channel.compose(call);
}

export function connectCloudEvents(config: GrpcClientConfig, opts: ConnectOptions = {}): CloudEventsClient {
  const { Metadata } = grpc();
  const Ctor = cloudEventServiceClient();
  const channelOptions: Record<string, number | string> = {};
  if (config.keepAlive.enable) {
    channelOptions['grpc.keepalive_time_ms'] = config.keepAlive.timeMs;
    channelOptions['grpc.keepalive_timeout_ms'] = config.keepAlive.timeoutMs;
    channelOptions['grpc.keepalive_permit_without_calls'] = config.keepAlive.permitWithoutStream ? 1 : 0;
  }
  if (opts.serverName !== undefined) channelOptions['grpc.ssl_target_name_override'] = opts.serverName;
  const client = new Ctor(config.url, credentials(config), channelOptions) as Client & Record<string, (...args: unknown[]) => unknown>;

  const publish = (e: CloudEvent, o: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<void> =>
    new Promise((resolve, reject) => {
      const req: PbPublishRequest = { event: toPbCloudEvent(e) };
      const callOpts = o.timeoutMs !== undefined ? { deadline: Date.now() + o.timeoutMs } : {};
      const call = client['publish']!(req, new Metadata(), callOpts, (err: ServiceError | null) => {
        o.signal?.removeEventListener('abort', onAbort);
        if (err) reject(toCallError(err));
        else resolve();
      }) as { cancel(): void };
      const onAbort = (): void => call.cancel();
      if (o.signal?.aborted) call.cancel();
      else o.signal?.addEventListener('abort', onAbort, { once: true });
    });

  const subscribe = (req: SubscribeRequest, h: SubscriptionHandlers): Subscription => {
    const pbReq: PbSubscriptionRequest = { ...(req.source ? { source: req.source } : {}), clusterName: req.clusterName, dataType: formatDataType(req.dataType) };
    const stream = client['subscribe']!(pbReq) as ClientReadableStream<PbCloudEvent>;
    let ended = false;
    let timer: IoTimeout | undefined;
    const end = (err: Error): void => {
      if (ended) return;
      ended = true;
      timer?.clear();
      stream.cancel();
      h.onEnd(err);
    };
    const arm = (): void => {
      if (config.serverHealthinessTimeoutMs === undefined) return;
      timer?.clear();
      const ms = config.serverHealthinessTimeoutMs;
      // A heartbeat that arrived while this process was stalled is read before the deadline fires.
      timer = setIoTimeout(() => end(new Error(`stream timeout: no heartbeat received for ${ms}ms`)), ms);
    };
    arm();
    stream.on('metadata', () => {
      if (!ended) h.onReady?.();
    });
    stream.on('data', (pb: PbCloudEvent) => {
      if (ended) return;
      arm();
      if (pb.type === HEARTBEAT_EVENT_TYPE) {
        h.onHeartbeat?.();
        return;
      }
      let e: CloudEvent;
      try {
        e = fromPbCloudEvent(pb);
      } catch (err) {
        h.onBadEvent?.(err as Error);
        return;
      }
      h.onEvent(e);
    });
    stream.on('error', (err: ServiceError) => end(toCallError(err)));
    stream.on('end', () => end(new Error('subscription stream ended by the server')));
    return {
      close: () => {
        ended = true;
        timer?.clear();
        stream.cancel();
      },
    };
  };

  return {
    publish,
    subscribe,
    waitForReady: (timeoutMs) =>
      new Promise((resolve, reject) => {
        client.waitForReady(Date.now() + timeoutMs, (err) => (err ? reject(err) : resolve()));
      }),
    close: () => client.close(),
  };
}
