// The hub's gRPC CloudEvents server (OCM's CloudEventService: Publish and Subscribe). Every call is
// authenticated (client certificate of the gRPC CA, or a bearer token through a TokenReview) and
// authorised with a SubjectAccessReview on the hub for the cluster the event names; an agent's
// events become writes through the hub's client, and the hub's objects reach each subscriber of
// their cluster. Malformed input gets a gRPC error, never an exception out of a handler. TLS
// follows the hub's listener settings (minimum version, ciphers).

import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { readFileSync } from 'node:fs';
import type { SecureServerOptions } from 'node:http2';
import { networkInterfaces } from 'node:os';
import type { SecureContextOptions, SecureVersion } from 'node:tls';
import {
  Metadata, Server, ServerCredentials, status as grpcStatus,
  type sendUnaryData, type ServerUnaryCall, type ServerWritableStream, type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import type { KubeObject } from '../../api/meta.js';
import type { SubjectAccessReview } from '../../api/core.js';
import { ApiStatusError } from '../../client/errors.js';
import type { KubeClient, ResourceType } from '../../client/types.js';
import { CloudEventFormatError, extensionString, fromPbCloudEvent, toPbCloudEvent, type CloudEvent } from '../../grpc/cloudevent.js';
import { clusterNameOf, decodeObject, encodeObject, resourceIdOf } from '../../grpc/codecs.js';
import {
  dataTypes, EventTypeError, extensions, HEARTBEAT_EVENT_TYPE, HUB_EVENT_SOURCE, parseDataType, parseEventType, parseResyncRequest, registrationKind,
  type EventType, type RegistrationKind,
} from '../../grpc/event-types.js';
import { cloudEventServiceDefinition, SUBSCRIPTION_ID_KEY, type PbCloudEvent, type PbPublishRequest, type PbSubscriptionRequest } from '../../grpc/proto.js';
import { statusErrorMessage } from '../../grpc/status-error.js';
import type { Clock } from '../../util/clock.js';
import { errorMessage } from '../../util/errors.js';
import type { Logger } from '../../util/logger.js';
import { generateKeyPair, issueCertificate, type SigningCa } from '../../util/x509.js';
import { createAuthenticator, GrpcAuthnError, type Authenticator } from './authn.js';
import { acceptedAction, accessAttributes, clusterMismatch, GrpcAuthzError, subjectAccessReview, type GrpcUser } from './authz.js';
import { createBroker, type Broker } from './broker.js';
import type { GrpcServerSettings } from './grpc-settings.js';
import { createRegistrationServices, type RegistrationServices } from './registration-services.js';

interface GrpcHubServerOptions {
  client: KubeClient;
  csrResource: ResourceType;
  settings: Readonly<GrpcServerSettings>;
  /** The gRPC CA: verifies client certificates (unless settings name another bundle) and issues the serving certificate when none is given. */
  ca: SigningCa;
  tls: { minVersion: SecureVersion; ciphers?: string };
  log: Logger;
  clock?: Clock;
  signal: AbortSignal;
}

export interface GrpcHubServer {
  /** The bound port (useful with port 0). */
  readonly port: number;
  close(): Promise<void>;
}

/** A call's failure: a gRPC status code and its message. */
class CallError extends Error {
  constructor(readonly code: grpcStatus, message: string) {
    super(message);
    this.name = 'CallError';
  }
}

/** What any error thrown while serving a call becomes on the wire. */
function toStatus(err: unknown): { code: grpcStatus; details: string } {
  if (err instanceof CallError) return { code: err.code, details: err.message };
  if (err instanceof GrpcAuthnError) return { code: grpcStatus.UNAUTHENTICATED, details: err.message };
  if (err instanceof GrpcAuthzError) return { code: grpcStatus.PERMISSION_DENIED, details: err.message };
  if (err instanceof CloudEventFormatError || err instanceof EventTypeError) return { code: grpcStatus.INVALID_ARGUMENT, details: err.message };
  // The hub's answer travels as OCM's server sends it, so agents see the Kubernetes error.
  if (err instanceof ApiStatusError) return { code: grpcStatus.FAILED_PRECONDITION, details: statusErrorMessage(err.status) };
  return { code: grpcStatus.INTERNAL, details: errorMessage(err) };
}

/** grpc-js credentials with Node's TLS options: a client certificate is asked for but optional (tokens work too). */
class HubServerCredentials extends ServerCredentials {
  constructor(ctor: SecureServerOptions, ctx: SecureContextOptions) {
    super(ctor, ctx);
  }
  _equals(other: ServerCredentials): boolean {
    return other === this;
  }
}

function localAddresses(): string[] {
  const out = new Set(['127.0.0.1', '::1']);
  for (const list of Object.values(networkInterfaces())) for (const i of list ?? []) out.add(i.address.replace(/%.*$/, ''));
  return [...out];
}

async function servingPair(settings: Readonly<GrpcServerSettings>, ca: SigningCa, now: Date): Promise<{ cert: string; key: string }> {
  if (settings.certFile !== undefined && settings.keyFile !== undefined) {
    return { cert: readFileSync(settings.certFile, 'utf8'), key: readFileSync(settings.keyFile, 'utf8') };
  }
  const key = await generateKeyPair('ecdsa-p256');
  const cert = await issueCertificate({
    ca,
    subject: { commonName: 'ocm-ts-grpc-server' },
    publicKey: key.publicKeyPem,
    notBefore: new Date(now.getTime() - 5 * 60_000),
    notAfter: new Date(now.getTime() + 365 * 24 * 3600_000),
    keyUsages: ['digitalSignature', 'keyEncipherment'],
    extKeyUsages: ['serverAuth'],
    dnsNames: ['localhost'],
    ipAddresses: localAddresses(),
  });
  return { cert: cert + ca.certPem, key: key.privateKeyPem };
}

function bindAddress(listen: string): string {
  const m = /^(.*):(\d{1,5})$/.exec(listen.trim());
  if (!m) throw new Error(`gRPC listen address must be HOST:PORT or :PORT, got "${listen}"`);
  const host = m[1] === '' ? '0.0.0.0' : m[1]!;
  return `${host}:${m[2]}`;
}

interface CallContext {
  authenticate(): Promise<GrpcUser>;
}

function callContext(call: ServerUnaryCall<unknown, unknown> | ServerWritableStream<unknown, unknown>, authn: Authenticator, signal: AbortSignal): CallContext {
  return {
    authenticate: () => {
      const auth = call.metadata.get('authorization')[0];
      return authn.authenticate(call.getAuthContext().sslPeerCertificate, typeof auth === 'string' ? auth : undefined, signal);
    },
  };
}

export async function startGrpcHubServer(o: GrpcHubServerOptions): Promise<GrpcHubServer> {
  const log = o.log.child({ component: 'grpc-server' });
  const now = (): Date => new Date(o.clock ? o.clock.now() : Date.now());
  const clientCaPem = o.settings.clientCaFile !== undefined ? readFileSync(o.settings.clientCaFile, 'utf8') : o.ca.certPem;
  const authn = createAuthenticator({ clientCaPem, client: o.client, now });
  const services: RegistrationServices = createRegistrationServices({ client: o.client, csrResource: o.csrResource, log, ...(o.clock ? { clock: o.clock } : {}) });
  const broker: Broker = createBroker();
  const internal = new AbortController();
  // One listener per open subscription stream.
  setMaxListeners(0, internal.signal);
  const stop = (): void => internal.abort();
  o.signal.addEventListener('abort', stop, { once: true });

  const event = (kind: RegistrationKind, action: EventType['action'], obj: KubeObject, cluster?: string): CloudEvent =>
    encodeObject(obj, { source: HUB_EVENT_SOURCE, type: { dataType: dataTypes[kind], subResource: 'spec', action }, now: now(), ...(cluster !== undefined ? { clusterName: cluster } : {}) });

  services.onChange((c) => {
    const cluster = clusterNameOf(c.kind, c.obj);
    if (cluster === '' || !broker.subscribedClusters().has(cluster)) return;
    let e: CloudEvent;
    try {
      e = event(c.kind, c.action, c.obj);
      if (c.action === 'delete_request') e.extensions[extensions.deletionTimestamp] = now();
    } catch (err) {
      log.debug('object not sent to subscribers', { kind: c.kind, err: errorMessage(err) });
      return;
    }
    broker.publish(c.kind, cluster, e);
  });

  const review = async (user: GrpcUser, attrs: ReturnType<typeof accessAttributes>, signal: AbortSignal): Promise<void> => {
    let r: SubjectAccessReview;
    try {
      r = await o.client.request<SubjectAccessReview>('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', subjectAccessReview(user, attrs), { signal });
    } catch (err) {
      throw new CallError(grpcStatus.UNAVAILABLE, `access review failed: ${errorMessage(err)}`);
    }
    if (r.status?.allowed !== true) {
      throw new GrpcAuthzError(`access denied: ${user.name} may not ${attrs.verb} ${attrs.resource}${attrs.subresource ? `/${attrs.subresource}` : ''} of cluster ${attrs.namespace ?? ''}`);
    }
  };

  /** Answers a resync request: every object of the cluster, and a delete for each one the agent holds that is gone. */
  const resync = (kind: RegistrationKind, cluster: string, e: CloudEvent): void => {
    const held = parseResyncRequest(e.data).resourceVersions;
    const objs = services.list(kind, cluster);
    const present = new Set<string>();
    for (const obj of objs) {
      present.add(obj.metadata.uid ?? '');
      present.add(resourceIdOf(kind, obj));
      const gone = obj.metadata.deletionTimestamp !== undefined;
      const out = event(kind, gone ? 'delete_request' : 'update_request', obj, cluster);
      if (gone) out.extensions[extensions.deletionTimestamp] = new Date(obj.metadata.deletionTimestamp!);
      broker.publish(kind, cluster, out);
    }
    for (const h of held) {
      if (present.has(h.resourceID)) continue;
      const tombstone: KubeObject = { metadata: { uid: h.resourceID, ...(kind === 'managedClusters' ? { name: cluster } : { namespace: cluster }) } };
      const out = event(kind, 'delete_request', tombstone, cluster);
      out.extensions[extensions.resourceId] = h.resourceID;
      out.extensions[extensions.deletionTimestamp] = now();
      broker.publish(kind, cluster, out);
    }
  };

  async function publish(ctx: CallContext, req: PbPublishRequest, signal: AbortSignal): Promise<void> {
    const user = await ctx.authenticate();
    const e = fromPbCloudEvent(req?.event);
    const t = parseEventType(e.type);
    const kind = registrationKind(t.dataType);
    if (kind === undefined) throw new CallError(grpcStatus.INVALID_ARGUMENT, `failed to find service for event type ${t.dataType.group}.${t.dataType.version}.${t.dataType.resource}`);
    const cluster = extensionString(e, extensions.clusterName) ?? '';
    if (cluster === '') throw new CallError(grpcStatus.INVALID_ARGUMENT, 'missing ce-clustername in event attributes');
    if (t.action === 'resync_request') {
      await review(user, accessAttributes(kind, cluster, t), signal);
      resync(kind, cluster, e);
      return;
    }
    if (!acceptedAction(kind, t.subResource, t.action)) throw new CallError(grpcStatus.INVALID_ARGUMENT, `unsupported action ${t.subResource}.${t.action} for ${t.dataType.resource}`);
    const obj = decodeObject(e);
    const mismatch = clusterMismatch(kind, cluster, obj);
    if (mismatch !== undefined) throw new GrpcAuthzError(`access denied: ${mismatch}`);
    await review(user, accessAttributes(kind, cluster, t, obj.metadata.name ?? ''), signal);
    const written = await services.handle(kind, t, obj, user, signal);
    if (kind === 'tokenRequests' && written !== undefined) broker.publish(kind, cluster, event(kind, 'create_request', written, cluster));
  }

  async function subscribe(ctx: CallContext, req: PbSubscriptionRequest, signal: AbortSignal): Promise<{ cluster: string; kind: RegistrationKind }> {
    const user = await ctx.authenticate();
    const cluster = req?.clusterName ?? '';
    if (cluster === '') throw new CallError(grpcStatus.INVALID_ARGUMENT, 'invalid subscription request: missing cluster name');
    const dataType = parseDataType(req.dataType ?? '');
    const kind = registrationKind(dataType);
    if (kind === undefined) throw new CallError(grpcStatus.INVALID_ARGUMENT, `invalid subscription request: unsupported data type ${req.dataType ?? ''}`);
    await review(user, accessAttributes(kind, cluster, { dataType, subResource: 'spec', action: 'watch_request' }), signal);
    return { cluster, kind };
  }

  const heartbeat = (): PbCloudEvent => ({ specVersion: '1.0', id: randomUUID(), type: HEARTBEAT_EVENT_TYPE });

  const impl: UntypedServiceImplementation = {
    Publish: (call: ServerUnaryCall<PbPublishRequest, object>, callback: sendUnaryData<object>) => {
      const ac = new AbortController();
      call.on('cancelled', () => ac.abort());
      publish(callContext(call, authn, ac.signal), call.request, ac.signal).then(
        () => callback(null, {}),
        (err: unknown) => {
          const s = toStatus(err);
          if (s.code === grpcStatus.INTERNAL) log.error('publish failed', { err: errorMessage(err) });
          else log.debug('publish refused', { code: grpcStatus[s.code], details: s.details.slice(0, 300) });
          callback(s);
        },
      );
    },
    Subscribe: (call: ServerWritableStream<PbSubscriptionRequest, PbCloudEvent>) => {
      const ac = new AbortController();
      let id: string | undefined;
      let timer: NodeJS.Timeout | undefined;
      const onShutdown = (): void => {
        cleanup();
        call.end();
      };
      const cleanup = (): void => {
        ac.abort();
        internal.signal.removeEventListener('abort', onShutdown);
        if (timer) clearInterval(timer);
        if (id !== undefined) broker.remove(id);
        id = undefined;
      };
      call.on('cancelled', cleanup);
      call.on('close', cleanup);
      call.on('error', cleanup);
      internal.signal.addEventListener('abort', onShutdown, { once: true });
      subscribe(callContext(call, authn, ac.signal), call.request, ac.signal).then(
        ({ cluster, kind }) => {
          if (ac.signal.aborted) return;
          const send = (pb: PbCloudEvent): void => {
            if (!call.writable || ac.signal.aborted) return;
            try {
              call.write(pb);
            } catch (err) {
              log.debug('subscriber write failed', { err: errorMessage(err) });
            }
          };
          id = broker.add({ cluster, kind, send: (e) => send(toPbCloudEvent(e)) });
          const md = new Metadata();
          md.set(SUBSCRIPTION_ID_KEY, id);
          call.sendMetadata(md);
          log.info('registering subscriber', { id, clusterName: cluster, dataType: kind });
          if (!o.settings.heartbeatDisabled) {
            timer = setInterval(() => send(heartbeat()), o.settings.heartbeatIntervalMs);
            timer.unref();
          }
        },
        (err: unknown) => {
          const s = toStatus(err);
          log.debug('subscription refused', { code: grpcStatus[s.code], details: s.details.slice(0, 300) });
          cleanup();
          call.emit('error', s);
        },
      );
    },
  };

  await services.start(internal.signal);
  const pair = await servingPair(o.settings, o.ca, now());
  const creds = new HubServerCredentials(
    { requestCert: true, rejectUnauthorized: false, minVersion: o.tls.minVersion, ...(o.tls.ciphers ? { ciphers: o.tls.ciphers } : {}) },
    { cert: pair.cert, key: pair.key, ca: clientCaPem },
  );
  const server = new Server({ 'grpc.max_receive_message_length': 4 * 1024 * 1024 });
  server.addService(cloudEventServiceDefinition(), impl);
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(bindAddress(o.settings.listen), creds, (err, p) => (err ? reject(err) : resolve(p)));
  });
  log.info('gRPC CloudEvents server listening', { listen: o.settings.listen, port });
  let closed = false;
  return {
    port,
    close: async () => {
      if (closed) return;
      closed = true;
      o.signal.removeEventListener('abort', stop);
      internal.abort();
      await new Promise<void>((resolve) => {
        const t = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, 2000);
        server.tryShutdown(() => {
          clearTimeout(t);
          resolve();
        });
      });
    },
  };
}
