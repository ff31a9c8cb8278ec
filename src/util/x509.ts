// Shared X.509 helpers: key pairs, PKCS#10 requests and certificates for ECDSA P-256 and RSA.
//
// Creation (keys, CSRs, signing) goes through @peculiar/x509 on WebCrypto and is async.
// Parsing and verification are synchronous (node:crypto + @peculiar/x509 parsing) so the request
// path (authentication, CSR validation) never awaits. Private keys are PEM strings; callers must
// never log them. On the join path (reading CSRs, signing them) the native readers and writers of
// ./csr-reader.ts and ./cert-issuer.ts come first, with this library for what they leave.

import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { issueFromCsr } from './cert-issuer.js';
import { readCsr, verifySignedDer, type ParsedCsr } from './csr-reader.js';
import { splitPemBlocks, toPem } from './pem.js';
import { createPrivateKey, createPublicKey, randomBytes, webcrypto, X509Certificate as NodeX509 } from 'node:crypto';

type WebCryptoKeyPair = webcrypto.CryptoKeyPair;
type SigningAlgorithm = webcrypto.Algorithm | webcrypto.EcdsaParams;

// @peculiar/x509 declares its crypto parameters with the DOM's Crypto type; Node's webcrypto is that object.
const crypto = webcrypto as unknown as Parameters<typeof x509.X509CertificateGenerator.create>[1];
const subtle = webcrypto.subtle;

export type KeyAlgorithm = 'ecdsa-p256' | 'rsa-2048' | 'rsa-3072' | 'rsa-4096';

export interface GeneratedKey {
  /** PKCS#8 PEM (`PRIVATE KEY`). Secret: never log. */
  privateKeyPem: string;
  /** SPKI PEM (`PUBLIC KEY`). */
  publicKeyPem: string;
  algorithm: KeyAlgorithm;
}

/** The CA material needed to sign: its certificate and private key (any PEM key format). */
export interface SigningCa {
  certPem: string;
  keyPem: string;
}

interface SubjectInput {
  commonName: string;
  organizations?: string[];
  organizationalUnits?: string[];
}

/** X.509 KeyUsage bits, by name. */
export type KeyUsageName =
  | 'digitalSignature' | 'contentCommitment' | 'keyEncipherment' | 'dataEncipherment' | 'keyAgreement'
  | 'keyCertSign' | 'cRLSign' | 'encipherOnly' | 'decipherOnly';

/** Extended key usages, by name (OIDs below). */
export type ExtKeyUsageName = 'serverAuth' | 'clientAuth' | 'codeSigning' | 'emailProtection' | 'timeStamping' | 'ocspSigning' | 'any' | 'ipsecEndSystem' | 'ipsecTunnel' | 'ipsecUser' | 'microsoftSgc' | 'netscapeSgc';

const EKU_OIDS: Record<ExtKeyUsageName, string> = {
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
  codeSigning: '1.3.6.1.5.5.7.3.3',
  emailProtection: '1.3.6.1.5.5.7.3.4',
  ipsecEndSystem: '1.3.6.1.5.5.7.3.5',
  ipsecTunnel: '1.3.6.1.5.5.7.3.6',
  ipsecUser: '1.3.6.1.5.5.7.3.7',
  timeStamping: '1.3.6.1.5.5.7.3.8',
  ocspSigning: '1.3.6.1.5.5.7.3.9',
  any: '2.5.29.37.0',
  microsoftSgc: '1.3.6.1.4.1.311.10.3.3',
  netscapeSgc: '2.16.840.1.113730.4.1',
};
export const EKU_OID_CLIENT_AUTH = EKU_OIDS.clientAuth;
export const EKU_OID_ANY = EKU_OIDS.any;

