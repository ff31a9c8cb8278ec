import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPrivateKey } from 'node:crypto';
import {
  createCsr,
  createSelfSignedCa,
  generateKeyPair,
  issueCertificate,
  keyMatchesCertificate,
  parseCertificate,
  parseCertificates,
  parseCsr,
  signCsr,
  splitPemBlocks,
  toEcPrivateKeyPem,
  toPem,
  verifyCertificateChain,
  X509ParseError,
  type KeyAlgorithm,
} from './x509.js';

const now = Date.now();
const hour = 3_600_000;

for (const alg of ['ecdsa-p256', 'rsa-2048'] as KeyAlgorithm[]) {
  test(`should round-trip key → CSR → certificate with ${alg}`, async () => {
    const ca = await createSelfSignedCa({ commonName: 'ca', keyAlgorithm: alg, notBefore: new Date(now - 1000), notAfter: new Date(now + hour) });
    assert.equal(parseCertificate(ca.certPem).isCa, true);
    const key = await generateKeyPair(alg);
    assert.match(key.privateKeyPem, /^-----BEGIN PRIVATE KEY-----/);
    const csrPem = await createCsr({ commonName: 'user1', organizations: ['g1', 'g2'], privateKeyPem: key.privateKeyPem, dnsNames: ['a.example'], ipAddresses: ['10.0.0.1'] });
    const csr = parseCsr(csrPem);
    assert.equal(csr.commonName, 'user1');
    assert.deepEqual(csr.organizations, ['g1', 'g2']);
    assert.equal(csr.signatureValid, true);
    assert.equal(csr.keyType, alg === 'ecdsa-p256' ? 'ec' : 'rsa');
    assert.deepEqual(csr.dnsNames, ['a.example']);
    assert.deepEqual(csr.ipAddresses, ['10.0.0.1']);

    const certPem = await issueCertificate({ ca, subject: { fromCsrDer: csr.der }, notBefore: new Date(now - 1000), notAfter: new Date(now + hour / 2), keyUsages: ['digitalSignature'], extKeyUsages: ['clientAuth'], dnsNames: csr.dnsNames });
    const cert = parseCertificate(certPem);
    assert.equal(cert.commonName, 'user1');
    assert.deepEqual(cert.organizations, ['g1', 'g2']);
    assert.equal(cert.issuerCommonName, 'ca');
    assert.deepEqual(cert.extKeyUsageOids, ['1.3.6.1.5.5.7.3.2']);
    assert.equal(cert.isCa, false);
    assert.equal(Math.floor(cert.notAfter.getTime() / 1000), Math.floor((now + hour / 2) / 1000));
    assert.ok(keyMatchesCertificate(certPem, key.privateKeyPem));
    assert.ok(verifyCertificateChain(certPem, ca.certPem));
    assert.equal(verifyCertificateChain(certPem, ca.certPem, new Date(now + hour)), false, 'expired');
    const otherCa = await createSelfSignedCa({ commonName: 'ca', keyAlgorithm: alg, notBefore: new Date(now - 1000), notAfter: new Date(now + hour) });
    assert.equal(verifyCertificateChain(certPem, otherCa.certPem), false, 'same name, other key');
  });
}

test('should detect a tampered CSR and reject non-CSR input', async () => {
  const key = await generateKeyPair('ecdsa-p256');
  const pem = await createCsr({ commonName: 'x', privateKeyPem: key.privateKeyPem });
  const der = Buffer.from(parseCsr(pem).der);
  der[der.length - 3] = der[der.length - 3]! ^ 0xff;
  assert.equal(parseCsr(toPem('CERTIFICATE REQUEST', der)).signatureValid, false);
  assert.throws(() => parseCsr('garbage'), X509ParseError);
  assert.throws(() => parseCsr(key.publicKeyPem), X509ParseError);
  assert.throws(() => parseCsr(toPem('CERTIFICATE REQUEST', Buffer.from('nonsense'))), X509ParseError);
});

test('should convert EC keys to SEC1 and split PEM bundles', async () => {
  const key = await generateKeyPair('ecdsa-p256');
  const sec1 = toEcPrivateKeyPem(key.privateKeyPem);
  assert.match(sec1, /BEGIN EC PRIVATE KEY/);
  assert.equal(createPrivateKey(sec1).asymmetricKeyType, 'ec');
  const blocks = splitPemBlocks(key.privateKeyPem + key.publicKeyPem);
  assert.deepEqual(blocks.map((b) => b.type), ['PRIVATE KEY', 'PUBLIC KEY']);
  // A CSR signed with a SEC1 key works too.
  const csr = parseCsr(await createCsr({ commonName: 'y', privateKeyPem: sec1 }));
  assert.equal(csr.signatureValid, true);
});

test('signCsr copies the request and refuses a bad signature; parseCertificates reads bundles', async () => {
  const ca = await createSelfSignedCa({ commonName: 'ca', notBefore: new Date(now - 1000), notAfter: new Date(now + hour) });
  const key = await generateKeyPair('ecdsa-p256');
  const csrPem = await createCsr({ commonName: 'svc', organizations: ['o'], privateKeyPem: key.privateKeyPem, dnsNames: ['svc.local'] });
  const pem = await signCsr({ csrPem, ca, notBefore: new Date(now - 1000), notAfter: new Date(now + hour / 4), extKeyUsages: ['serverAuth', 'clientAuth'] });
  const c = parseCertificate(pem);
  assert.equal(c.commonName, 'svc');
  assert.deepEqual(c.dnsNames, ['svc.local']);
  assert.deepEqual(c.extKeyUsageOids, ['1.3.6.1.5.5.7.3.1', '1.3.6.1.5.5.7.3.2']);
  const both = parseCertificates(pem + ca.certPem);
  assert.deepEqual(both.map((x) => x.commonName), ['svc', 'ca']);
  assert.throws(() => parseCertificates('nothing'), X509ParseError);
  const der = Buffer.from(parseCsr(csrPem).der);
  der[der.length - 3] = der[der.length - 3]! ^ 0xff;
  await assert.rejects(signCsr({ csrPem: toPem('CERTIFICATE REQUEST', der), ca, notBefore: new Date(now), notAfter: new Date(now + hour) }), X509ParseError);
});
