import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CertificateSigningRequest, Secret } from '../../../api/core.js';
import { ApiStatusError } from '../../../client/errors.js';
import { resourceTypes } from '../../../client/resource-types.js';
import { realClock } from '../../../util/clock.js';
import { nullLogger } from '../../../util/logger.js';
import { issueCertificate, parseCsr } from '../../../util/x509.js';
import { fakeLister, fakeResourceClient } from '../fake-clients.js';
import { AGENT_CN, AGENT_ORGS, testCa, testClientCert } from './cert-fixtures.js';
import { createCsrDriver } from './csr-driver.js';

const H = 3_600_000;
const signal = new AbortController().signal;
const b64 = (s: string): string => Buffer.from(s).toString('base64');

function setup(initial: CertificateSigningRequest[] = []) {
  const csrs = fakeResourceClient<CertificateSigningRequest>(resourceTypes.certificateSigningRequests, undefined, initial);
  const driver = createCsrDriver({ clusterName: 'cluster1', agentName: 'agent1', expirationSeconds: 0, log: nullLogger(), clock: realClock, random: () => 0.5 });
  driver.setHub({ csrs, lister: fakeLister(() => [...csrs.objects.values()]) });
  return { csrs, driver };
}

function secretWith(data: Record<string, string>): Secret {
  return { metadata: { namespace: 'testns', name: 'testsecret' }, data };
}

test('should create a CSR when there is no valid certificate, remembering its name', async () => {
  const { csrs, driver } = setup();
  const out = await driver.process('test', secretWith({}), {}, signal);
  assert.deepEqual(out, {});
  assert.deepEqual(csrs.actions, ['create']);
  const csr = [...csrs.objects.values()][0]!;
  assert.equal(driver.pendingCsrName(), csr.metadata.name);
  assert.equal(csr.metadata.generateName, 'cluster1-');
  assert.deepEqual(csr.metadata.labels, { 'open-cluster-management.io/cluster-name': 'cluster1' });
  assert.equal(csr.spec.signerName, 'kubernetes.io/kube-apiserver-client');
  const req = parseCsr(Buffer.from(csr.spec.request, 'base64').toString());
  assert.equal(req.commonName, AGENT_CN);
  assert.deepEqual([...req.organizations].sort(), [...AGENT_ORGS].sort());
  assert.equal(req.keyType, 'ec');
  assert.equal(req.signatureValid, true);
});

test('should store the issued certificate and key once the CSR is approved (syc csr after bootstrap)', async () => {
  const ca = await testCa();
  const { csrs, driver } = setup();
  await driver.process('test', secretWith({}), {}, signal);
  const name = driver.pendingCsrName();
  // Waiting: not approved yet → nothing.
  assert.deepEqual(await driver.process('test', secretWith({}), {}, signal), {});
  const csr = csrs.objects.get(name)!;
  const req = parseCsr(Buffer.from(csr.spec.request, 'base64').toString());
  const certPem = await issueCertificate({
    ca,
    subject: { fromCsrDer: req.der },
    notBefore: new Date(Date.now() - H),
    notAfter: new Date(Date.now() + H),
    keyUsages: ['digitalSignature'],
    extKeyUsages: ['clientAuth'],
  });
  csr.status = { conditions: [{ type: 'Approved', status: 'True' }], certificate: b64(certPem) };
  const out = await driver.process('test', secretWith({}), {}, signal);
  assert.equal(out.error, undefined);
  assert.equal(Buffer.from(out.secret!.data!['tls.crt']!, 'base64').toString(), certPem);
  assert.match(Buffer.from(out.secret!.data!['tls.key']!, 'base64').toString(), /BEGIN EC PRIVATE KEY/);
  assert.equal(out.condition?.status, 'True');
  assert.equal(out.condition?.reason, 'ClientCertificateUpdated');
  assert.equal(driver.pendingCsrName(), '');
});

test('should report a deleted pending CSR as a failure and reset', async () => {
  const { csrs, driver } = setup();
  await driver.process('test', secretWith({}), {}, signal);
  const name = driver.pendingCsrName();
  csrs.objects.delete(name);
  const out = await driver.process('test', secretWith({}), {}, signal);
  assert.equal(out.error?.message, `unable to get csr "${name}". It might have already been deleted`);
  assert.equal(out.condition?.reason, 'ClientCertificateUpdateFailed');
  assert.equal(driver.pendingCsrName(), '');
});

