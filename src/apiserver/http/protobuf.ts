// Request bodies in Kubernetes' protobuf encoding (`application/vnd.kubernetes.protobuf`), which
// kubectl 1.34+ sends for built-in kinds (`create namespace`, `auth can-i`, `certificate approve`).
// The envelope is the magic "k8s\0" and a runtime.Unknown (typeMeta, raw); raw is decoded with the
// field tables of protobuf-schemas.ts into the object's JSON form. Pure.

import { DELETE_OPTIONS, PROTOBUF_KINDS, type FieldType, type MessageSchema } from './protobuf-schemas.js';

export class ProtobufDecodeError extends Error {}

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

interface Field {
  num: number;
  wire: number;
  /** Varint or fixed value (wire types 0, 1, 5). */
  int?: bigint;
  /** Length-delimited bytes (wire type 2). */
  bytes?: Buffer;
}

function readVarint(buf: Buffer, pos: number): [bigint, number] {
  let result = 0n;
  let shift = 0n;
  for (let i = 0; i < 10; i++) {
    if (pos >= buf.length) throw new ProtobufDecodeError('truncated varint');
    const b = buf[pos++]!;
    result |= BigInt(b & 0x7f) << shift;
    if ((b & 0x80) === 0) return [result, pos];
    shift += 7n;
  }
  throw new ProtobufDecodeError('varint too long');
}

function fieldsOf(buf: Buffer): Field[] {
  const out: Field[] = [];
  let pos = 0;
  while (pos < buf.length) {
    const [key, p1] = readVarint(buf, pos);
    pos = p1;
    const num = Number(key >> 3n);
    const wire = Number(key & 7n);
    if (wire === 0) {
      const [v, p2] = readVarint(buf, pos);
      out.push({ num, wire, int: v });
      pos = p2;
    } else if (wire === 2) {
      const [len, p2] = readVarint(buf, pos);
      const end = p2 + Number(len);
      if (end > buf.length) throw new ProtobufDecodeError('truncated field');
      out.push({ num, wire, bytes: buf.subarray(p2, end) });
      pos = end;
    } else if (wire === 1 || wire === 5) {
      const size = wire === 1 ? 8 : 4;
      if (pos + size > buf.length) throw new ProtobufDecodeError('truncated field');
      out.push({ num, wire, int: wire === 1 ? buf.readBigUInt64LE(pos) : BigInt(buf.readUInt32LE(pos)) });
      pos += size;
    } else {
      throw new ProtobufDecodeError(`unsupported wire type ${wire}`);
    }
  }
  return out;
}

function signed64(v: bigint): number {
  return Number(BigInt.asIntN(64, v));
}

/** metav1.Time / MicroTime: seconds and nanos since the epoch, in RFC 3339 (micro-seconds for MicroTime). */
function timeOf(buf: Buffer, micro: boolean): string {
  let seconds = 0;
  let nanos = 0;
  for (const f of fieldsOf(buf)) {
    if (f.num === 1 && f.int !== undefined) seconds = signed64(f.int);
    if (f.num === 2 && f.int !== undefined) nanos = signed64(f.int);
  }
  const date = new Date(seconds * 1000);
  if (!Number.isFinite(date.getTime())) throw new ProtobufDecodeError(`time out of range: ${seconds} seconds`);
  const iso = date.toISOString().replace(/\.\d+Z$/, '');
  return micro ? `${iso}.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z` : `${iso}Z`;
}

function scalar(type: FieldType, f: Field): unknown {
  if (typeof type === 'object') {
    if (!f.bytes) throw new ProtobufDecodeError('expected a message');
    return 'map' in type ? undefined : decodeMessage(f.bytes, type.msg);
  }
  switch (type) {
    case 'string':
      if (!f.bytes) throw new ProtobufDecodeError('expected a string');
      return f.bytes.toString('utf8');
    case 'bytes':
      if (!f.bytes) throw new ProtobufDecodeError('expected bytes');
      return f.bytes.toString('base64');
    case 'int':
      if (f.int === undefined) throw new ProtobufDecodeError('expected an integer');
      return signed64(f.int);
    case 'bool':
      if (f.int === undefined) throw new ProtobufDecodeError('expected a boolean');
      return f.int !== 0n;
    case 'strings':
      if (!f.bytes) throw new ProtobufDecodeError('expected a list');
      return fieldsOf(f.bytes).filter((x) => x.num === 1 && x.bytes).map((x) => x.bytes!.toString('utf8'));
    case 'time':
    case 'microtime':
      if (!f.bytes) throw new ProtobufDecodeError('expected a time');
      return timeOf(f.bytes, type === 'microtime');
  }
}

function mapEntry(buf: Buffer, value: FieldType): [string, unknown] {
  let key = '';
  let val: unknown = value === 'strings' ? [] : '';
  for (const f of fieldsOf(buf)) {
    if (f.num === 1 && f.bytes) key = f.bytes.toString('utf8');
    if (f.num === 2) val = scalar(value, f);
  }
  return [key, val];
}

function decodeMessage(buf: Buffer, schema: MessageSchema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fieldsOf(buf)) {
    const spec = schema[f.num];
    if (!spec) continue; // fields this server does not keep (managedFields, ...)
    const [name, type, repeated] = spec;
    if (typeof type === 'object' && 'map' in type) {
      if (!f.bytes) throw new ProtobufDecodeError('expected a map entry');
      const [k, v] = mapEntry(f.bytes, type.map);
      const m = (out[name] ?? {}) as Record<string, unknown>;
      m[k] = v;
      out[name] = m;
    } else if (repeated) {
      ((out[name] ??= []) as unknown[]).push(scalar(type, f));
    } else {
      out[name] = scalar(type, f);
    }
  }
  return out;
}

/** Decodes a protobuf request body; throws ProtobufDecodeError for a bad envelope or an unknown kind. */
export function decodeProtobufObject(buf: Buffer): Record<string, unknown> {
  if (buf.length < MAGIC.length || !buf.subarray(0, MAGIC.length).equals(MAGIC)) throw new ProtobufDecodeError('missing the k8s protobuf prefix');
  let apiVersion = '';
  let kind = '';
  let raw: Buffer | undefined;
  for (const f of fieldsOf(buf.subarray(MAGIC.length))) {
    if (f.num === 1 && f.bytes) {
      for (const t of fieldsOf(f.bytes)) {
        if (t.num === 1 && t.bytes) apiVersion = t.bytes.toString('utf8');
        if (t.num === 2 && t.bytes) kind = t.bytes.toString('utf8');
      }
    }
    if (f.num === 2 && f.bytes) raw = f.bytes;
  }
  const schema = kind === 'DeleteOptions' ? DELETE_OPTIONS : PROTOBUF_KINDS[`${apiVersion}/${kind}`];
  if (!schema) throw new ProtobufDecodeError(`no protobuf decoding for ${apiVersion} ${kind}`);
  return { apiVersion, kind, ...decodeMessage(raw ?? Buffer.alloc(0), schema) };
}
