// The native CSR reader and certificate issuer against @peculiar/x509, field by field and byte by
// byte: requests from both CSR writers (the general library's, PrintableString; the agent's native
// one, UTF8String), with and without SANs, EC and RSA; unusual requests go to the general library.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { createEcCsr, generateEcPrivateKey } from '../agent/register/csr/native-csr.js';
import { issueFromCsr, keyUsageBits } from './cert-issuer.js';
import { readCsr } from './csr-reader.js';
import { derChildren, readDer } from './der.js';
import { oid, seq, set, tlv, utf8 } from './der-write.js';
import { createCsr, createSelfSignedCa, generateKeyPair, issueCertificate, parseCsr, splitPemBlocks, type KeyAlgorithm } from './x509.js';

const now = Date.now();
const hour = 3_600_000;
const derOf = (pem: string): Buffer => splitPemBlocks(pem)[0]!.der;

/** What the general library reads from a request, in ParsedCsr's terms. */
function peculiarView(der: Buffer): Record<string, unknown> {
  const csr = new x509.Pkcs10CertificateRequest(der);
  const ext = csr.getExtension('2.5.29.17');
  const san = ext ? new x509.SubjectAlternativeNameExtension(ext.rawData) : undefined;
  return {
    commonNames: csr.subjectName.getField('CN'),
    organizations: csr.subjectName.getField('O'),
    subject: csr.subject,
    dnsNames: san ? san.names.items.filter((n) => n.type === 'dns').map((n) => n.value) : [],
    ipAddresses: san ? san.names.items.filter((n) => n.type === 'ip').map((n) => n.value) : [],
  };
}

test('readCsr reads what the general library reads, for both CSR writers', async () => {
  const cases: Array<[string, string]> = [];
  for (const alg of ['ecdsa-p256', 'rsa-2048'] as KeyAlgorithm[]) {
    const key = await generateKeyPair(alg);
    cases.push([`${alg} with SANs`, await createCsr({ commonName: 'user1', organizations: ['g1', 'g2'], organizationalUnits: ['u'], privateKeyPem: key.privateKeyPem, dnsNames: ['a.example', 'b.example'], ipAddresses: ['10.0.0.1'] })]);
    cases.push([`${alg} plain`, await createCsr({ commonName: 'system:open-cluster-management:c1:abcde', privateKeyPem: key.privateKeyPem })]);
  }
  const ec = (await generateEcPrivateKey()).pem;
  cases.push(['agent CSR', createEcCsr(ec, { commonName: 'system:open-cluster-management:c1:abcde', organizations: ['system:open-cluster-management:c1', 'system:open-cluster-management:managed-clusters'] })]);
  cases.push(['agent CSR with DNS', createEcCsr(ec, { commonName: 'cn', organizationalUnits: ['ou'], dnsNames: ['x.addon.open-cluster-management.io'] })]);
  for (const [name, pem] of cases) {
    const der = derOf(pem);
    const native = readCsr(der);
    assert.ok(native, name);
    assert.deepEqual({ commonNames: native.commonNames, organizations: native.organizations, subject: native.subject, dnsNames: native.dnsNames, ipAddresses: native.ipAddresses }, peculiarView(der), name);
    assert.equal(native.commonName, native.commonNames[0] ?? '', name);
    assert.equal(native.signatureValid, true, name);
    assert.equal(native.keyType, name.startsWith('rsa') ? 'rsa' : 'ec', name);
  }
});

