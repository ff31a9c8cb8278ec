// A self-signed CA and a serving certificate it signs, made with node:crypto alone: what a server
// without a configured certificate serves with (ECDSA P-256 keys, ecdsa-with-SHA256 signatures).
// The general X.509 library costs a long-running light process (the agent) over 10 MiB of memory.

import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isIP } from 'node:net';
import { derChildren, readDer } from './der.js';
import { oid, seq, tlv, utf8 } from './der-write.js';
import { toPem } from './pem.js';
import { isoUtc } from './utc-time.js';

const OID = {
  commonName: '2.5.4.3',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  basicConstraints: '2.5.29.19',
  keyUsage: '2.5.29.15',
  extKeyUsage: '2.5.29.37',
  subjectAltName: '2.5.29.17',
  subjectKeyIdentifier: '2.5.29.14',
  authorityKeyIdentifier: '2.5.29.35',
  serverAuth: '1.3.6.1.5.5.7.3.1',
};

/** keyUsage bits, counted from the most significant bit of the first byte. */
const KEY_USAGE = { digitalSignature: 0x80, keyEncipherment: 0x20, keyCertSign: 0x04, crlSign: 0x02 };

export interface ServingCertRequest {
  /** Common name of the serving certificate; the CA's is `<commonName>-signer@<unix seconds>`. */
  commonName: string;
  /** DNS names and IP addresses (told apart by form) the certificate is valid for. */
  names: readonly string[];
  notBefore: Date;
  notAfter: Date;
}

export interface ServingCertPair {
  certPem: string;
  /** PKCS#8 `PRIVATE KEY` PEM of the serving certificate. */
  keyPem: string;
  caPem: string;
}

const name = (cn: string): Buffer => seq(tlv(0x31, seq(oid(OID.commonName), utf8(cn))));

/** UTCTime through 2049, GeneralizedTime after, as RFC 5280 requires; whole seconds, UTC. */
function time(d: Date): Buffer {
  const iso = isoUtc(d.getTime()).replace(/\.\d{3}Z$/, 'Z').replace(/[-:T]/g, '');
  return d.getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(iso.slice(2), 'ascii')) : tlv(0x18, Buffer.from(iso, 'ascii'));
}

/** A positive 128-bit serial number in minimal INTEGER encoding. */
function serial(): Buffer {
  const b = randomBytes(16);
  b[0] = (b[0]! & 0x7f) | 0x40;
  return tlv(0x02, b);
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return seq(oid(id), ...(critical ? [tlv(0x01, Buffer.from([0xff]))] : []), tlv(0x04, value));
}

function keyUsage(bits: number): Buffer {
  let unused = 0;
  while (unused < 7 && (bits & (1 << unused)) === 0) unused++;
  return tlv(0x03, Buffer.from([unused, bits]));
}

/** The IP address's bytes: 4 for IPv4, 16 for IPv6. */
function ipBytes(ip: string): Buffer {
  if (isIP(ip) === 4) return Buffer.from(ip.split('.').map(Number));
  // A trailing dotted IPv4 part (`::ffff:1.2.3.4`) is the last two groups.
  const v4 = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(ip);
  if (v4) {
    const b = Buffer.from(v4[2]!.split('.').map(Number));
    ip = `${v4[1]}${b.readUInt16BE(0).toString(16)}:${b.readUInt16BE(2).toString(16)}`;
  }
  const [head = '', tail = ''] = ip.includes('::') ? ip.split('::') : [ip, ''];
  const groups = (s: string): number[] => (s === '' ? [] : s.split(':').map((g) => parseInt(g, 16)));
  const h = groups(head);
  const t = groups(tail);
  const all = [...h, ...new Array<number>(8 - h.length - t.length).fill(0), ...t];
  const out = Buffer.alloc(16);
  all.forEach((g, i) => out.writeUInt16BE(g, i * 2));
  return out;
}

/** SHA-1 of the public key's bits, as RFC 5280 suggests: links a certificate to its issuer's key. */
function keyId(publicKey: KeyObject): Buffer {
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const bits = derChildren(spki, readDer(spki, 0))[1]!;
  return createHash('sha1').update(spki.subarray(bits.contentStart + 1, bits.end)).digest();
}

function certificate(o: { subject: string; issuer: string; publicKey: KeyObject; signer: KeyObject; notBefore: Date; notAfter: Date; extensions: Buffer[] }): Buffer {
  const alg = seq(oid(OID.ecdsaWithSha256));
  const tbs = seq(
    tlv(0xa0, tlv(0x02, Buffer.from([2]))),
    serial(),
    alg,
    name(o.issuer),
    seq(time(o.notBefore), time(o.notAfter)),
    name(o.subject),
    o.publicKey.export({ type: 'spki', format: 'der' }),
    tlv(0xa3, seq(...o.extensions)),
  );
  return seq(tbs, alg, tlv(0x03, Buffer.concat([Buffer.from([0]), sign('sha256', tbs, o.signer)])));
}

/** A new CA and a serving certificate signed by it for `names`. */
export function createServingCertPair(r: ServingCertRequest): ServingCertPair {
  const caKey = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const key = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const caName = `${r.commonName}-signer@${Math.floor(Date.now() / 1000)}`;
  const ca = certificate({
    subject: caName,
    issuer: caName,
    publicKey: caKey.publicKey,
    signer: caKey.privateKey,
    notBefore: r.notBefore,
    notAfter: r.notAfter,
    extensions: [
      extension(OID.basicConstraints, true, seq(tlv(0x01, Buffer.from([0xff])))),
      extension(OID.keyUsage, true, keyUsage(KEY_USAGE.digitalSignature | KEY_USAGE.keyCertSign | KEY_USAGE.crlSign)),
      extension(OID.subjectKeyIdentifier, false, tlv(0x04, keyId(caKey.publicKey))),
    ],
  });
  const generalNames = r.names.map((n) => (isIP(n) === 0 ? tlv(0x82, Buffer.from(n, 'ascii')) : tlv(0x87, ipBytes(n))));
  const leaf = certificate({
    subject: r.commonName,
    issuer: caName,
    publicKey: key.publicKey,
    signer: caKey.privateKey,
    notBefore: r.notBefore,
    notAfter: r.notAfter,
    extensions: [
      extension(OID.basicConstraints, true, seq()),
      extension(OID.keyUsage, true, keyUsage(KEY_USAGE.digitalSignature | KEY_USAGE.keyEncipherment)),
      extension(OID.extKeyUsage, false, seq(oid(OID.serverAuth))),
      extension(OID.subjectKeyIdentifier, false, tlv(0x04, keyId(key.publicKey))),
      extension(OID.authorityKeyIdentifier, false, seq(tlv(0x80, keyId(caKey.publicKey)))),
      ...(generalNames.length > 0 ? [extension(OID.subjectAltName, false, seq(...generalNames))] : []),
    ],
  });
  return {
    certPem: toPem('CERTIFICATE', leaf),
    keyPem: key.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    caPem: toPem('CERTIFICATE', ca),
  };
}
