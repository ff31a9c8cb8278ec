// Key and PKCS#10 CSR creation for the agent's client certificates with node:crypto only: an ECDSA
// P-256 key (SEC1 `EC PRIVATE KEY` PEM, as OCM stores it) and a `CERTIFICATE REQUEST` signed with
// ecdsa-with-SHA256 for a subject of O/OU/CN attributes and optional DNS SANs. Keeps
// @peculiar/x509 (about 19 MiB once loaded) out of the agent process.

import { toPem } from '../../../util/pem.js';
import { oid, seq, set, tlv, utf8 } from '../../../util/der-write.js';
import { createPrivateKey, createPublicKey, generateKeyPair, sign, type KeyObject } from 'node:crypto';

const OID = {
  commonName: '2.5.4.3',
  organization: '2.5.4.10',
  organizationalUnit: '2.5.4.11',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  extensionRequest: '1.2.840.113549.1.9.14',
  subjectAltName: '2.5.29.17',
};

export interface NativeCsrSubject {
  commonName: string;
  organizations?: readonly string[];
  organizationalUnits?: readonly string[];
  dnsNames?: readonly string[];
}

/** A new ECDSA P-256 private key: the key itself, and as SEC1 `EC PRIVATE KEY` PEM to be stored. */
export interface EcPrivateKey {
  key: KeyObject;
  pem: string;
}

export function generateEcPrivateKey(): Promise<EcPrivateKey> {
  return new Promise((resolve, reject) =>
    generateKeyPair('ec', { namedCurve: 'prime256v1' }, (err, _pub, priv) => (err ? reject(err) : resolve({ key: priv, pem: priv.export({ type: 'sec1', format: 'pem' }).toString() }))),
  );
}

/**
 * A PEM `CERTIFICATE REQUEST` for the subject (O…, OU…, CN, in that order), signed by the EC key.
 * The agent passes the key object it generated: reading a PEM key back costs more than the signature.
 */
export function createEcCsr(privateKey: string | KeyObject, subject: NativeCsrSubject): string {
  const key = typeof privateKey === 'string' ? createPrivateKey(privateKey) : privateKey;
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') throw new Error('CSR key must be an ECDSA P-256 key');
  const spki = createPublicKey(key).export({ type: 'spki', format: 'der' });
  const rdn = (type: string, value: string): Buffer => set(seq(oid(type), utf8(value)));
  const name = seq(
    ...(subject.organizations ?? []).map((o) => rdn(OID.organization, o)),
    ...(subject.organizationalUnits ?? []).map((ou) => rdn(OID.organizationalUnit, ou)),
    rdn(OID.commonName, subject.commonName),
  );
  const dns = subject.dnsNames ?? [];
  // attributes [0]: an extensionRequest carrying subjectAltName when there are DNS names.
  let attributes = tlv(0xa0, Buffer.alloc(0));
  if (dns.length > 0) {
    const generalNames = seq(...dns.map((d) => tlv(0x82, Buffer.from(d, 'ascii'))));
    const extensions = seq(seq(oid(OID.subjectAltName), tlv(0x04, generalNames)));
    attributes = tlv(0xa0, seq(oid(OID.extensionRequest), set(extensions)));
  }
  const info = seq(tlv(0x02, Buffer.from([0])), name, spki, attributes);
  const signature = sign('sha256', info, key);
  const der = seq(info, seq(oid(OID.ecdsaWithSha256)), tlv(0x03, Buffer.concat([Buffer.from([0]), signature])));
  return toPem('CERTIFICATE REQUEST', der);
}
