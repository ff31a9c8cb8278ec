import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeOid, derChildren, readDer } from './der.js';

test('readDer reads short and long definite lengths', () => {
  const short = Buffer.from([0x30, 0x03, 0x02, 0x01, 0x05]);
  assert.deepEqual(readDer(short, 0), { tag: 0x30, start: 0, contentStart: 2, end: 5 });
  const long = Buffer.concat([Buffer.from([0x04, 0x81, 0x80]), Buffer.alloc(0x80)]);
  assert.deepEqual(readDer(long, 0), { tag: 0x04, start: 0, contentStart: 3, end: 0x83 });
});

test('readDer refuses truncated and unsupported encodings', () => {
  const cases: { name: string; der: number[]; limit?: number; error: RegExp }[] = [
    { name: 'no length byte', der: [0x30], error: /truncated DER/ },
    { name: 'content past the end', der: [0x30, 0x05, 0x01], error: /truncated DER/ },
    { name: 'indefinite length', der: [0x30, 0x80, 0x00, 0x00], error: /bad DER length/ },
    { name: 'length of five bytes', der: [0x30, 0x85, 1, 0, 0, 0, 0], error: /bad DER length/ },
    { name: 'past the parent limit', der: [0x30, 0x02, 0x05, 0x00], limit: 3, error: /truncated DER/ },
  ];
  for (const c of cases) assert.throws(() => readDer(Buffer.from(c.der), 0, c.limit), c.error, c.name);
});

test('derChildren walks a constructed element and decodeOid reads object identifiers', () => {
  // SEQUENCE { OID 2.5.4.3 (commonName), UTF8String "x" }
  const der = Buffer.from([0x30, 0x08, 0x06, 0x03, 0x55, 0x04, 0x03, 0x0c, 0x01, 0x78]);
  const [oid, value] = derChildren(der, readDer(der, 0));
  assert.equal(oid?.tag, 0x06);
  assert.equal(decodeOid(der.subarray(oid!.contentStart, oid!.end)), '2.5.4.3');
  assert.equal(der.toString('utf8', value!.contentStart, value!.end), 'x');
  // ecdsa-with-SHA256: multi-byte arcs
  assert.equal(decodeOid(Buffer.from([0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02])), '1.2.840.10045.4.3.2');
  assert.throws(() => decodeOid(Buffer.alloc(0)), /empty object identifier/);
  assert.throws(() => derChildren(Buffer.from([0x30, 0x02, 0x30, 0x05]), readDer(Buffer.from([0x30, 0x02, 0x30, 0x05]), 0)), /truncated DER/);
});