const KEY_USAGE_FLAGS: Record<KeyUsageName, number> = {
  digitalSignature: x509.KeyUsageFlags.digitalSignature,
  contentCommitment: x509.KeyUsageFlags.nonRepudiation,
  keyEncipherment: x509.KeyUsageFlags.keyEncipherment,
  dataEncipherment: x509.KeyUsageFlags.dataEncipherment,
  keyAgreement: x509.KeyUsageFlags.keyAgreement,
  keyCertSign: x509.KeyUsageFlags.keyCertSign,
  cRLSign: x509.KeyUsageFlags.cRLSign,
  encipherOnly: x509.KeyUsageFlags.encipherOnly,
  decipherOnly: x509.KeyUsageFlags.decipherOnly,
};

// ---------------------------------------------------------------------------------------------
// PEM and DER

export { splitPemBlocks, toPem } from './pem.js';
export { keyMatchesCertificate } from './native-cert.js';

// ---------------------------------------------------------------------------------------------
// Keys

function genParams(alg: KeyAlgorithm): webcrypto.RsaHashedKeyGenParams | webcrypto.EcKeyGenParams {
  if (alg === 'ecdsa-p256') return { name: 'ECDSA', namedCurve: 'P-256' };
  const bits = alg === 'rsa-2048' ? 2048 : alg === 'rsa-3072' ? 3072 : 4096;
  return { name: 'RSASSA-PKCS1-v1_5', modulusLength: bits, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' };
}

export async function generateKeyPair(alg: KeyAlgorithm = 'ecdsa-p256'): Promise<GeneratedKey> {
  const keys = (await subtle.generateKey(genParams(alg), true, ['sign', 'verify'])) as WebCryptoKeyPair;
  const pkcs8 = Buffer.from(await subtle.exportKey('pkcs8', keys.privateKey));
  const spki = Buffer.from(await subtle.exportKey('spki', keys.publicKey));
  return { privateKeyPem: toPem('PRIVATE KEY', pkcs8), publicKeyPem: toPem('PUBLIC KEY', spki), algorithm: alg };
}

/** Re-encodes an EC private key (any PEM format) as SEC1 `EC PRIVATE KEY` PEM. */
export function toEcPrivateKeyPem(privateKeyPem: string): string {
  const key = createPrivateKey(privateKeyPem);
  if (key.asymmetricKeyType !== 'ec') throw new Error('not an EC private key');
  return key.export({ type: 'sec1', format: 'pem' }).toString();
}

interface ImportedKeys {
  keys: WebCryptoKeyPair;
  signingAlgorithm: SigningAlgorithm;
}

/** Imports a PEM private key (PKCS#8, SEC1 or PKCS#1) as a WebCrypto key pair for signing. */
async function importKeyPair(privateKeyPem: string): Promise<ImportedKeys> {
  const priv = createPrivateKey(privateKeyPem);
  const pub = createPublicKey(priv);
  const pkcs8 = priv.export({ type: 'pkcs8', format: 'der' });
  const spki = pub.export({ type: 'spki', format: 'der' });
  let params: webcrypto.RsaHashedImportParams | webcrypto.EcKeyImportParams;
  let signingAlgorithm: SigningAlgorithm;
  if (priv.asymmetricKeyType === 'ec') {
    const curve = priv.asymmetricKeyDetails?.namedCurve;
    const named = curve === 'prime256v1' ? 'P-256' : curve === 'secp384r1' ? 'P-384' : undefined;
    if (!named) throw new Error(`unsupported EC curve ${String(curve)}`);
    params = { name: 'ECDSA', namedCurve: named };
    signingAlgorithm = { name: 'ECDSA', hash: named === 'P-384' ? 'SHA-384' : 'SHA-256' } as webcrypto.EcdsaParams;
  } else if (priv.asymmetricKeyType === 'rsa') {
    params = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
    signingAlgorithm = { name: 'RSASSA-PKCS1-v1_5' };
  } else {
    throw new Error(`unsupported key type ${String(priv.asymmetricKeyType)}`);
  }
  const privateKey = await subtle.importKey('pkcs8', pkcs8, params, false, ['sign']);
  const publicKey = await subtle.importKey('spki', spki, params, true, ['verify']);
  return { keys: { privateKey, publicKey }, signingAlgorithm };
}

function subjectName(s: SubjectInput): x509.JsonName {
  const name: x509.JsonName = [];
  for (const o of s.organizations ?? []) name.push({ O: [o] });
  for (const ou of s.organizationalUnits ?? []) name.push({ OU: [ou] });
  name.push({ CN: [s.commonName] });
  return name;
}

function randomSerial(): string {
  const b = randomBytes(16);
  b[0] = b[0]! & 0x7f; // positive
  if (b[0] === 0) b[0] = 1; // keep 16 significant bytes
  return b.toString('hex');
}

// ---------------------------------------------------------------------------------------------
// CSRs

export interface CreateCsrOptions extends SubjectInput {
  privateKeyPem: string;
  dnsNames?: string[];
  ipAddresses?: string[];
}

/** Creates a PEM PKCS#10 `CERTIFICATE REQUEST` signed by the given private key. */
export async function createCsr(opts: CreateCsrOptions): Promise<string> {
  const { keys, signingAlgorithm } = await importKeyPair(opts.privateKeyPem);
  const extensions: x509.Extension[] = [];
  const sans = sanList(opts.dnsNames, opts.ipAddresses);
  if (sans.length > 0) extensions.push(new x509.SubjectAlternativeNameExtension(sans));
  const csr = await x509.Pkcs10CertificateRequestGenerator.create(
    { name: subjectName(opts), keys, signingAlgorithm, ...(extensions.length ? { extensions } : {}) },
    crypto,
  );
  return csr.toString('pem') + '\n';
}

function sanList(dns?: string[], ips?: string[]): x509.JsonGeneralName[] {
  return [...(dns ?? []).map((v) => ({ type: 'dns' as const, value: v })), ...(ips ?? []).map((v) => ({ type: 'ip' as const, value: v }))];
}

export type { ParsedCsr } from './csr-reader.js';

export class X509ParseError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'X509ParseError';
  }
}

