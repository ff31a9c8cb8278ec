// Certificate reading with Node's native X509 support and the DER walker only: the subject CN/O/OU
// the validity period and the extended key usages of a DER certificate, and whether a private key
// matches a certificate.
// The agent checks its hub client certificate every few seconds (liveness, controllers) and never
// loads @peculiar/x509 (about 19 MiB); the server's x509 authenticator reads every new client
// certificate with it (~0.3 ms, where the general parser took ~5 ms) and shares the key check.

import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { decodeOid, derChildren, readDer } from './der.js';

/** What the agent reads from a certificate. */
export interface CertInfo {
  commonName: string;
  organizations: string[];
  organizationalUnits: string[];
  notBefore: Date;
  notAfter: Date;
  /** Extended key usage OIDs; undefined when the certificate has no such extension. */
  extKeyUsageOids?: string[];
}

function decodeString(tag: number, b: Buffer): string {
  switch (tag) {
    case 0x1e: {
      // BMPString: UTF-16BE.
      const le = Buffer.alloc(b.length - (b.length % 2));
      for (let i = 0; i + 1 < b.length; i += 2) {
        le[i] = b[i + 1]!;
        le[i + 1] = b[i]!;
      }
      return le.toString('utf16le');
    }
    case 0x14: // TeletexString: treated as Latin-1, like Go
      return b.toString('latin1');
    default: // UTF8String, PrintableString, IA5String, …
      return b.toString('utf8');
  }
}

function decodeTime(tag: number, s: string): Date {
  // UTCTime YYMMDDHHMMSSZ; GeneralizedTime YYYYMMDDHHMMSS[.f*]Z.
  const m = tag === 0x17 ? /^(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/.exec(s) : /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\.\d+)?Z$/.exec(s);
  if (!m) throw new Error(`bad certificate time ${JSON.stringify(s)}`);
  let year = Number(m[1]);
  if (tag === 0x17) year += year < 50 ? 2000 : 1900;
  const ms = m[7] ? Math.floor(Number(`0${m[7]}`) * 1000) : 0;
  return new Date(Date.UTC(year, Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]), ms));
}

const OID_CN = '2.5.4.3';
const OID_O = '2.5.4.10';
const OID_OU = '2.5.4.11';

/**
 * Subject CN/O/OU and validity of a DER certificate; throws when it is not a well-formed certificate.
 * `native` is the same certificate parsed by node:crypto, when the caller has it.
 */
export function readCertificateInfo(der: Buffer, native: X509Certificate = new X509Certificate(der)): CertInfo {
  // OpenSSL rejects malformed certificates (the parse above); the walk below only reads the fields we need.
  const cert = readDer(der, 0);
  const tbs = derChildren(der, cert)[0];
  if (!tbs || tbs.tag !== 0x30) throw new Error('bad certificate structure');
  const fields = derChildren(der, tbs);
  let i = fields[0]?.tag === 0xa0 ? 1 : 0; // [0] version
  i += 3; // serialNumber, signature, issuer
  const validity = fields[i];
  const subject = fields[i + 1];
  if (!validity || validity.tag !== 0x30 || !subject || subject.tag !== 0x30) throw new Error('bad certificate structure');
  const [nb, na] = derChildren(der, validity);
  if (!nb || !na) throw new Error('bad certificate validity');
  const info: CertInfo = {
    commonName: '',
    organizations: [],
    organizationalUnits: [],
    notBefore: decodeTime(nb.tag, der.toString('latin1', nb.contentStart, nb.end)),
    notAfter: decodeTime(na.tag, der.toString('latin1', na.contentStart, na.end)),
  };
  // Node names the extended key usages `keyUsage`.
  const eku = native.keyUsage as string[] | undefined;
  if (eku !== undefined) info.extKeyUsageOids = [...eku];
  let cnSeen = false;
  for (const rdn of derChildren(der, subject)) {
    for (const atv of derChildren(der, rdn)) {
      const [oid, value] = derChildren(der, atv);
      if (!oid || !value || oid.tag !== 0x06) continue;
      const type = decodeOid(der.subarray(oid.contentStart, oid.end));
      const text = decodeString(value.tag, der.subarray(value.contentStart, value.end));
      if (type === OID_CN && !cnSeen) {
        info.commonName = text;
        cnSeen = true;
      } else if (type === OID_O) info.organizations.push(text);
      else if (type === OID_OU) info.organizationalUnits.push(text);
    }
  }
  return info;
}

/** True when the private key (PEM, or a key object already read) matches the certificate's public key. */
export function keyMatchesCertificate(certPem: string, privateKey: string | KeyObject): boolean {
  try {
    const key = typeof privateKey === 'string' ? createPrivateKey(privateKey) : privateKey;
    return key.type === 'private' && new X509Certificate(certPem).checkPrivateKey(key);
  } catch {
    return false;
  }
}
