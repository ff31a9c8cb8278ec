// Reading PKCS#10 certificate requests with the DER walker and node:crypto, without @peculiar/x509:
// the general library takes milliseconds of CPU per request (its ASN.1 layer is plain JavaScript),
// and the hub reads each agent CSR several times on the way from creation to signature (validation,
// admission, approval, signing). Requests of an unusual shape (attribute types without a short name,
// multi-valued RDNs, string types other than UTF8/Printable/IA5, values that need escaping, IPv6
// SANs) are left to the general library, so that every field comes out exactly as it gives it.

import { createPublicKey, verify as cryptoVerify, KeyObject } from 'node:crypto';
import { decodeOid, derChildren, readDer, type DerElement } from './der.js';

export interface ParsedCsr {
  /** DER of the whole request. */
  der: Buffer;
  /** The first CN attribute of the subject ('' when there is none). */
  commonName: string;
  /** Every CN attribute, in order. */
  commonNames: string[];
  organizations: string[];
  /** RFC 2253-style subject string. */
  subject: string;
  dnsNames: string[];
  ipAddresses: string[];
  keyType: 'ec' | 'rsa' | string;
  /** True when the self-signature verifies. */
  signatureValid: boolean;
}

// Signature algorithm OIDs → node digest names.
const SIG_ALGS: Record<string, string> = {
  '1.2.840.113549.1.1.11': 'sha256', // sha256WithRSAEncryption
  '1.2.840.113549.1.1.12': 'sha384',
  '1.2.840.113549.1.1.13': 'sha512',
  '1.2.840.113549.1.1.5': 'sha1',
  '1.2.840.10045.4.3.2': 'sha256', // ecdsa-with-SHA256
  '1.2.840.10045.4.3.3': 'sha384',
  '1.2.840.10045.4.3.4': 'sha512',
};

/**
 * Verifies a signed ASN.1 structure `SEQUENCE { tbs, AlgorithmIdentifier, BIT STRING }` (a CSR or
 * a certificate) against a public key, synchronously. Returns false on any malformation.
 */
export function verifySignedDer(der: Buffer, spkiDerOrKey: Buffer | KeyObject): boolean {
  try {
    const outer = readDer(der, 0);
    if (outer.tag !== 0x30) return false;
    const tbs = readDer(der, outer.contentStart);
    const alg = readDer(der, tbs.end);
    const sig = readDer(der, alg.end);
    if (sig.tag !== 0x03 || der[sig.contentStart] !== 0) return false;
    const oidTlv = readDer(der, alg.contentStart);
    if (oidTlv.tag !== 0x06) return false;
    const digest = SIG_ALGS[decodeOid(der.subarray(oidTlv.contentStart, oidTlv.end))];
    if (!digest) return false;
    const key = spkiDerOrKey instanceof KeyObject ? spkiDerOrKey : createPublicKey({ key: spkiDerOrKey, format: 'der', type: 'spki' });
    return cryptoVerify(digest, der.subarray(tbs.start, tbs.end), key, der.subarray(sig.contentStart + 1, sig.end));
  } catch {
    return false;
  }
}

/** Short names of the attribute types the subject string may show (as the general library names them). */
const SHORT_NAMES: Record<string, string> = {
  '2.5.4.3': 'CN',
  '2.5.4.6': 'C',
  '2.5.4.7': 'L',
  '2.5.4.8': 'ST',
  '2.5.4.10': 'O',
  '2.5.4.11': 'OU',
};
const OID_EXTENSION_REQUEST = '1.2.840.113549.1.9.14';
const OID_SUBJECT_ALT_NAME = '2.5.29.17';
/** UTF8String, PrintableString, IA5String. */
const PLAIN_STRINGS = new Set([0x0c, 0x13, 0x16]);

/** Not handled here: the caller falls back to the general library. */
class Unusual extends Error {}

function children(der: Buffer, e: DerElement, tag: number): DerElement[] {
  if (e.tag !== tag) throw new Unusual();
  return derChildren(der, e);
}

