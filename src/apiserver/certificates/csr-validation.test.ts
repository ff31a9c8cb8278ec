import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../api/meta.js';
import { createCsr, generateKeyPair, parseCsr, toPem } from '../../util/x509.js';
import { validateCertificateField, validateConditions, validateConditionTransition, validateCsrSpec } from './csr-validation.js';
import { csrStrategy } from './csr-strategy.js';
import { decideSigning, signingTtlMs, validityWindow } from './signer-policy.js';
import type { StrategyContext } from '../registry/types.js';

const key = await generateKeyPair('ecdsa-p256');
const csrPem = await createCsr({ commonName: 'system:open-cluster-management:c1:a1', organizations: ['system:open-cluster-management:c1'], privateKeyPem: key.privateKeyPem });
const b64 = (s: string): string => Buffer.from(s).toString('base64');
const tampered = (() => {
  const der = Buffer.from(parseCsr(csrPem).der);
  der[40] = der[40]! ^ 0x01; // inside the subject: the signature no longer matches
  return toPem('CERTIFICATE REQUEST', der);
})();

function csr(spec: Record<string, unknown>, status?: Record<string, unknown>): KubeObject {
  return { apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'x' }, spec, ...(status ? { status } : {}) };
}
const goodSpec = { request: b64(csrPem), signerName: 'kubernetes.io/kube-apiserver-client', usages: ['digital signature', 'key encipherment', 'client auth'], expirationSeconds: 3600 };

const specCases: Array<{ name: string; spec: Record<string, unknown>; errors: string[] }> = [
  { name: 'valid', spec: goodSpec, errors: [] },
  { name: 'garbage PEM', spec: { ...goodSpec, request: b64('hello world') }, errors: [`spec.request: Invalid value: "${b64('hello world')}": PEM block type must be CERTIFICATE REQUEST`] },
  { name: 'not base64', spec: { ...goodSpec, request: '%%%' }, errors: ['spec.request: Invalid value: "%%%": must be base64-encoded PEM data'] },
  { name: 'bad signature', spec: { ...goodSpec, request: b64(tampered) }, errors: [`spec.request: Invalid value: "${b64(tampered)}": x509: signature verification failure`] },
  { name: 'wrong PEM type', spec: { ...goodSpec, request: b64(key.publicKeyPem) }, errors: [`spec.request: Invalid value: "${b64(key.publicKeyPem)}": PEM block type must be CERTIFICATE REQUEST`] },
  { name: 'missing request', spec: { ...goodSpec, request: undefined }, errors: ['spec.request: Required value'] },
  { name: 'missing signer', spec: { ...goodSpec, signerName: '' }, errors: ['spec.signerName: Required value'] },
  { name: 'legacy signer', spec: { ...goodSpec, signerName: 'kubernetes.io/legacy-unknown' }, errors: ['spec.signerName: Invalid value: "kubernetes.io/legacy-unknown": the legacy signerName is not allowed via this API version'] },
  { name: 'unqualified signer', spec: { ...goodSpec, signerName: 'mysigner' }, errors: ["spec.signerName: Invalid value: \"mysigner\": must be a fully qualified domain and path of the form 'example.com/signer-name'"] },
  { name: 'missing usages', spec: { ...goodSpec, usages: [] }, errors: ['spec.usages: Required value'] },
  { name: 'duplicate usage', spec: { ...goodSpec, usages: ['client auth', 'client auth'] }, errors: ['spec.usages[1]: Duplicate value: "client auth"'] },
  { name: 'expiration 599', spec: { ...goodSpec, expirationSeconds: 599 }, errors: ['spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 600 seconds (10 minutes)'] },
  { name: 'expiration 600', spec: { ...goodSpec, expirationSeconds: 600 }, errors: [] },
];

for (const c of specCases) {
  test(`validateCsrSpec: ${c.name}`, () => {
    assert.deepEqual(validateCsrSpec(csr(c.spec)).map((e) => `${e.field}: ${e.message}`), c.errors);
  });
}

test('validateCsrSpec: unknown usage lists the supported values', () => {
  const errs = validateCsrSpec(csr({ ...goodSpec, usages: ['client auth', 'bogus'] }));
  assert.equal(errs.length, 1);
  assert.equal(errs[0]!.field, 'spec.usages[1]');
  assert.match(errs[0]!.message, /^Unsupported value: "bogus": supported values: "any", "cert sign", "client auth", /);
});

const A = { type: 'Approved', status: 'True', reason: 'r', message: 'm' };
const D = { type: 'Denied', status: 'True', reason: 'r', message: 'm' };
const F = { type: 'Failed', status: 'True', reason: 'r', message: 'm' };
const condCases: Array<{ name: string; conds: Record<string, string>[]; errors: string[] }> = [
  { name: 'approved', conds: [A], errors: [] },
  { name: 'approved and denied', conds: [A, D], errors: ['status.conditions[1].type: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive'] },
  { name: 'duplicate', conds: [A, A], errors: ['status.conditions[1].type: Duplicate value: "Approved"'] },
  { name: 'approved False', conds: [{ ...A, status: 'False' }], errors: ['status.conditions[0].status: Unsupported value: "False": supported values: "True"'] },
  { name: 'custom type Unknown', conds: [{ type: 'Custom', status: 'Unknown', reason: 'r', message: '' }], errors: [] },
  { name: 'failed with approved', conds: [A, F], errors: [] },
];
for (const c of condCases) {
  test(`validateConditions: ${c.name}`, () => {
    assert.deepEqual(validateConditions(c.conds).map((e) => `${e.field}: ${e.message}`), c.errors);
  });
}

