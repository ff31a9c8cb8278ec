// A CloudEvent as our code handles it, and its binary-mode protobuf form as OCM's peers exchange it:
// the four required attributes are fields of their own, `datacontenttype` travels as the attribute
// `contenttype`, every other attribute and extension as `ce-<name>`, and the data as bytes. Pure.

import type { PbAttributeValue, PbCloudEvent, PbTimestamp } from './proto.js';

/** An extension or optional attribute value: the CloudEvents types we meet (URIs travel as strings). */
type CloudEventValue = string | number | boolean | Date | Buffer;

export interface CloudEvent {
  id: string;
  source: string;
  specVersion: string;
  type: string;
  dataContentType?: string;
  /** Optional attributes (time, subject, dataschema) and extensions, by name without the `ce-` prefix. */
  extensions: Record<string, CloudEventValue>;
  data?: Buffer;
}

export class CloudEventFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CloudEventFormatError';
  }
}

const PREFIX = 'ce-';
const CONTENT_TYPE = 'contenttype';
const SPEC_VERSION = '1.0';
const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

function toTimestamp(d: Date): PbTimestamp {
  const ms = d.getTime();
  const seconds = Math.floor(ms / 1000);
  return { seconds: String(seconds), nanos: (ms - seconds * 1000) * 1_000_000 };
}

function fromTimestamp(t: PbTimestamp): Date {
  const seconds = Number(t.seconds ?? 0);
  const nanos = t.nanos ?? 0;
  const d = new Date(seconds * 1000 + Math.floor(nanos / 1_000_000));
  if (!Number.isFinite(d.getTime())) throw new CloudEventFormatError('timestamp attribute out of range');
  return d;
}

function attributeFor(name: string, v: CloudEventValue): PbAttributeValue {
  if (typeof v === 'string') return { ceString: v };
  if (typeof v === 'boolean') return { ceBoolean: v };
  if (typeof v === 'number') {
    if (!Number.isInteger(v) || v < INT32_MIN || v > INT32_MAX) throw new CloudEventFormatError(`attribute ${name}: ${v} is not a 32-bit integer`);
    return { ceInteger: v };
  }
  if (v instanceof Date) return { ceTimestamp: toTimestamp(v) };
  return { ceBytes: v };
}

function valueOf(name: string, a: PbAttributeValue): CloudEventValue {
  switch (a.attr) {
    case 'ceBoolean': return a.ceBoolean ?? false;
    case 'ceInteger': return a.ceInteger ?? 0;
    case 'ceString': return a.ceString ?? '';
    case 'ceBytes': return a.ceBytes ?? Buffer.alloc(0);
    case 'ceUri': return a.ceUri ?? '';
    case 'ceUriRef': return a.ceUriRef ?? '';
    case 'ceTimestamp': return fromTimestamp(a.ceTimestamp ?? {});
    default: throw new CloudEventFormatError(`attribute ${name} has no value`);
  }
}

/** Our event → its protobuf message (binary mode). */
export function toPbCloudEvent(e: CloudEvent): PbCloudEvent {
  const attributes: Record<string, PbAttributeValue> = {};
  for (const [name, v] of Object.entries(e.extensions)) attributes[PREFIX + name] = attributeFor(name, v);
  if (e.dataContentType !== undefined) attributes[CONTENT_TYPE] = { ceString: e.dataContentType };
  return {
    id: e.id,
    source: e.source,
    specVersion: e.specVersion,
    type: e.type,
    attributes,
    ...(e.data !== undefined ? { binaryData: e.data } : {}),
  };
}

/**
 * A received protobuf message → our event. Refuses what OCM's peers refuse (no spec version, a
 * missing id, source or type, an attribute without a value) and structured-mode messages, which
 * OCM's peers never send.
 */
export function fromPbCloudEvent(pb: PbCloudEvent | undefined): CloudEvent {
  if (pb === undefined || pb === null) throw new CloudEventFormatError('missing event');
  const attrs = pb.attributes ?? {};
  const contentType = attrs[CONTENT_TYPE];
  if (contentType !== undefined && (contentType.ceString ?? '').startsWith('application/cloudevents')) {
    throw new CloudEventFormatError('structured-mode events are not supported');
  }
  if (pb.specVersion !== SPEC_VERSION) throw new CloudEventFormatError(`unsupported spec version ${JSON.stringify(pb.specVersion ?? '')}`);
  for (const k of ['id', 'source', 'type'] as const) {
    if (typeof pb[k] !== 'string' || pb[k] === '') throw new CloudEventFormatError(`missing ${k}`);
  }
  const extensions: Record<string, CloudEventValue> = {};
  for (const [key, a] of Object.entries(attrs)) {
    if (key.startsWith(PREFIX)) extensions[key.slice(PREFIX.length)] = valueOf(key, a);
  }
  let data: Buffer | undefined;
  if (pb.data === 'binaryData' || (pb.data === undefined && pb.binaryData !== undefined)) data = pb.binaryData ?? Buffer.alloc(0);
  else if (pb.data === 'textData' || (pb.data === undefined && pb.textData !== undefined)) data = Buffer.from(pb.textData ?? '', 'utf8');
  else if (pb.data === 'protoData') throw new CloudEventFormatError('protobuf event data is not supported');
  return {
    id: pb.id!,
    source: pb.source!,
    specVersion: SPEC_VERSION,
    type: pb.type!,
    ...(contentType !== undefined ? { dataContentType: String(valueOf(CONTENT_TYPE, contentType)) } : {}),
    extensions,
    ...(data !== undefined ? { data } : {}),
  };
}

/** An extension as a string (OCM sends resource versions as strings or integers); undefined when absent. */
export function extensionString(e: CloudEvent, name: string): string | undefined {
  const v = e.extensions[name];
  if (v === undefined) return undefined;
  if (v instanceof Date) return v.toISOString();
  if (Buffer.isBuffer(v)) return v.toString('base64');
  return String(v);
}

export const CLOUDEVENT_SPEC_VERSION = SPEC_VERSION;
