import { test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate, createPrivateKey, createPublicKey } from 'node:crypto';
import { createServingCertPair } from './native-serving-cert.js';

const notBefore = new Date('2026-01-01T00:00:00Z');

test('the serving certificate is signed by the CA and valid for every name and address asked', () => {
  const p = createServingCertPair({ commonName: 'agent', names: ['localhost', 'node-1', '127.0.0.1', '::1', '::ffff:10.0.0.1', 'fe80::1:2'], notBefore, notAfter: new Date('2027-01-01T00:00:00Z') });
  const ca = new X509Certificate(p.caPem);
  const cert = new X509Certificate(p.certPem);
  assert.equal(ca.ca, true);
  assert.equal(cert.ca, false);
  assert.ok(ca.verify(ca.publicKey), 'the CA is self-signed');
  assert.ok(cert.verify(ca.publicKey), 'the CA signs the serving certificate');
  assert.ok(cert.checkIssued(ca));
  assert.match(ca.subject, /^CN=agent-signer@\d+$/);
  assert.equal(cert.subject, 'CN=agent');
  assert.equal(cert.checkHost('localhost'), 'localhost');
  assert.equal(cert.checkHost('node-1'), 'node-1');
  assert.equal(cert.checkHost('other'), undefined);
  for (const ip of ['127.0.0.1', '::1', '::ffff:10.0.0.1', 'fe80::1:2']) assert.ok(cert.checkIP(ip), ip);
  assert.equal(cert.checkIP('10.0.0.1'), undefined);
  assert.deepEqual(cert.keyUsage ?? [], ['1.3.6.1.5.5.7.3.1']);
  assert.equal(new Date(cert.validFrom).toISOString(), notBefore.toISOString());
  assert.deepEqual(
    createPublicKey(createPrivateKey(p.keyPem)).export({ type: 'spki', format: 'der' }),
    cert.publicKey.export({ type: 'spki', format: 'der' }),
  );
});

test('validity past 2049 is written as GeneralizedTime', () => {
  const p = createServingCertPair({ commonName: 'x', names: [], notBefore, notAfter: new Date('2051-06-01T12:00:00Z') });
  assert.equal(new Date(new X509Certificate(p.certPem).validTo).toISOString(), '2051-06-01T12:00:00.000Z');
});