/** The subject's attributes in order; throws Unusual for anything the general library would print differently. */
function readName(der: Buffer, name: DerElement): Array<{ type: string; value: string }> {
  const out: Array<{ type: string; value: string }> = [];
  for (const rdn of children(der, name, 0x30)) {
    const atvs = children(der, rdn, 0x31);
    if (atvs.length !== 1) throw new Unusual();
    const [oid, value, extra] = children(der, atvs[0]!, 0x30);
    if (!oid || !value || extra || oid.tag !== 0x06 || !PLAIN_STRINGS.has(value.tag)) throw new Unusual();
    const type = SHORT_NAMES[decodeOid(der.subarray(oid.contentStart, oid.end))];
    const text = der.toString('utf8', value.contentStart, value.end);
    if (!type || /[,+"\\<>;=\u0000]/.test(text) || /^[#\s]|\s$/.test(text)) throw new Unusual();
    out.push({ type, value: text });
  }
  return out;
}

/** DNS names and IPv4 addresses of a subjectAltName extension value. */
function readSans(der: Buffer, value: DerElement, out: { dnsNames: string[]; ipAddresses: string[] }): void {
  const names = readDer(der, value.contentStart, value.end);
  for (const n of children(der, names, 0x30)) {
    if (n.tag === 0x82) out.dnsNames.push(der.toString('ascii', n.contentStart, n.end));
    else if (n.tag === 0x87) {
      if (n.end - n.contentStart !== 4) throw new Unusual();
      out.ipAddresses.push(Array.from(der.subarray(n.contentStart, n.end)).join('.'));
    }
  }
}

/** The request's fields, or undefined when it is malformed or unusual (the general library decides then). */
export function readCsr(der: Buffer): ParsedCsr | undefined {
  try {
    const outer = readDer(der, 0);
    if (outer.end !== der.length) return undefined;
    const [info, alg, sig, extra] = children(der, outer, 0x30);
    if (!info || !alg || !sig || extra || alg.tag !== 0x30 || sig.tag !== 0x03) return undefined;
    const [version, subject, spki, attributes] = children(der, info, 0x30);
    if (!version || version.tag !== 0x02 || !subject || !spki || spki.tag !== 0x30) return undefined;
    const rdns = readName(der, subject);
    const sans = { dnsNames: [] as string[], ipAddresses: [] as string[] };
    if (attributes) {
      for (const attr of children(der, attributes, 0xa0)) {
        const [type, values] = children(der, attr, 0x30);
        if (!type || type.tag !== 0x06 || !values) throw new Unusual();
        if (decodeOid(der.subarray(type.contentStart, type.end)) !== OID_EXTENSION_REQUEST) continue;
        const [extensions] = children(der, values, 0x31);
        if (!extensions) continue;
        for (const ext of children(der, extensions, 0x30)) {
          const parts = children(der, ext, 0x30);
          const id = parts[0];
          const value = parts[parts.length - 1];
          if (!id || id.tag !== 0x06 || !value || value.tag !== 0x04) throw new Unusual();
          if (decodeOid(der.subarray(id.contentStart, id.end)) === OID_SUBJECT_ALT_NAME) readSans(der, value, sans);
        }
      }
    }
    const spkiDer = der.subarray(spki.start, spki.end);
    const key = createPublicKey({ key: spkiDer, format: 'der', type: 'spki' });
    const commonNames = rdns.filter((r) => r.type === 'CN').map((r) => r.value);
    return {
      der,
      commonName: commonNames[0] ?? '',
      commonNames,
      organizations: rdns.filter((r) => r.type === 'O').map((r) => r.value),
      subject: rdns.map((r) => `${r.type}=${r.value}`).join(', '),
      ...sans,
      keyType: key.asymmetricKeyType ?? 'unknown',
      signatureValid: verifySignedDer(der, key),
    };
  } catch {
    return undefined;
  }
}
