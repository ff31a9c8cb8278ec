import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CertificateSigningRequest } from '../../../api/core.js';
import { AGENT_CN, AGENT_ORGS, testCa, testClientCert } from './cert-fixtures.js';
import {
  certValidityPeriod,
  clusterIndexOf,
  csrCreationHalted,
  goTimeString,
  isCertificateValid,
  isClusterCsr,
  isCsrApproved,
  parseCertificates,
  rotationDue,
} from './cert-checks.js';

const H = 3_600_000;

function csr(name: string, labels: Record<string, string>, conditions: { type: string }[] = []): CertificateSigningRequest {
  return {
    metadata: { name, labels },
    spec: { request: '', signerName: 'kubernetes.io/kube-apiserver-client' },
    status: { conditions: conditions.map((c) => ({ type: c.type, status: 'True' as const })) },
  };
}

test('should tell approved CSRs apart (TestIsCSRApproved)', () => {
  const cases = [
    { name: 'pending csr', input: csr('c1-a', {}), expected: false },
    { name: 'denied csr', input: csr('c1-a', {}, [{ type: 'Denied' }]), expected: false },
    { name: 'approved and denied csr', input: csr('c1-a', {}, [{ type: 'Approved' }, { type: 'Denied' }]), expected: false },
    { name: 'approved csr', input: csr('c1-a', {}, [{ type: 'Approved' }]), expected: true },
  ];
  for (const c of cases) assert.equal(isCsrApproved(c.input), c.expected, c.name);
});

test('should validate stored certificates (TestIsCertificateValid)', async () => {
  const ca = await testCa();
  const now = new Date();
  const valid = { notBefore: new Date(now.getTime() - H), notAfter: new Date(now.getTime() + H) };
  const subject = { commonName: AGENT_CN, organizations: AGENT_ORGS };
  const good = await testClientCert(ca, { commonName: AGENT_CN, organizations: AGENT_ORGS, ...valid });
  const reordered = await testClientCert(ca, { commonName: AGENT_CN, organizations: [...AGENT_ORGS].reverse(), ...valid });
  const expired = await testClientCert(ca, { commonName: AGENT_CN, organizations: AGENT_ORGS, notBefore: new Date(now.getTime() - 2 * H), notAfter: new Date(now.getTime() - H) });
  const badCn = await testClientCert(ca, { commonName: 'someone', organizations: AGENT_ORGS, ...valid });
  const badOrg = await testClientCert(ca, { commonName: AGENT_CN, organizations: ['x'], ...valid });
  const badOu = await testClientCert(ca, { commonName: AGENT_CN, organizations: AGENT_ORGS, organizationalUnits: ['ou'], ...valid });
  assert.throws(() => isCertificateValid('', subject, now), /unable to parse TLS certificates/, 'no cert');
  assert.throws(() => isCertificateValid('garbage', subject, now), /unable to parse TLS certificates/, 'bad cert');
  const cases = [
    { name: 'expired cert', pem: expired.certPem, expected: false },
    { name: 'invalid common name', pem: badCn.certPem, expected: false },
    { name: 'invalid organization', pem: badOrg.certPem, expected: false },
    { name: 'invalid organization unit', pem: badOu.certPem, expected: false },
    { name: 'valid cert', pem: good.certPem, expected: true },
    { name: 'valid cert different order', pem: reordered.certPem, expected: true },
  ];
  for (const c of cases) assert.equal(isCertificateValid(c.pem, subject, now), c.expected, c.name);
});

test('should compute the validity window of a chain (TestGetCertValidityPeriod)', async () => {
  const ca = await testCa();
  const t0 = Date.UTC(2030, 0, 1);
  const a = await testClientCert(ca, { commonName: 'a', notBefore: new Date(t0), notAfter: new Date(t0 + 10 * H) });
  const b = await testClientCert(ca, { commonName: 'b', notBefore: new Date(t0 + H), notAfter: new Date(t0 + 20 * H) });
  assert.throws(() => certValidityPeriod(undefined, 'testns/testsecret'), { message: 'no client certificate found in secret "testns/testsecret"' });
  assert.throws(() => certValidityPeriod('', 'testns/testsecret'), { message: 'no client certificate found in secret "testns/testsecret"' });
  assert.throws(() => certValidityPeriod('bad', 'testns/testsecret'), { message: 'unable to parse TLS certificates: data does not contain any valid RSA or ECDSA certificates' });
  const p = certValidityPeriod(a.certPem + b.certPem, 'testns/testsecret');
  assert.equal(p.notBefore.getTime(), t0 + H);
  assert.equal(p.notAfter.getTime(), t0 + 10 * H);
});