/**
 * One CSR is read several times in the hub's process (admission, validation, the approver on every
 * change to its cluster, the signer), each time with a public-key import and a signature check:
 * the last few hundred results are kept, by their PEM text, frozen so no reader can alter another's.
 */
const PARSED_CSR_CACHE_SIZE = 512;
/** Longer PEM texts are parsed each time: a few hostile megabyte-sized requests must not fill memory. */
const PARSED_CSR_MAX_CACHED_CHARS = 16 * 1024;
const parsedCsrs = new Map<string, ParsedCsr>();

/**
 * Parses a PEM `CERTIFICATE REQUEST` (exactly the first such block) and checks its
 * self-signature synchronously. Throws X509ParseError when it is not a parseable request. The
 * result is shared and frozen.
 */
export function parseCsr(pem: string | Buffer): ParsedCsr {
  const text = typeof pem === 'string' ? pem : pem.toString('utf8');
  const known = parsedCsrs.get(text);
  if (known) return known;
  const parsed = freezeParsed(parseCsrUncached(text));
  if (text.length > PARSED_CSR_MAX_CACHED_CHARS) return parsed;
  if (parsedCsrs.size >= PARSED_CSR_CACHE_SIZE) parsedCsrs.delete(parsedCsrs.keys().next().value!);
  parsedCsrs.set(text, parsed);
  return parsed;
}

function freezeParsed(p: ParsedCsr): ParsedCsr {
  for (const list of [p.commonNames, p.organizations, p.dnsNames, p.ipAddresses]) Object.freeze(list);
  return Object.freeze(p);
}

