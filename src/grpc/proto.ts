// The CloudEvents protobuf format and OCM's CloudEventService, described in protobufjs's JSON form
// and loaded with @grpc/proto-loader. Package, service, method, message and field names and numbers
// are those of the wire format (CloudEvents' protobuf binding and OCM's sdk-go service), so that Go
// peers and we read each other's frames; field names are written in the camelCase that protobufjs
// uses for the JavaScript objects (names never reach the wire). Keeping the description in TypeScript means the compiled
// package needs no .proto file beside it.

import { createRequire } from 'node:module';
import type * as ProtoLoader from '@grpc/proto-loader';
import type * as GrpcJs from '@grpc/grpc-js';
import type { ServiceDefinition, GrpcObject, ServiceClientConstructor } from '@grpc/grpc-js';

// The libraries are required when the service is first needed, not imported: this module's types
// are used by code that every agent loads, and only the gRPC driver needs grpc-js and protobufjs.
const requireCjs = createRequire(import.meta.url);

const f = (id: number, type: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({ id, type, ...extra });

const DESCRIPTOR = {
  nested: {
    google: {
      nested: {
        protobuf: {
          nested: {
            Empty: { fields: {} },
            Any: { fields: { typeUrl: f(1, 'string'), value: f(2, 'bytes') } },
            Timestamp: { fields: { seconds: f(1, 'int64'), nanos: f(2, 'int32') } },
          },
        },
      },
    },
    io: {
      nested: {
        cloudevents: {
          nested: {
            v1: {
              nested: {
                CloudEvent: {
                  oneofs: { data: { oneof: ['binaryData', 'textData', 'protoData'] } },
                  fields: {
                    id: f(1, 'string'),
                    source: f(2, 'string'),
                    specVersion: f(3, 'string'),
                    type: f(4, 'string'),
                    attributes: f(5, 'CloudEventAttributeValue', { keyType: 'string' }),
                    binaryData: f(6, 'bytes'),
                    textData: f(7, 'string'),
                    protoData: f(8, 'google.protobuf.Any'),
                  },
                },
                CloudEventAttributeValue: {
                  oneofs: { attr: { oneof: ['ceBoolean', 'ceInteger', 'ceString', 'ceBytes', 'ceUri', 'ceUriRef', 'ceTimestamp'] } },
                  fields: {
                    ceBoolean: f(1, 'bool'),
                    ceInteger: f(2, 'int32'),
                    ceString: f(3, 'string'),
                    ceBytes: f(4, 'bytes'),
                    ceUri: f(5, 'string'),
                    ceUriRef: f(6, 'string'),
                    ceTimestamp: f(7, 'google.protobuf.Timestamp'),
                  },
                },
                PublishRequest: { fields: { event: f(1, 'CloudEvent') } },
                SubscriptionRequest: { fields: { source: f(1, 'string'), clusterName: f(2, 'string'), dataType: f(3, 'string') } },
                CloudEventService: {
                  methods: {
                    Publish: { requestType: 'PublishRequest', responseType: 'google.protobuf.Empty' },
                    Subscribe: { requestType: 'SubscriptionRequest', responseType: 'CloudEvent', responseStream: true },
                  },
                },
              },
            },
          },
        },
      },
    },
  },
};

/** 64-bit integers as strings, bytes as Buffers, and the name of the set oneof member. */
const LOADER_OPTIONS: ProtoLoader.Options = { keepCase: true, longs: String, enums: String, bytes: Buffer, defaults: false, oneofs: true };

/** `google.protobuf.Timestamp` as decoded (seconds as a string) or as given to the encoder. */
export interface PbTimestamp {
  seconds?: string | number;
  nanos?: number;
}

/** One CloudEvent attribute: exactly one member set; `attr` names it when decoded. */
export interface PbAttributeValue {
  ceBoolean?: boolean;
  ceInteger?: number;
  ceString?: string;
  ceBytes?: Buffer;
  ceUri?: string;
  ceUriRef?: string;
  ceTimestamp?: PbTimestamp;
  attr?: string;
}

/** `io.cloudevents.v1.CloudEvent` as grpc-js hands it over (decoded) or takes it (to encode). */
export interface PbCloudEvent {
  id?: string;
  source?: string;
  specVersion?: string;
  type?: string;
  attributes?: Record<string, PbAttributeValue>;
  binaryData?: Buffer;
  textData?: string;
  protoData?: { typeUrl?: string; value?: Buffer };
  data?: string;
}

export interface PbPublishRequest {
  event?: PbCloudEvent;
}

export interface PbSubscriptionRequest {
  source?: string;
  clusterName?: string;
  dataType?: string;
}

/** Response metadata key carrying the subscription's id (OCM's server sends it first on a stream). */
export const SUBSCRIPTION_ID_KEY = 'subscription-id';

let loaded: GrpcObject | undefined;

function grpcObject(): GrpcObject {
  if (loaded) return loaded;
  const { fromJSON } = requireCjs('@grpc/proto-loader') as typeof ProtoLoader;
  const { loadPackageDefinition } = requireCjs('@grpc/grpc-js') as typeof GrpcJs;
  loaded = loadPackageDefinition(fromJSON(DESCRIPTOR as Parameters<typeof fromJSON>[0], LOADER_OPTIONS));
  return loaded;
}

function serviceConstructor(): ServiceClientConstructor {
  const v1 = ((grpcObject()['io'] as GrpcObject)['cloudevents'] as GrpcObject)['v1'] as GrpcObject;
  return v1['CloudEventService'] as ServiceClientConstructor;
}

/** The service's method table, for `Server.addService`. */
export function cloudEventServiceDefinition(): ServiceDefinition {
  return serviceConstructor().service;
}

/** The generated client class of the service. */
export function cloudEventServiceClient(): ServiceClientConstructor {
  return serviceConstructor();
}