test('should rotate once 20–25 % of the lifetime remains', () => {
  const period = { notBefore: new Date(0), notAfter: new Date(100_000) };
  const cases = [
    { name: 'fresh', now: 10_000, u: 0, expected: false },
    { name: '24 % left, u=0 (threshold 20 %)', now: 76_000, u: 0, expected: false },
    { name: '24 % left, u→1 (threshold 25 %)', now: 76_000, u: 0.999, expected: true },
    { name: '20 % left', now: 80_000, u: 0, expected: true },
    { name: 'expired', now: 120_000, u: 0.5, expected: true },
  ];
  for (const c of cases) assert.equal(rotationDue(period, new Date(c.now), c.u).rotate, c.expected, c.name);
});

test('should say when rotation comes, so a short-lived certificate is rotated before it expires', () => {
  const period = { notBefore: new Date(0), notAfter: new Date(100_000) };
  // u=0: rotate at 80 % of the lifetime, 70 s after now=10 s; at that point rotation is due.
  const early = rotationDue(period, new Date(10_000), 0);
  assert.deepEqual([early.rotate, early.dueInMs], [false, 70_000]);
  assert.equal(rotationDue(period, new Date(10_000 + early.dueInMs), 0).rotate, true);
  assert.equal(rotationDue(period, new Date(80_000), 0).dueInMs, 0);
});

test('should filter and index cluster CSRs (TestFilterCSREvents, TestIndexByClusterName)', () => {
  const cluster = 'cluster1';
  assert.equal(isClusterCsr(csr('cluster1-abc', { 'open-cluster-management.io/cluster-name': cluster }), cluster), true);
  assert.equal(isClusterCsr(csr('cluster1-abc', { 'open-cluster-management.io/cluster-name': 'other' }), cluster), false);
  assert.equal(isClusterCsr(csr('cluster1-abc', { 'open-cluster-management.io/cluster-name': cluster, 'open-cluster-management.io/addon-name': 'a' }), cluster), false);
  assert.equal(isClusterCsr(csr('other-abc', { 'open-cluster-management.io/cluster-name': cluster }), cluster), false);
  assert.deepEqual(clusterIndexOf(csr('x', {})), []);
  assert.deepEqual(clusterIndexOf(csr('x', { 'open-cluster-management.io/cluster-name': cluster })), [cluster]);
  assert.deepEqual(clusterIndexOf(csr('x', { 'open-cluster-management.io/cluster-name': cluster, 'open-cluster-management.io/addon-name': 'a' })), []);
});

test('should halt CSR creation at 10 cached CSRs of the cluster', () => {
  const mine = (i: number) => csr(`cluster1-${i}`, { 'open-cluster-management.io/cluster-name': 'cluster1' });
  const addon = (i: number) => csr(`addon-${i}`, { 'open-cluster-management.io/cluster-name': 'cluster1', 'open-cluster-management.io/addon-name': 'a' });
  assert.equal(csrCreationHalted(Array.from({ length: 9 }, (_, i) => mine(i)).concat(Array.from({ length: 5 }, (_, i) => addon(i))), 'cluster1'), false);
  assert.equal(csrCreationHalted(Array.from({ length: 10 }, (_, i) => mine(i)), 'cluster1'), true);
});

test('should format times like Go', () => {
  assert.equal(goTimeString(new Date(Date.UTC(2024, 0, 2, 3, 4, 5))), '2024-01-02 03:04:05 +0000 UTC');
});

test('should parse a certificate text once while it is among the last ones read, and share it frozen', async () => {
  const ca = await testCa();
  const at = { notBefore: new Date(Date.now() - H), notAfter: new Date(Date.now() + H) };
  const a = await testClientCert(ca, { commonName: AGENT_CN, organizations: AGENT_ORGS, ...at });
  const b = await testClientCert(ca, { commonName: 'other', ...at });
  const first = parseCertificates(a.certPem);
  assert.equal(parseCertificates(a.certPem), first, 'the same text: the same result');
  assert.equal(first[0]!.commonName, AGENT_CN);
  assert.ok(Object.isFrozen(first) && Object.isFrozen(first[0]) && Object.isFrozen(first[0]!.organizations));
  assert.equal(parseCertificates(b.certPem)[0]!.commonName, 'other');
  // A malformed text throws every time: failures are not kept.
  const bad = '-----BEGIN CERTIFICATE-----\nMAMCAQA=\n-----END CERTIFICATE-----\n';
  assert.throws(() => parseCertificates(bad), /malformed certificate/);
  assert.throws(() => parseCertificates(bad), /malformed certificate/);
  // The least recently used texts make room for newer ones (and are parsed again, to the same
  // values): b, read again halfway, outlives a, read last before the others.
  const bFirst = parseCertificates(b.certPem);
  for (let i = 0; i < 300; i++) {
    if (i === 150) assert.equal(parseCertificates(b.certPem), bFirst);
    parseCertificates(`${b.certPem}${'\n'.repeat(i + 1)}`);
  }
  assert.equal(parseCertificates(b.certPem), bFirst, 'used since: kept');
  const again = parseCertificates(a.certPem);
  assert.notEqual(again, first);
  assert.deepEqual(again, first);
});