function parseCsrUncached(text: string): ParsedCsr {
  const blocks = splitPemBlocks(text);
  const block = blocks.find((b) => b.type === 'CERTIFICATE REQUEST' || b.type === 'NEW CERTIFICATE REQUEST');
  if (!block) throw new X509ParseError('PEM block type must be CERTIFICATE REQUEST');
  const native = readCsr(block.der);
  if (native) return native;
  let csr: x509.Pkcs10CertificateRequest;
  try {
    csr = new x509.Pkcs10CertificateRequest(block.der);
  } catch (e) {
    throw new X509ParseError('asn1: structure error', { cause: e });
  }
  let spkiDer: Buffer;
  let keyType: string;
  try {
    spkiDer = Buffer.from(csr.publicKey.rawData);
    keyType = createPublicKey({ key: spkiDer, format: 'der', type: 'spki' }).asymmetricKeyType ?? 'unknown';
  } catch (e) {
    throw new X509ParseError('unsupported public key', { cause: e });
  }
  const sanExt = csr.getExtension('2.5.29.17');
  const san = sanExt ? new x509.SubjectAlternativeNameExtension(sanExt.rawData) : undefined;
  const commonNames = csr.subjectName.getField('CN');
  return {
    der: block.der,
    commonName: commonNames[0] ?? '',
    commonNames,
    organizations: csr.subjectName.getField('O'),
    subject: csr.subject,
    dnsNames: san ? san.names.items.filter((n) => n.type === 'dns').map((n) => n.value) : [],
    ipAddresses: san ? san.names.items.filter((n) => n.type === 'ip').map((n) => n.value) : [],
    keyType,
    signatureValid: verifySignedDer(block.der, spkiDer),
  };
}

// ---------------------------------------------------------------------------------------------
// Certificates

export interface CreateCaOptions {
  commonName: string;
  keyAlgorithm?: KeyAlgorithm;
  notBefore: Date;
  notAfter: Date;
}

/** Creates a self-signed CA certificate and its key. */
export async function createSelfSignedCa(opts: CreateCaOptions): Promise<{ certPem: string; keyPem: string }> {
  const key = await generateKeyPair(opts.keyAlgorithm ?? 'ecdsa-p256');
  const { keys, signingAlgorithm } = await importKeyPair(key.privateKeyPem);
  const cert = await x509.X509CertificateGenerator.createSelfSigned(
    {
      serialNumber: randomSerial(),
      name: subjectName({ commonName: opts.commonName }),
      notBefore: opts.notBefore,
      notAfter: opts.notAfter,
      keys,
      signingAlgorithm,
      extensions: [
        new x509.BasicConstraintsExtension(true, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature, true),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey, false, crypto),
      ],
    },
    crypto,
  );
  return { certPem: cert.toString('pem') + '\n', keyPem: key.privateKeyPem };
}

export interface IssueCertificateOptions {
  ca: SigningCa;
  /** Subject given field by field, or copied verbatim from a CSR (DER of the request). */
  subject: SubjectInput | { fromCsrDer: Buffer };
  /** SPKI PEM or DER of the subject's public key; defaults to the CSR's when subject.fromCsrDer. */
  publicKey?: string | Buffer;
  notBefore: Date;
  notAfter: Date;
  keyUsages: KeyUsageName[];
  extKeyUsages: ExtKeyUsageName[];
  dnsNames?: string[];
  ipAddresses?: string[];
  emailAddresses?: string[];
  uris?: string[];
}

