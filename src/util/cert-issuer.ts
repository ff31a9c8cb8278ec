// Signing a leaf certificate for a PKCS#10 request with node:crypto and the DER writer, without
// @peculiar/x509: the CSR signer issues one per join, and the general library spends over ten
// milliseconds of CPU on it (ASN.1 in plain JavaScript, WebCrypto key imports). The certificate is
// the one the general library makes: subject and public key copied from the request, the CA's
// subject as issuer, extensions BasicConstraints (CA false, critical), KeyUsage (critical),
// ExtendedKeyUsage, SubjectAlternativeName and AuthorityKeyIdentifier, in that order.

import { createHash, createPrivateKey, createPublicKey, randomBytes, sign, X509Certificate, type KeyObject } from 'node:crypto';
import { isIP } from 'node:net';
import { derChildren, readDer } from './der.js';
import { oid, seq, tlv } from './der-write.js';
import { toPem } from './pem.js';

export interface CsrCertificateRequest {
  caCertPem: string;
  caKeyPem: string;
  /** DER of the PKCS#10 request; its signature is the caller's to check. */
  csrDer: Buffer;
  notBefore: Date;
  notAfter: Date;
  /** KeyUsage flags, bit i = 1 << i with i = 0 for digitalSignature (RFC 5280 bit order). */
  keyUsageFlags: number;
  extKeyUsageOids: readonly string[];
  dnsNames?: readonly string[];
  ipAddresses?: readonly string[];
  emailAddresses?: readonly string[];
  uris?: readonly string[];
}

const OID = {
  basicConstraints: '2.5.29.19',
  keyUsage: '2.5.29.15',
  extKeyUsage: '2.5.29.37',
  subjectAltName: '2.5.29.17',
  authorityKeyIdentifier: '2.5.29.35',
};

/** The signature algorithm for a CA key: AlgorithmIdentifier DER and node digest; undefined when unsupported. */
function signatureAlgorithm(key: KeyObject): { alg: Buffer; digest: string } | undefined {
  if (key.asymmetricKeyType === 'rsa') return { alg: seq(oid('1.2.840.113549.1.1.11'), tlv(0x05, Buffer.alloc(0))), digest: 'sha256' };
  if (key.asymmetricKeyType !== 'ec') return undefined;
  const curve = key.asymmetricKeyDetails?.namedCurve;
  if (curve === 'prime256v1') return { alg: seq(oid('1.2.840.10045.4.3.2')), digest: 'sha256' };
  if (curve === 'secp384r1') return { alg: seq(oid('1.2.840.10045.4.3.3')), digest: 'sha384' };
  return undefined;
}

/** UTCTime through 2049, GeneralizedTime after, as RFC 5280 requires; whole seconds, UTC. */
function time(d: Date): Buffer {
  const s = d.toISOString().replace(/\.\d{3}Z$/, 'Z').replace(/[-:T]/g, '');
  return d.getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(s.slice(2), 'ascii')) : tlv(0x18, Buffer.from(s, 'ascii'));
}

/** A positive 128-bit serial number (16 significant bytes), as the general library's callers make them. */
function serial(): Buffer {
  const b = randomBytes(16);
  b[0] = b[0]! & 0x7f;
  if (b[0] === 0) b[0] = 1;
  return tlv(0x02, b);
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return seq(oid(id), ...(critical ? [tlv(0x01, Buffer.from([0xff]))] : []), tlv(0x04, value));
}

/** KeyUsage BIT STRING: named bits in RFC order, trailing zero bits dropped as DER requires. */
export function keyUsageBits(flags: number): Buffer {
  const bytes = [flags & 0xff, (flags >> 8) & 0xff].map((b) => {
    let r = 0;
    for (let i = 0; i < 8; i++) if (b & (1 << i)) r |= 0x80 >> i;
    return r;
  });
  while (bytes.length > 1 && bytes[bytes.length - 1] === 0) bytes.pop();
  const last = bytes[bytes.length - 1]!;
  let unused = 0;
  while (unused < 7 && last !== 0 && (last & (1 << unused)) === 0) unused++;
  return tlv(0x03, Buffer.from([last === 0 ? 0 : unused, ...bytes]));
}

/** The IP address's bytes: 4 for IPv4, 16 for IPv6. */
function ipBytes(ip: string): Buffer {
  if (isIP(ip) === 4) return Buffer.from(ip.split('.').map(Number));
  const [head = '', tail = ''] = ip.includes('::') ? ip.split('::') : [ip, ''];
  const groups = (s: string): number[] => (s === '' ? [] : s.split(':').map((g) => parseInt(g, 16)));
  const h = groups(head);
  const t = groups(tail);
  const out = Buffer.alloc(16);
  [...h, ...new Array<number>(8 - h.length - t.length).fill(0), ...t].forEach((g, i) => out.writeUInt16BE(g, i * 2));
  return out;
}