test('readCsr leaves unusual requests to the general library, and parseCsr still reads them', async () => {
  const ec = (await generateEcPrivateKey()).pem;
  const base = derOf(createEcCsr(ec, { commonName: 'cn' }));
  // Swap the subject for one with a two-valued RDN: the signature breaks, the shape is what matters.
  const info = derChildren(base, readDer(base, 0))[0]!;
  const parts = derChildren(base, info);
  const twoValued = seq(set(seq(oid('2.5.4.3'), utf8('a')), seq(oid('2.5.4.10'), utf8('b'))));
  const rebuilt = (subject: Buffer): Buffer => {
    const newInfo = seq(base.subarray(parts[0]!.start, parts[0]!.end), subject, ...parts.slice(2).map((p) => base.subarray(p.start, p.end)));
    const rest = derChildren(base, readDer(base, 0)).slice(1).map((p) => base.subarray(p.start, p.end));
    return seq(newInfo, ...rest);
  };
  for (const [name, subject] of [
    ['two-valued RDN', twoValued],
    ['comma in a value', seq(set(seq(oid('2.5.4.3'), utf8('a,b'))))],
    ['attribute without a short name', seq(set(seq(oid('1.2.3.4'), utf8('x'))))],
    ['BMPString', seq(set(seq(oid('2.5.4.3'), tlv(0x1e, Buffer.from([0, 0x61])))))],
  ] as const) {
    const der = rebuilt(subject);
    assert.equal(readCsr(der), undefined, name);
    const pem = `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`;
    assert.equal(parseCsr(pem).signatureValid, false, name);
  }
  assert.equal(readCsr(Buffer.from('nonsense')), undefined);
});

test('issueFromCsr makes the certificate the general library makes, for EC and RSA CAs', async () => {
  for (const alg of ['ecdsa-p256', 'rsa-2048'] as KeyAlgorithm[]) {
    const ca = await createSelfSignedCa({ commonName: 'ca', keyAlgorithm: alg, notBefore: new Date(now - 1000), notAfter: new Date(now + hour) });
    const key = await generateKeyPair('ecdsa-p256');
    const csrDer = derOf(await createCsr({ commonName: 'user1', organizations: ['g1'], privateKeyPem: key.privateKeyPem }));
    const spki = x509.PemConverter.encode(new x509.Pkcs10CertificateRequest(csrDer).publicKey.rawData, 'PUBLIC KEY');
    const common = { ca, notBefore: new Date(now - 1000), notAfter: new Date(now + hour / 2), keyUsages: ['digitalSignature', 'keyEncipherment'] as const, extKeyUsages: ['clientAuth'] as const, dnsNames: ['a.example'], ipAddresses: ['10.0.0.1', '::1'] };
    // With publicKey given, issueCertificate takes the general library's path.
    const general = await issueCertificate({ ...common, keyUsages: [...common.keyUsages], extKeyUsages: [...common.extKeyUsages], subject: { fromCsrDer: csrDer }, publicKey: spki });
    const native = issueFromCsr({ caCertPem: ca.certPem, caKeyPem: ca.keyPem, csrDer, notBefore: common.notBefore, notAfter: common.notAfter, keyUsageFlags: x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, extKeyUsageOids: ['1.3.6.1.5.5.7.3.2'], dnsNames: common.dnsNames, ipAddresses: common.ipAddresses });
    assert.ok(native, alg);
    const tbsFields = (pem: string): Buffer[] => {
      const der = derOf(pem);
      const tbs = derChildren(der, readDer(der, 0))[0]!;
      return derChildren(der, tbs).map((e) => der.subarray(e.start, e.end));
    };
    const [g, n] = [tbsFields(general), tbsFields(native)];
    assert.equal(n.length, g.length, alg);
    // Everything but the serial number (index 1) is byte for byte the same.
    for (let i = 0; i < g.length; i++) if (i !== 1) assert.deepEqual(n[i], g[i], `${alg}: field ${i}`);
    const cert = new X509Certificate(native);
    assert.ok(cert.checkIssued(new X509Certificate(ca.certPem)) && cert.verify(new X509Certificate(ca.certPem).publicKey), alg);
  }
});

test('keyUsageBits drops trailing zero bits and counts the unused ones', () => {
  assert.deepEqual(keyUsageBits(x509.KeyUsageFlags.digitalSignature), Buffer.from([0x03, 0x02, 0x07, 0x80]));
  assert.deepEqual(keyUsageBits(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment), Buffer.from([0x03, 0x02, 0x05, 0xa0]));
  assert.deepEqual(keyUsageBits(x509.KeyUsageFlags.decipherOnly), Buffer.from([0x03, 0x03, 0x07, 0x00, 0x80]));
});
