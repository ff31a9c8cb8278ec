import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseCsr } from '../../../util/x509.js';
import { AGENT_CN, AGENT_ORGS, testCa, testClientCert } from './cert-fixtures.js';
import { keyMatchesCertificate, readCertificateInfo } from '../../../util/native-cert.js';
import { splitPemBlocks } from '../../../util/pem.js';
import { createEcCsr, generateEcPrivateKey } from './native-csr.js';
import { createPrivateKey, createPublicKey } from 'node:crypto';

test('should create an ECDSA P-256 CSR that parses and verifies, with the subject and DNS SANs', async () => {
  const key = (await generateEcPrivateKey()).pem;
  assert.match(key, /^-----BEGIN EC PRIVATE KEY-----\n/);
  const csr = parseCsr(createEcCsr(key, { commonName: AGENT_CN, organizations: AGENT_ORGS, organizationalUnits: ['ou1'], dnsNames: ['a.addon.open-cluster-management.io'] }));
  assert.equal(csr.signatureValid, true);
  assert.equal(csr.keyType, 'ec');
  assert.equal(csr.commonName, AGENT_CN);
  assert.deepEqual(csr.organizations, AGENT_ORGS);
  assert.deepEqual(csr.dnsNames, ['a.addon.open-cluster-management.io']);
  const plain = parseCsr(createEcCsr(key, { commonName: 'cn' }));
  assert.equal(plain.signatureValid, true);
  assert.deepEqual(plain.dnsNames, []);
});

test('should read subject and validity of a certificate natively, and match its key', async () => {
  const ca = await testCa();
  const notBefore = new Date('2026-01-01T00:00:00Z');
  const notAfter = new Date('2027-06-30T12:34:56Z');
  const c = await testClientCert(ca, { commonName: AGENT_CN, organizations: AGENT_ORGS, notBefore, notAfter });
  const info = readCertificateInfo(splitPemBlocks(c.certPem)[0]!.der);
  assert.equal(info.commonName, AGENT_CN);
  assert.deepEqual(info.organizations, AGENT_ORGS);
  assert.deepEqual(info.organizationalUnits, []);
  assert.equal(info.notBefore.toISOString(), notBefore.toISOString());
  assert.equal(info.notAfter.toISOString(), notAfter.toISOString());
  assert.equal(keyMatchesCertificate(c.certPem, c.keyPem), true);
  assert.equal(keyMatchesCertificate(c.certPem, (await generateEcPrivateKey()).pem), false);
  assert.throws(() => readCertificateInfo(Buffer.from([0x30, 0x03, 0x02, 0x01, 0x00])));
});

test('should sign with and match the key object it generated, without reading the PEM back', async () => {
  const key = await generateEcPrivateKey();
  assert.match(key.pem, /^-----BEGIN EC PRIVATE KEY-----\n/);
  const csr = parseCsr(createEcCsr(key.key, { commonName: AGENT_CN, organizations: AGENT_ORGS }));
  assert.equal(csr.signatureValid, true);
  const ca = await testCa();
  const c = await testClientCert(ca, { commonName: AGENT_CN, organizations: AGENT_ORGS, notBefore: new Date(Date.now() - 60_000), notAfter: new Date(Date.now() + 3_600_000) });
  assert.equal(keyMatchesCertificate(c.certPem, createPrivateKey(c.keyPem)), true);
  assert.equal(keyMatchesCertificate(c.certPem, key.key), false);
  assert.equal(keyMatchesCertificate(c.certPem, createPublicKey(c.keyPem)), false, 'a public key proves nothing');
});