/** The element `index` of a constructed element, checked to carry `tag`. */
function child(der: Buffer, parent: ReturnType<typeof readDer>, index: number, tag: number): ReturnType<typeof readDer> {
  const e = derChildren(der, parent)[index];
  if (!e || e.tag !== tag) throw new Error('unexpected DER structure');
  return e;
}

/** What signing needs from the CA, derived once per CA (key parsing and export cost ~2 ms a join). */
interface CaMaterial {
  certPem: string;
  keyPem: string;
  key: KeyObject;
  alg: { alg: Buffer; digest: string } | undefined;
  /** The CA certificate's subject, DER. */
  subject: Buffer;
  /** AuthorityKeyIdentifier: SHA-1 of the CA's public key bits (RFC 5280's first method). */
  keyId: Buffer;
}

// One entry: a signer has one CA, and a rotated CA replaces it.
let lastCa: CaMaterial | undefined;

function caMaterial(certPem: string, keyPem: string): CaMaterial {
  if (lastCa && lastCa.certPem === certPem && lastCa.keyPem === keyPem) return lastCa;
  const key = createPrivateKey(keyPem);
  const alg = signatureAlgorithm(key);
  const caDer = new X509Certificate(certPem).raw;
  const caTbs = child(caDer, readDer(caDer, 0), 0, 0x30);
  const caFields = derChildren(caDer, caTbs);
  const caSubject = caFields[caFields[0]?.tag === 0xa0 ? 5 : 4];
  if (!caSubject || caSubject.tag !== 0x30) throw new Error('unexpected CA certificate structure');
  const caSpki = createPublicKey(key).export({ type: 'spki', format: 'der' });
  const caBits = child(caSpki, readDer(caSpki, 0), 1, 0x03);
  const keyId = createHash('sha1').update(caSpki.subarray(caBits.contentStart + 1, caBits.end)).digest();
  lastCa = { certPem, keyPem, key, alg, subject: Buffer.from(caDer.subarray(caSubject.start, caSubject.end)), keyId };
  return lastCa;
}

/**
 * The PEM certificate, or undefined when the CA key is of a kind this module does not sign with
 * (the caller then uses the general library). Throws when the request or the CA is malformed.
 */
export function issueFromCsr(r: CsrCertificateRequest): string | undefined {
  const ca = caMaterial(r.caCertPem, r.caKeyPem);
  const alg = ca.alg;
  if (!alg) return undefined;
  if ((r.ipAddresses ?? []).some((ip) => isIP(ip) === 0 || (isIP(ip) === 6 && ip.includes('.')))) return undefined;

  const csr = readDer(r.csrDer, 0);
  const info = child(r.csrDer, csr, 0, 0x30);
  const subject = child(r.csrDer, info, 1, 0x30);
  const spki = child(r.csrDer, info, 2, 0x30);

  const sans = [
    ...(r.dnsNames ?? []).map((v) => tlv(0x82, Buffer.from(v, 'ascii'))),
    ...(r.ipAddresses ?? []).map((v) => tlv(0x87, ipBytes(v))),
    ...(r.emailAddresses ?? []).map((v) => tlv(0x81, Buffer.from(v, 'ascii'))),
    ...(r.uris ?? []).map((v) => tlv(0x86, Buffer.from(v, 'ascii'))),
  ];
  const extensions = [
    extension(OID.basicConstraints, true, seq()),
    ...(r.keyUsageFlags !== 0 ? [extension(OID.keyUsage, true, keyUsageBits(r.keyUsageFlags))] : []),
    ...(r.extKeyUsageOids.length > 0 ? [extension(OID.extKeyUsage, false, seq(...r.extKeyUsageOids.map(oid)))] : []),
    ...(sans.length > 0 ? [extension(OID.subjectAltName, false, seq(...sans))] : []),
    extension(OID.authorityKeyIdentifier, false, seq(tlv(0x80, ca.keyId))),
  ];
  const tbs = seq(
    tlv(0xa0, tlv(0x02, Buffer.from([2]))),
    serial(),
    alg.alg,
    ca.subject,
    seq(time(r.notBefore), time(r.notAfter)),
    r.csrDer.subarray(subject.start, subject.end),
    r.csrDer.subarray(spki.start, spki.end),
    tlv(0xa3, seq(...extensions)),
  );
  const signature = sign(alg.digest, tbs, ca.key);
  return toPem('CERTIFICATE', seq(tbs, alg.alg, tlv(0x03, Buffer.concat([Buffer.from([0]), signature]))));
}