test('validateConditionTransition: no removal; Approved/Denied only via approval', () => {
  assert.deepEqual(validateConditionTransition([], [A], true).map((e) => e.message), ['Forbidden: updates may not remove a condition of type "Approved"']);
  assert.deepEqual(validateConditionTransition([A], [], false).map((e) => e.message), ['Forbidden: updates may not add a condition of type "Approved"']);
  assert.deepEqual(validateConditionTransition([A], [], true), []);
  assert.deepEqual(validateConditionTransition([A, F], [A], false), []);
});

test('validateCertificateField: PEM CERTIFICATE blocks only, set once', () => {
  const cert = b64('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
  assert.deepEqual(validateCertificateField(cert, undefined), []);
  assert.deepEqual(validateCertificateField(cert, cert), []);
  assert.equal(validateCertificateField(b64('garbage'), undefined)[0]!.message, 'Invalid value: "<certificate data>": must contain at least one CERTIFICATE PEM block');
  assert.match(validateCertificateField(b64(key.privateKeyPem), undefined)[0]!.message, /only CERTIFICATE PEM blocks are allowed, found "PRIVATE KEY"/);
  assert.equal(validateCertificateField(b64('-----BEGIN CERTIFICATE-----\nMIIC\n-----END CERTIFICATE-----\n'), cert)[0]!.message, 'Forbidden: updates may not modify existing certificate content');
});

const ctx = (subresource: string): StrategyContext => ({
  user: { username: 'system:bootstrap:abcdef', groups: ['system:bootstrappers', 'system:authenticated'] },
  subresource,
  now: Date.parse('2026-12-02T12:00:00Z'),
  store: undefined as unknown as StrategyContext['store'],
});

test('csrStrategy: create overwrites identity and clears status', () => {
  const obj = csr({ ...goodSpec, username: 'system:admin', groups: ['system:masters'], uid: 'u', extra: { a: ['b'] } }, { conditions: [A], certificate: 'x' });
  csrStrategy.prepareForCreate!(obj, ctx(''));
  const spec = obj.spec as Record<string, unknown>;
  assert.equal(spec.username, 'system:bootstrap:abcdef');
  assert.deepEqual(spec.groups, ['system:bootstrappers', 'system:authenticated']);
  assert.equal(spec.uid, undefined);
  assert.equal(spec.extra, undefined);
  assert.deepEqual(obj.status, {});
});

test('csrStrategy: approval takes only conditions and stamps times; main update keeps spec and status', () => {
  const old = csr({ ...goodSpec, username: 'u1' }, {});
  const body = csr({ ...goodSpec, username: 'evil' }, { conditions: [A], certificate: 'Zm9v' });
  csrStrategy.prepareForUpdate!(body, old, ctx('approval'));
  assert.equal((body.spec as Record<string, unknown>).username, 'u1');
  const st = body.status as { conditions: Record<string, string>[]; certificate?: string };
  assert.equal(st.certificate, undefined);
  assert.equal(st.conditions[0]!.lastUpdateTime, '2026-12-02T12:00:00Z');
  assert.equal(st.conditions[0]!.lastTransitionTime, '2026-12-02T12:00:00Z');
  const main = csr({ ...goodSpec, username: 'evil' }, { conditions: [A] });
  csrStrategy.prepareForUpdate!(main, old, ctx(''));
  assert.equal((main.spec as Record<string, unknown>).username, 'u1');
  assert.deepEqual(main.status, {});
});

test('signer policy: ttl, validity window and usage checks', () => {
  assert.equal(signingTtlMs(undefined, 20_000), 20_000);
  assert.equal(signingTtlMs(3600, 365 * 86400_000), 3600_000);
  assert.equal(signingTtlMs(100, 365 * 86400_000), 600_000);
  assert.equal(signingTtlMs(86400, 3600_000), 3600_000);
  const now = Date.parse('2026-12-02T12:00:00Z');
  const w = validityWindow(now, 365 * 86400_000, now + 10 * 365 * 86400_000);
  assert.equal(w.notBefore.getTime(), now - 300_000);
  assert.equal(w.notAfter.getTime(), now + 365 * 86400_000 - 300_000);
  const short = validityWindow(now, 20_000, now + 86400_000);
  assert.equal(short.notBefore.getTime(), now - 2_000);
  assert.equal(short.notAfter.getTime(), now + 20_000);
  assert.equal(validityWindow(now, 3600_000, now + 1000).notAfter.getTime(), now + 1000);

  const approved = (usages: string[], conds = [A]): KubeObject => csr({ ...goodSpec, usages }, { conditions: conds });
  assert.equal(decideSigning(approved(['digital signature', 'client auth']), now, 20_000, now + 86400_000).action, 'sign');
  assert.deepEqual(decideSigning(approved(['client auth', 'server auth']), now, 20_000, now + 86400_000), { action: 'fail', message: 'invalid usage for client certificate: server auth' });
  assert.deepEqual(decideSigning(approved(['digital signature']), now, 20_000, now + 86400_000), { action: 'fail', message: 'missing required usage for client certificate: client auth' });
  assert.equal(decideSigning(approved(['client auth'], []), now, 20_000, now + 86400_000).action, 'ignore');
  assert.equal(decideSigning(approved(['client auth'], [D]), now, 20_000, now + 86400_000).action, 'ignore');
  assert.equal(decideSigning(approved(['client auth'], [A, F]), now, 20_000, now + 86400_000).action, 'ignore');
  assert.equal(decideSigning(csr({ ...goodSpec, signerName: 'example.com/other' }, { conditions: [A] }), now, 20_000, now + 86400_000).action, 'ignore');
  assert.equal(decideSigning(csr(goodSpec, { conditions: [A], certificate: 'eA==' }), now, 20_000, now + 86400_000).action, 'ignore');
});
