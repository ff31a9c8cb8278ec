// A minimal writer of Kubernetes' protobuf request bodies for tests: fields as [number, value],
// nested messages as arrays, wrapped in the "k8s\0" + runtime.Unknown envelope kubectl sends.

type Value = string | number | boolean | Buffer | Field[];
export type Field = [number, Value];

function varint(n: bigint): Buffer {
  const out: number[] = [];
  let v = BigInt.asUintN(64, n);
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) b |= 0x80;
    out.push(b);
  } while (v > 0n);
  return Buffer.from(out);
}

function encode(fields: Field[]): Buffer {
  return Buffer.concat(fields.map(([num, v]) => {
    if (typeof v === 'number' || typeof v === 'boolean') return Buffer.concat([varint(BigInt(num << 3)), varint(BigInt(Number(v)))]);
    const bytes = typeof v === 'string' ? Buffer.from(v) : Buffer.isBuffer(v) ? v : encode(v);
    return Buffer.concat([varint(BigInt((num << 3) | 2)), varint(BigInt(bytes.length)), bytes]);
  }));
}

export function protobufEnvelope(apiVersion: string, kind: string, raw: Field[]): Buffer {
  return Buffer.concat([Buffer.from('k8s\0', 'latin1'), encode([[1, [[1, apiVersion], [2, kind]]], [2, encode(raw)]])]);
}