/** Signs a leaf certificate (BasicConstraints CA=false) with the CA's key; returns PEM. */
export async function issueCertificate(opts: IssueCertificateOptions): Promise<string> {
  if ('fromCsrDer' in opts.subject && opts.publicKey === undefined) {
    let usageFlags = 0;
    for (const u of opts.keyUsages) usageFlags |= KEY_USAGE_FLAGS[u];
    const pem = issueFromCsr({
      caCertPem: opts.ca.certPem,
      caKeyPem: opts.ca.keyPem,
      csrDer: opts.subject.fromCsrDer,
      notBefore: opts.notBefore,
      notAfter: opts.notAfter,
      keyUsageFlags: usageFlags,
      extKeyUsageOids: opts.extKeyUsages.map((u) => EKU_OIDS[u]),
      ...(opts.dnsNames ? { dnsNames: opts.dnsNames } : {}),
      ...(opts.ipAddresses ? { ipAddresses: opts.ipAddresses } : {}),
      ...(opts.emailAddresses ? { emailAddresses: opts.emailAddresses } : {}),
      ...(opts.uris ? { uris: opts.uris } : {}),
    });
    if (pem !== undefined) return pem;
  }
  const caCert = new x509.X509Certificate(opts.ca.certPem);
  const { keys: caKeys, signingAlgorithm } = await importKeyPair(opts.ca.keyPem);
  let subject: x509.Name | x509.JsonName;
  let publicKeyData: x509.PublicKey;
  if ('fromCsrDer' in opts.subject) {
    const csr = new x509.Pkcs10CertificateRequest(opts.subject.fromCsrDer);
    subject = csr.subjectName;
    publicKeyData = opts.publicKey ? new x509.PublicKey(opts.publicKey) : csr.publicKey;
  } else {
    if (!opts.publicKey) throw new Error('publicKey is required when the subject is not taken from a CSR');
    subject = subjectName(opts.subject);
    publicKeyData = new x509.PublicKey(opts.publicKey);
  }
  let usageBits = 0;
  for (const u of opts.keyUsages) usageBits |= KEY_USAGE_FLAGS[u];
  const extensions: x509.Extension[] = [new x509.BasicConstraintsExtension(false, undefined, true)];
  if (usageBits !== 0) extensions.push(new x509.KeyUsagesExtension(usageBits, true));
  if (opts.extKeyUsages.length > 0) extensions.push(new x509.ExtendedKeyUsageExtension(opts.extKeyUsages.map((u) => EKU_OIDS[u]), false));
  const sans: x509.JsonGeneralName[] = [
    ...sanList(opts.dnsNames, opts.ipAddresses),
    ...(opts.emailAddresses ?? []).map((v) => ({ type: 'email' as const, value: v })),
    ...(opts.uris ?? []).map((v) => ({ type: 'url' as const, value: v })),
  ];
  if (sans.length > 0) extensions.push(new x509.SubjectAlternativeNameExtension(sans, false));
  extensions.push(await x509.AuthorityKeyIdentifierExtension.create(caKeys.publicKey, false, crypto));
  const cert = await x509.X509CertificateGenerator.create(
    {
      serialNumber: randomSerial(),
      subject,
      issuer: caCert.subjectName,
      notBefore: opts.notBefore,
      notAfter: opts.notAfter,
      publicKey: publicKeyData,
      signingKey: caKeys.privateKey,
      signingAlgorithm,
      extensions,
    },
    crypto,
  );
  return cert.toString('pem') + '\n';
}

export interface SignCsrOptions {
  /** PEM `CERTIFICATE REQUEST`. Its self-signature is checked; subject, SANs and public key are copied. */
  csrPem: string;
  ca: SigningCa;
  notBefore: Date;
  notAfter: Date;
  keyUsages?: KeyUsageName[];
  /** Default ['clientAuth']. */
  extKeyUsages?: ExtKeyUsageName[];
}

/** Signs a PKCS#10 request with a CA (subject and SANs copied from the request); returns PEM. */
export async function signCsr(opts: SignCsrOptions): Promise<string> {
  const csr = parseCsr(opts.csrPem);
  if (!csr.signatureValid) throw new X509ParseError('certificate request signature verification failure');
  return issueCertificate({
    ca: opts.ca,
    subject: { fromCsrDer: csr.der },
    notBefore: opts.notBefore,
    notAfter: opts.notAfter,
    keyUsages: opts.keyUsages ?? ['digitalSignature', 'keyEncipherment'],
    extKeyUsages: opts.extKeyUsages ?? ['clientAuth'],
    ...(csr.dnsNames.length ? { dnsNames: csr.dnsNames } : {}),
    ...(csr.ipAddresses.length ? { ipAddresses: csr.ipAddresses } : {}),
  });
}