test('should leave a valid secret alone, and rotate an expiring or mismatching one', async () => {
  const ca = await testCa();
  const now = Date.now();
  const extra = { 'agent-name': Buffer.from('agent1') };
  const fresh = await testClientCert(ca, { commonName: AGENT_CN, organizations: AGENT_ORGS, notBefore: new Date(now - H), notAfter: new Date(now + 10 * H) });
  const expiring = await testClientCert(ca, { commonName: AGENT_CN, organizations: AGENT_ORGS, notBefore: new Date(now - 10 * H), notAfter: new Date(now + H) });

  // sync a valid hub kubeconfig secret: no actions, no secret, a look again at the rotation time
  // (20-25 % of the 11 h lifetime before the end: 7.25-7.8 h from now)
  let s = setup();
  const valid = await s.driver.process('test', secretWith({ 'tls.crt': b64(fresh.certPem), 'tls.key': b64(fresh.keyPem), 'agent-name': b64('agent1') }), extra, signal);
  assert.deepEqual(Object.keys(valid), ['recheckAfterMs']);
  assert.ok(valid.recheckAfterMs! >= 7.2 * H && valid.recheckAfterMs! <= 7.8 * H, String(valid.recheckAfterMs));
  assert.deepEqual(s.csrs.actions, []);

  // sync an expiring hub kubeconfig secret: CSR created, key and name remembered
  s = setup();
  await s.driver.process('test', secretWith({ 'tls.crt': b64(expiring.certPem), 'tls.key': b64(expiring.keyPem), 'agent-name': b64('agent1') }), extra, signal);
  assert.deepEqual(s.csrs.actions, ['create']);
  assert.notEqual(s.driver.pendingCsrName(), '');

  // sync when additional secret data changes: wrong agent-name → CSR created
  s = setup();
  await s.driver.process('test', secretWith({ 'tls.crt': b64(fresh.certPem), 'tls.key': b64(fresh.keyPem), 'agent-name': b64('invalid-name') }), extra, signal);
  assert.deepEqual(s.csrs.actions, ['create']);
});

test('should stop creating CSRs once 10 exist for the cluster', async () => {
  const existing = Array.from({ length: 10 }, (_, i): CertificateSigningRequest => ({
    metadata: { name: `cluster1-${i}`, labels: { 'open-cluster-management.io/cluster-name': 'cluster1' } },
    spec: { request: '', signerName: 'kubernetes.io/kube-apiserver-client' },
  }));
  const { csrs, driver } = setup(existing);
  const out = await driver.process('test', secretWith({}), {}, signal);
  assert.deepEqual(csrs.actions, []);
  assert.equal(out.error, undefined);
  assert.equal(out.condition?.message, 'Stop creating csr since there are too many csr created already on hub');
});

test('should report CSR creation failures with a condition', async () => {
  const { csrs, driver } = setup();
  csrs.failNext('create', 403);
  const out = await driver.process('test', secretWith({}), {}, signal);
  assert.match(out.condition?.message ?? '', /^Failed to create CSR /);
  assert.ok(out.error);
  assert.equal(driver.pendingCsrName(), '');
});

test('should keep the API error of a failed CSR read, so that the controller retries by its code', async () => {
  const { csrs, driver } = setup();
  await driver.process('test', secretWith({}), {}, signal);
  const name = driver.pendingCsrName();
  csrs.objects.delete(name); // not in the cache: the driver reads it from the hub
  csrs.failNext('get', 503);
  const out = await driver.process('test', secretWith({}), {}, signal);
  assert.ok(out.error instanceof ApiStatusError, 'an ApiStatusError, not a plain Error');
  assert.equal(out.error.code, 503);
  assert.equal(out.condition?.message, `Failed to rotated client certificate get ${name} failed`);
});

test('should keep waiting on the pending CSR when reading it fails for another reason than NotFound (no new CSR per timeout)', async () => {
  const { csrs, driver } = setup();
  await driver.process('test', secretWith({}), {}, signal);
  const name = driver.pendingCsrName();
  const pending = csrs.objects.get(name)!;
  csrs.objects.delete(name); // not in the cache: the driver reads it from the hub
  csrs.failNext('get', 504);
  const out = await driver.process('test', secretWith({}), {}, signal);
  assert.equal((out.error as ApiStatusError | undefined)?.code, 504);
  assert.equal(driver.pendingCsrName(), name, 'still waiting on the same CSR');
  csrs.objects.set(name, pending);
  assert.deepEqual(await driver.process('test', secretWith({}), {}, signal), {}, 'not approved yet: nothing, and no new CSR');
  assert.equal(csrs.objects.size, 1);
});