export interface ParsedCertificate {
  der: Buffer;
  commonName: string;
  organizations: string[];
  subject: string;
  issuer: string;
  issuerCommonName: string;
  serialNumber: string;
  notBefore: Date;
  notAfter: Date;
  isCa: boolean;
  /** EKU OIDs; undefined when the certificate has no EKU extension. */
  extKeyUsageOids?: string[];
  dnsNames: string[];
  ipAddresses: string[];
}

/** Parses the first `CERTIFICATE` block of a PEM string, or a DER buffer. Throws X509ParseError. */
export function parseCertificate(input: string | Buffer): ParsedCertificate {
  let der: Buffer;
  if (typeof input === 'string') {
    const block = splitPemBlocks(input).find((b) => b.type === 'CERTIFICATE');
    if (!block) throw new X509ParseError('no CERTIFICATE PEM block');
    der = block.der;
  } else {
    der = input;
  }
  let cert: x509.X509Certificate;
  try {
    cert = new x509.X509Certificate(der);
  } catch (e) {
    throw new X509ParseError('malformed certificate', { cause: e });
  }
  const eku = cert.getExtension(x509.ExtendedKeyUsageExtension);
  const bc = cert.getExtension(x509.BasicConstraintsExtension);
  const san = cert.getExtension(x509.SubjectAlternativeNameExtension);
  return {
    der,
    commonName: cert.subjectName.getField('CN')[0] ?? '',
    organizations: cert.subjectName.getField('O'),
    subject: cert.subject,
    issuer: cert.issuer,
    issuerCommonName: cert.issuerName.getField('CN')[0] ?? '',
    serialNumber: cert.serialNumber,
    notBefore: cert.notBefore,
    notAfter: cert.notAfter,
    isCa: bc?.ca ?? false,
    ...(eku ? { extKeyUsageOids: Array.from(eku.usages, (u) => String(u)) } : {}),
    dnsNames: san ? san.names.items.filter((n) => n.type === 'dns').map((n) => n.value) : [],
    ipAddresses: san ? san.names.items.filter((n) => n.type === 'ip').map((n) => n.value) : [],
  };
}

/** Parses every `CERTIFICATE` block of a PEM bundle (throws X509ParseError when there is none or one is malformed). */
export function parseCertificates(pem: string): ParsedCertificate[] {
  const blocks = splitPemBlocks(pem).filter((b) => b.type === 'CERTIFICATE');
  if (blocks.length === 0) throw new X509ParseError('no CERTIFICATE PEM block');
  return blocks.map((b) => parseCertificate(b.der));
}

/** A CA prepared for repeated synchronous chain checks (the x509 authenticator's hot path). */
export interface TrustAnchor {
  readonly subject: string;
  /**
   * True when the certificate was issued and signed by this CA (signature and issuer name; not
   * validity). A caller that parsed it already passes the parsed certificate (parsing costs about as
   * much as the check).
   */
  issued(cert: Buffer | NodeX509): boolean;
}

export function trustAnchorFromPem(caPem: string): TrustAnchor[] {
  return splitPemBlocks(caPem)
    .filter((b) => b.type === 'CERTIFICATE')
    .map((b) => {
      const ca = new NodeX509(b.der);
      const key = ca.publicKey;
      return {
        subject: ca.subject,
        issued(cert: Buffer | NodeX509): boolean {
          try {
            const leaf = cert instanceof NodeX509 ? cert : new NodeX509(cert);
            return leaf.checkIssued(ca) && leaf.verify(key);
          } catch {
            return false;
          }
        },
      };
    });
}

/** True when `cert` (PEM or DER) chains directly to one of the CAs in `caPem` and is valid at `at`. */
export function verifyCertificateChain(cert: string | Buffer, caPem: string, at: Date = new Date()): boolean {
  let parsed: ParsedCertificate;
  try {
    parsed = parseCertificate(cert);
  } catch {
    return false;
  }
  if (at < parsed.notBefore || at > parsed.notAfter) return false;
  return trustAnchorFromPem(caPem).some((a) => a.issued(parsed.der));
}
